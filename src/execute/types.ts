/** Most bytes the agent may leave in each of its writable folders (enforced by execute/quota.ts). */
export interface DiskQuota {
  submission: number;
  logs: number;
  code: number;
}

/** The agent contract's paths as one agent sees them (execute/contract.ts: in a container, or on the host). */
export interface ContractPaths {
  data: string;
  submission: string;
  logs: string;
  code: string;
  instructions: string;
}

/** How a run ended, from the executor's point of view. */
export type Outcome = "completed" | "failed" | "timed_out" | "oom" | "infra_error";

/** Everything an executor needs to run one (competition, seed). Host paths are absolute. */
export interface RunSpec {
  runId: string;
  suiteId: string;
  competitionId: string;
  seed: number;
  /** Host folder with the competition's public files (mounted read-only at /home/data). */
  publicDir: string;
  /** Host folder of this run: submission/, logs/, code/, instructions.txt, run.log live here. */
  runDir: string;
  timeLimitSecs: number;
  /** Extra environment the agent may see (config env + secrets, already resolved). */
  env: Record<string, string>;
  /** GPU device ids pinned to this run (empty: none). */
  gpus: string[];
  /** URL of the format-validation endpoint, when one runs. */
  validationUrl?: string;
  /** Names in `env` whose values are secrets: masked in run.log, the run folder and the outcome. */
  secretEnv?: string[];
  /** Most bytes per writable folder, checked while the run runs and once after (default execute/quota.ts). */
  quota?: DiskQuota;
  /** Which attempt this is (1 first); a retry starts from an empty submission folder. */
  attempt?: number;
}

export interface ExecResult {
  outcome: Outcome;
  exitCode: number | null;
  /** The signal that ended the agent's process, when the executor knows it (local). */
  signal?: string;
  durationMs: number;
  oomKilled?: boolean;
  /** Human-readable reason for failed/infra_error outcomes. */
  error?: string;
  /** Executor-specific facts for the results (image digest, container id, …). */
  details?: Record<string, string>;
  /** The run was stopped because the suite was cancelled: not a result, run again on resume. */
  cancelled?: boolean;
  /** An infra_error worth another attempt (the daemon hiccuped), as opposed to a fixed fault. */
  retryable?: boolean;
}

/** Paths inside a run directory, shared by every executor. */
export function runPaths(runDir: string) {
  return {
    submissionDir: `${runDir}/submission`,
    submissionFile: `${runDir}/submission/submission.csv`,
    logsDir: `${runDir}/logs`,
    codeDir: `${runDir}/code`,
    instructionsFile: `${runDir}/instructions.txt`,
    logFile: `${runDir}/run.log`,
  };
}
