import { runPaths, type RunSpec } from "./types.js";

/** Where the agent contract puts things inside a container (MLE-bench's paths). */
export const CONTAINER_PATHS = {
  data: "/home/data",
  submission: "/home/submission",
  logs: "/home/logs",
  code: "/home/code",
  instructions: "/home/instructions.txt",
} as const;

export type ContractPaths = { [K in keyof typeof CONTAINER_PATHS]: string };

/** The paths a local agent gets: the run's own folders on the host. */
export function hostPaths(spec: RunSpec): ContractPaths {
  const p = runPaths(spec.runDir);
  return {
    data: spec.publicDir,
    submission: p.submissionDir,
    logs: p.logsDir,
    code: p.codeDir,
    instructions: p.instructionsFile,
  };
}

/** The contract's variables for a run: host paths for the local executor, container paths in Docker. */
export function contractEnv(spec: RunSpec, paths: ContractPaths): Record<string, string> {
  const env: Record<string, string> = {
    COMPETITION_ID: spec.competitionId,
    SEED: String(spec.seed),
    TIME_LIMIT_SECS: String(spec.timeLimitSecs),
    DATA_DIR: paths.data,
    SUBMISSION_DIR: paths.submission,
    LOGS_DIR: paths.logs,
    CODE_DIR: paths.code,
    INSTRUCTIONS_FILE: paths.instructions,
  };
  if (spec.validationUrl) env.MEDALIST_VALIDATION_URL = spec.validationUrl;
  return env;
}
