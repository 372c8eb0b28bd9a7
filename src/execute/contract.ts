import { createHash } from "node:crypto";
import { runPaths, type ContractPaths, type RunSpec } from "./types.js";

/** Where the agent contract puts things inside a container (MLE-bench's paths). */
export const CONTAINER_PATHS = {
  data: "/home/data",
  submission: "/home/submission",
  logs: "/home/logs",
  code: "/home/code",
  instructions: "/home/instructions.txt",
} as const satisfies ContractPaths;

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

/** The agent's user in a container: the runner's uid:gid, or nobody (65534:65534) when the runner is root. */
export function defaultAgentUser(): string {
  const uid = process.getuid?.() ?? 65534;
  const gid = process.getgid?.() ?? 65534;
  return uid === 0 ? "65534:65534" : `${uid}:${gid}`;
}

/** A valid container or job name for a run: medalist-<suite>-<run>, shortened with a hash if long. */
export function runName(suiteId: string, runId: string): string {
  const clean = (s: string) => s.replace(/[^a-zA-Z0-9_.-]+/g, "-");
  const name = `medalist-${clean(suiteId)}-${clean(runId)}`;
  if (name.length <= 120) return name;
  const hash = createHash("sha256").update(`${suiteId}\0${runId}`).digest("hex").slice(0, 12);
  return `${name.slice(0, 107)}-${hash}`;
}
