// Where an agent can write under a read-only root, for every container executor (the Docker
// executor and the Slurm executor's mode: docker). Pure.
import { CONTAINER_PATHS } from "../contract.js";

/** The container's in-memory scratch folders, each limits.disk.tmp in size. */
export const TMP_DIRS = ["/tmp", "/var/tmp"] as const;

/** Where upstream's MLE-bench agents keep their own files (AGENT_DIR), writable under a read-only root. */
export const MLEBENCH_AGENT_DIR = "/home/agent";

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
/** The largest default size of the container's /tmp and /var/tmp (each an in-memory folder). */
export const MAX_DEFAULT_TMP = GiB;

/** Every place an agent can write under a read-only root: the in-memory ones, its folders, then `paths`. */
export function writablePlaces(paths: string[]): string[] {
  return [
    ...TMP_DIRS,
    "/dev/shm",
    CONTAINER_PATHS.submission,
    CONTAINER_PATHS.logs,
    CONTAINER_PATHS.code,
    ...paths,
  ];
}

/** Where a HOME is not made a writable place of its own: in or at Medalist's mounts and the system's. */
export const NOT_HOME = [
  "/nonexistent",
  "/dev",
  "/proc",
  "/sys",
  ...writablePlaces([]),
  CONTAINER_PATHS.data,
];

/** Whether a HOME stays without a writable place of its own (/home itself, or in NOT_HOME). */
export function reservedHome(home: string): boolean {
  return home === "/home" || NOT_HOME.some((r) => home === r || home.startsWith(`${r}/`));
}

/** The configured writable places of a read-only root: /home/agent for an MLE-bench agent, then limits.disk.writable. */
export function configuredWritable(writable: string[], mlebench: boolean): string[] {
  return [...new Set([...(mlebench ? [MLEBENCH_AGENT_DIR] : []), ...writable])];
}

/** Size of each of /tmp and /var/tmp unless limits.disk.tmp says: a quarter of the memory limit, at most 1 GiB. */
export function defaultTmp(memory: number | undefined): number {
  return memory === undefined
    ? MAX_DEFAULT_TMP
    : Math.min(MAX_DEFAULT_TMP, Math.floor(memory / 4 / MiB) * MiB);
}
