// Upstream MLE-bench's container facts that a container backend applies to an MLE-bench agent
// (mlebench/ reads the agent's own folder; execute/ must not import it).

/** The user upstream runs start.sh as (`exec_run(…, user="nonroot")`). */
export const MLEBENCH_USER = "nonroot";

/** Upstream's default container config (environment/config/container_configs/default.json): shm_size 4G. */
export const MLEBENCH_SHM_BYTES = 4 * 1024 ** 3;
