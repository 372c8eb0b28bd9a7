import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { Config } from "../config/schema.js";
import type { AgentConfig } from "../config/parts.js";
import type { OpenExecutor } from "../execute/lifecycle.js";
import { instructions } from "../execute/instructions.js";
import { runPaths } from "../execute/types.js";
import { grade } from "../grade/grade.js";
import { formatGrader } from "../grade/format-check.js";
import type { PlannedRun } from "../plan/plan.js";
import type { Registry } from "../registry/registry.js";
import { leaderboardPath } from "../registry/leaderboards.js";
import type { RunResult } from "../results/schema.js";
import type { PreparedPaths } from "./prepare.js";
import type { RunEvent } from "./progress.js";
import { executeWithRetries, type RetryPolicy } from "./retry.js";
import { gradeJson, readUsage } from "./run-files.js";
import { decide, type Selection } from "./reuse.js";
import { readStoredRun, readStoredRunChecked, saveRun } from "./store.js";
import { isStorageFault, storageSentence } from "../util/atomic.js";
import { fetchRun, putRun } from "./run-store.js";
import { runSealProblem, sealRun } from "./seal.js";
import type { RunIdentity } from "./identity.js";
import { CONTAINER_PATHS } from "../execute/contract.js";
import { describeFailure } from "../execute/failure.js";
import { readTail } from "../execute/run-log.js";
import { Masker } from "../execute/mask.js";
import { secretValues } from "../execute/attempt.js";

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
  /** Each competition's run identity (agent, command, env, limits, data, grader). */
  identities: Map<string, RunIdentity>;
  /** Upstream MLE-bench's instructions for every run (config `instructions`); absent: Medalist's own. */
  instructionsText?: string | null;
  selection: Selection;
  /** Runner-persistent store of finished runs (keyed by identity); null: none. */
  storeDir: string | null;
  /** The external grader's working folder; default: this process's. */
  graderDir?: string;
  /** The key run records are sealed with (suite/seal.ts): only a record it sealed is reused. */
  runKey: Buffer;
  /** Why records found in outDir are never reused (a pull request's checkout); null: when sealed. */
  untrustedRecords: string | null;
  outDir: string;
  env: Record<string, string>;
  retry: RetryPolicy;
  signal?: AbortSignal;
  /** Receives each result before run.json is written (kept even when the disk is full). */
  record?: (result: RunResult) => void;
  emit: (e: RunEvent) => void;
  /** Suite-level messages (store problems). */
  log?: (line: string) => void;
  /**
   * Set once the run store could not be written (full or read-only): said once, then no run is
   * copied there for the rest of the suite (the results folder keeps every record).
   */
  storeFault?: { sentence: string | null };
}

/**
 * One (competition, seed): reuse a finished run, or execute it (retries under the one policy),
 * grade the submission outside the sandbox, and save run.json. Returns the result, or null
 * when the run was cancelled (not a result: it runs again when the suite resumes).
 */
export async function runOne(ctx: RunContext, run: PlannedRun, gpus: string[]): Promise<RunResult | null> {
  const runDir = join(ctx.outDir, "runs", run.runId);
  const storePath = join(runDir, "run.json");

  // Reuse: a finished run counts only while its identity matches (and the selection allows it).
  const identity = ctx.identities.get(run.competitionId)!;
  const checked = readStoredRunChecked(storePath);
  let stored = checked.stored;
  /** A record that exists but cannot be read: never reused, said once in the run's start line. */
  let unreadable = "problem" in checked ? checked.problem : null;
  // Only what this runner wrote and sealed counts: a record's identity is computable by anyone.
  let untrusted = stored ? (ctx.untrustedRecords ?? runSealProblem(runDir, run.runId, ctx.runKey)) : null;
  const usable = stored !== null && untrusted === null && stored.identity?.hash === identity.hash;
  // Not here (a cleaned workspace): the runner's store may hold it under the same identity.
  if (ctx.storeDir && !usable && !ctx.selection.fresh) {
    try {
      if (fetchRun(ctx.storeDir, run.runId, identity.hash, runDir)) {
        stored = readStoredRun(storePath);
        untrusted = stored ? runSealProblem(runDir, run.runId, ctx.runKey) : null;
        if (stored) unreadable = null;
      }
    } catch (e) {
      ctx.log?.(`${run.runId}: could not read the run store ${ctx.storeDir}: ${(e as Error).message}`);
    }
  }
  let decision = decide(
    run,
    stored ? { identity: stored.identity, outcome: stored.result.outcome, untrusted } : null,
    identity,
    ctx.selection,
  );
  if (unreadable && decision.action === "run" && !stored)
    decision = { action: "run", why: `its run.json is ${unreadable}, so it counts as not run` };
  if (decision.action === "skip") {
    ctx.emit({ kind: "skipped", runId: run.runId, why: decision.why });
    return null;
  }
  if (decision.action === "reuse" && stored) {
    const kept: RunResult = { ...stored.result, identity: identity.hash, reused: true };
    ctx.emit({ kind: "kept", runId: run.runId, outcome: kept.outcome, cause: kept.failure?.cause ?? null });
    return kept;
  }

  rmSync(runDir, { recursive: true, force: true });
  mkdirSync(runDir, { recursive: true });
  const entry = ctx.registry.get(run.competitionId)!;
  const paths = ctx.prepared.get(run.competitionId)!;
  const spec = {
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
  };
  // The instructions name the paths this executor really gives the agent (upstream's text is
  // used only where they are MLE-bench's: mlebench/instructions.ts checked that).
  writeFileSync(
    runPaths(runDir).instructionsFile,
    ctx.instructionsText ??
      instructions(
        entry.competition,
        ctx.config.limits.time,
        ctx.executor.agentPaths?.(spec) ?? CONTAINER_PATHS,
      ),
  );
  const t0 = new Date();
  ctx.emit({ kind: "started", runId: run.runId, gpus, why: decision.action === "run" ? decision.why : "" });

  const { result: exec, attempts } = await executeWithRetries(
    (spec, signal) => ctx.executor.execute(spec, signal),
    {
      ...spec,
      validationUrl: ctx.executor.validationUrl?.(
        run.competitionId,
        join(paths.publicDir, entry.competition.sampleSubmission),
        run.runId,
        formatGrader(entry.competition, entry.dir),
      ),
      quota: ctx.config.limits.disk,
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
  if (exec.cancelled || (exec.outcome === "infra_error" && ctx.signal?.aborted)) {
    ctx.emit({ kind: "cancelled", runId: run.runId });
    return null;
  }

  // Grading happens here, outside the agent's sandbox, after it exited.
  const graded =
    exec.outcome === "infra_error"
      ? null
      : await grade({
          competition: entry.competition,
          competitionDir: entry.dir,
          privateDir: paths.privateDir,
          submissionPath: runPaths(runDir).submissionFile,
          leaderboardPath: leaderboardPath(entry),
          external: ctx.config.externalGrader
            ? { command: ctx.config.externalGrader, cwd: ctx.graderDir }
            : undefined,
        });
  // A grade error can quote submission values, which the agent controls: masked like run.log.
  const masker = new Masker(secretValues({ env: ctx.env, secretEnv: ctx.agent.secrets }));
  const report = graded && graded.error ? { ...graded, error: masker.mask(graded.error) } : graded;
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
    identity: identity.hash,
    failure: describeFailure(exec, readTail(runPaths(runDir).logFile)),
  };
  ctx.record?.(result);
  // The result is on disk before anything else uses it.
  saveRun(storePath, { suiteHash: ctx.suiteHash, agent: ctx.agentText, identity, result });
  try {
    sealRun(runDir, run.runId, ctx.runKey);
  } catch (e) {
    // A full or read-only results folder stops the suite (suite/run.ts); the unsealed record is re-run.
    if (isStorageFault(e)) throw e;
    ctx.log?.(`${run.runId}: its record was not sealed, so it will not be reused: ${(e as Error).message}`);
  }
  if (ctx.storeDir && !ctx.storeFault?.sentence) {
    try {
      putRun(ctx.storeDir, run.runId, identity.hash, runDir);
    } catch (e) {
      if (isStorageFault(e) && ctx.storeFault) {
        ctx.storeFault.sentence = storageSentence("the run store", ctx.storeDir, e);
        ctx.log?.(
          `${ctx.storeFault.sentence}: no further run is copied there; every record stays in the results folder`,
        );
      } else ctx.log?.(`${run.runId}: not saved to the run store ${ctx.storeDir}: ${(e as Error).message}`);
    }
  }
  ctx.emit({ kind: "finished", runId: run.runId, exec, report, failure: result.failure ?? null });
  return result;
}
