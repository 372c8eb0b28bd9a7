import { z } from "zod";

/** How runs are run, whichever executor runs them. Unset fields fall back to the old docker keys. */
export const RunPolicySchema = z.strictObject({
  /** How often an infrastructure error is retried before the run counts as not comparable. */
  retries: z.number().int().min(0).optional(),
  /** Seconds between SIGTERM and SIGKILL when the time limit is hit. */
  stopGraceSecs: z.number().int().min(0).max(3600).optional(),
  /**
   * Seconds an executor waits for its daemon or controller (dockerd, slurmctld, sacct) to answer
   * again after it went away, before the runs not yet finished are reported as infrastructure errors.
   */
  reconnectSecs: z.number().int().min(0).max(86400).optional(),
});

/** The keys the policy is read from: run.*, and the deprecated docker.* ones. */
export interface PolicyKeys {
  run?: z.output<typeof RunPolicySchema>;
  docker: { retries?: number; stopGraceSecs?: number };
}

export interface RunPolicy {
  retries: number;
  stopGraceSecs: number;
  reconnectSecs: number;
}

/** How long an executor waits for its daemon or controller by default: a restart takes seconds to a minute. */
export const DEFAULT_RECONNECT_SECS = 300;

/** The run policy in force: run.*, else the deprecated docker.* keys, else the defaults. */
export function runPolicy(config: PolicyKeys): RunPolicy {
  return {
    retries: config.run?.retries ?? config.docker.retries ?? 2,
    stopGraceSecs: config.run?.stopGraceSecs ?? config.docker.stopGraceSecs ?? 10,
    reconnectSecs: config.run?.reconnectSecs ?? DEFAULT_RECONNECT_SECS,
  };
}

/** One line per deprecated key the config still uses. */
export function configDeprecations(config: Pick<PolicyKeys, "docker">): string[] {
  const out: string[] = [];
  for (const key of ["retries", "stopGraceSecs"] as const) {
    if (config.docker[key] !== undefined)
      out.push(
        `medalist: docker.${key} is deprecated and applies to every executor; write run.${key} instead`,
      );
  }
  return out;
}
