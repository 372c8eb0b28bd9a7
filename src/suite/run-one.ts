import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { AgentConfig, Config } from "../config/schema.js";
import type { OpenExecutor } from "../execute/lifecycle.js";
import { instructions } from "../execute/instructions.js";
import { runPaths } from "../execute/types.js";
import { grade } from "../grade/grade.js";
import type { PlannedRun } from "../plan/plan.js";
import type { Registry } from "../registry/registry.js";
import { leaderboardPath } from "../registry/leaderboards.js";
import type { RunResult } from "../results/schema.js";
import type { PreparedPaths } from "./prepare.js";
import type { RunEvent } from "./progress.js";
import { executeWithRetries, type RetryPolicy } from "./retry.js";
import { gradeJson, readUsage } from "./run-files.js";
import { fingerprintOf, reusableResult } from "./reuse.js";
import { readStoredRun, saveRun } from "./store.js";

/** Everything one run needs from its suite; built once by runSuite. */
export interface RunContext {
  config: Config;
  agent: AgentConfig;
  /** How the agent is described in the results (and in the reuse fingerprint). */
  agentText: string;
  registry: Registry;
  prepared: Map<string, PreparedPaths>;
  executor: OpenExecutor;
  suiteId: string;
  suiteHash: string;
  outDir: string;
  env: Record<string, string>;
  retry: RetryPolicy;
  signal?: AbortSignal;
  emit: (e: RunEvent) => void;
}

/**
 * One (competition, seed): reuse a finished run, or execute it (retries under the one policy),
 * grade the submission outside the sandbox, and save run.json. Returns the result, or null
 * when the run was cancelled (not a result: it runs again when the suite resumes).
 */
export async function runOne(ctx: RunContext, run: PlannedRun, gpus: string[]): Promise<RunResult | null> {
  const runDir = join(ctx.outDir, "runs", run.runId);
  const storePath = join(runDir, "run.json");

  // Reuse: the stored run counts when its fingerprint matches this suite's.
  const fingerprint = fingerprintOf(ctx.suiteHash, ctx.agentText);
  const kept = reusableResult(readStoredRun(storePath), fingerprint);
  if (kept) {
    ctx.emit({ kind: "kept", runId: run.runId, outcome: kept.outcome });
    return kept;
  }

  rmSync(runDir, { recursive: true, force: true });
  mkdirSync(runDir, { recursive: true });
  const entry = ctx.registry.get(run.competitionId)!;
  const paths = ctx.prepared.get(run.competitionId)!;
  writeFileSync(runPaths(runDir).instructionsFile, instructions(entry.competition, ctx.config.limits.time));
  const t0 = new Date();
  ctx.emit({ kind: "started", runId: run.runId, gpus });

  const { result: exec, attempts } = await executeWithRetries(
    (spec, signal) => ctx.executor.execute(spec, signal),
    {
      runId: run.runId,
      suiteId: ctx.suiteId,
      competitionId: run.competitionId,
      seed: run.seed,
      publicDir: paths.publicDir,
      runDir,
      timeLimitSecs: ctx.config.limits.time,
      env: ctx.env,
      gpus,
      secretEnv: ctx.agent.secrets,
      validationUrl: ctx.executor.validationUrl?.(
        run.competitionId,
        join(paths.publicDir, entry.competition.sampleSubmission),
      ),
    },
    ctx.retry,
    {
      signal: ctx.signal,
      onRetry: (attempt, failed) =>
        ctx.emit({
          kind: "retrying",
          runId: run.runId,
          attempt,
          retries: ctx.retry.retries,
          error: failed.error,
        }),
    },
  );
  if (exec.cancelled || (exec.outcome === "infra_error" && ctx.signal?.aborted)) return null;

  // Grading happens here, outside the agent's sandbox, after it exited.
  const report =
    exec.outcome === "infra_error"
      ? null
      : await grade({
          competition: entry.competition,
          competitionDir: entry.dir,
          privateDir: paths.privateDir,
          submissionPath: runPaths(runDir).submissionFile,
          leaderboardPath: leaderboardPath(entry),
          external: ctx.config.externalGrader ? { command: ctx.config.externalGrader } : undefined,
        });
  const result: RunResult = {
    runId: run.runId,
    competitionId: run.competitionId,
    seed: run.seed,
    outcome: exec.outcome,
    exitCode: exec.exitCode,
    startedAt: t0.toISOString(),
    durationMs: exec.durationMs,
    attempts,
    runDir: relative(ctx.outDir, runDir),
    error: exec.error ?? null,
    grade: report ? gradeJson(report) : null,
    usage: readUsage(runDir),
    gpus,
    details: exec.details ?? {},
  };
  // The result is on disk before anything else uses it.
  saveRun(storePath, { ...fingerprint, result });
  ctx.emit({ kind: "finished", runId: run.runId, exec, report });
  return result;
}
