import type { AgentConfig, Limits } from "../config/parts.js";
import type { PolicyKeys } from "../config/run-policy.js";
import type { Resources } from "./scheduler.js";
import type { ExecResult, RunSpec } from "./types.js";
import type { ContractPaths } from "./types.js";
import type { GraderSpec } from "../grade/spec.js";
import type { AttemptDriver } from "./attempt.js";

/**
 * The executor lifecycle: open (once per suite) → execute (once per run attempt) → close (once,
 * also on cancel). Every backend (local/, docker/, slurm/) describes itself in its own folder's
 * index.ts (a Backend, execute/backend.ts) and is registered with registerBackend
 * (execute/registry.ts); each attempt is execute/attempt.ts's runAttempt with the backend's
 * driver. Nothing outside the backend's folder knows which backend runs.
 */
/**
 * What of the suite's config an executor reads (config/schema.ts's Config has all of it). Each
 * backend reads its own block, typed in its folder's config.ts; executors never import the whole
 * config schema, which derives its executor blocks from execute/backends.ts.
 */
export type SuiteConfig = PolicyKeys & {
  name: string;
  dataDir: string;
  concurrency: number;
  executor: string;
  limits: Limits;
  agent: AgentConfig;
  [block: string]: unknown;
};

export interface SuiteContext {
  config: SuiteConfig;
  /** The agent under test (config.agent, or the baseline's agent). */
  agent: AgentConfig;
  /** Folder of the config file; relative paths resolve against it. */
  baseDir: string;
  /** One id per suite invocation: names and labels of everything the backend starts. */
  suiteId: string;
  /** "base", "head" or a free label. */
  label: string;
  /** The results folder holding the run folders (exists when the executor opens). */
  outDir?: string;
  log: (line: string) => void;
  signal?: AbortSignal;
}

/** Facts about the environment the runs ran in, recorded in results.json. */
export interface EnvironmentFacts {
  image: string | null;
  imageDigest: string | null;
  /** The image's content-addressed id (sha256:…), part of each run's identity. */
  imageId?: string | null;
  gpuModel: string | null;
  /** The OCI runtime of the agent's containers (the Docker executor: runc, runsc, sysbox-runc). */
  runtime?: string;
  /** Set when the agent runs with no sandbox: why, in words (the local executor). */
  unsandboxed?: string;
}

/** A backend opened for one suite: what Backend.open gives. */
export interface OpenBackend {
  readonly name: string;
  /** What the scheduler may hand out on this runner. */
  readonly resources: Resources;
  /** What each run reserves (the scheduler task's gpus and cpus). */
  readonly perRun: { gpus: number; cpus?: number };
  readonly facts: EnvironmentFacts;
  /** The paths the agent sees, named in its instructions; the container paths when absent. */
  agentPaths?(spec: RunSpec): ContractPaths;
  /**
   * URL of the format-check endpoint for one run (its own request budget), when offered; with
   * the competition's declared grader, the endpoint runs that grader's validity checks.
   */
  validationUrl?(
    competitionId: string,
    sampleSubmissionPath: string,
    runId?: string,
    grader?: GraderSpec | null,
  ): string | undefined;
  /** The backend's part of each attempt; execute/attempt.ts does the rest. */
  driver(): AttemptDriver;
  /** Releases everything the backend started (containers, jobs, servers). Idempotent. */
  close(): Promise<void>;
}

/**
 * An opened backend as the suite runs it (execute/registry.ts's openExecutor): each attempt is
 * runAttempt with the backend's driver. Never grades, never retries: the caller retries infra
 * errors marked `retryable` under one policy. A run stopped because the suite was cancelled has
 * `cancelled`. Tests hand runSuite stand-ins of this shape directly.
 */
export type OpenExecutor = Omit<OpenBackend, "driver"> & {
  execute(spec: RunSpec, signal?: AbortSignal): Promise<ExecResult>;
};
