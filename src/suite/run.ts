import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { z } from "zod";
import { join, relative, resolve } from "node:path";
import type { Config, AgentConfig } from "../config/schema.js";
import { loadRegistry, defaultRegistryDir, type Registry } from "../registry/registry.js";
import { plan, type PlannedRun } from "../plan/plan.js";
import { schedule } from "../execute/scheduler.js";
import { LocalExecutor } from "../execute/local.js";
import { setupDocker } from "../execute/docker/setup.js";
import { cleanupSuite } from "../execute/docker/cleanup.js";
import { instructions } from "../execute/instructions.js";
import { runPaths, type Executor, type ExecResult, type Outcome } from "../execute/types.js";
import { CONTAINER_PATHS } from "../execute/contract.js";
import { describeFailure, readTail } from "../execute/failure.js";
import { agentFacts, competitionIdentity } from "./identity-facts.js";
import { decide, parseOnly, type Selection } from "./reuse.js";
import { preparedDir } from "../prepare/prepare.js";
import { grade } from "../grade/grade.js";
import type { GradeReport } from "../grade/types.js";
import type { GradeReportJson, RunResult, SuiteResults } from "../results/schema.js";
import { RESULTS_SCHEMA_VERSION } from "../results/schema.js";
import { ensurePrepared, type PreparedPaths } from "./prepare.js";
import { leaderboardPath } from "../registry/leaderboards.js";
import { readStoredRun, writeAtomic, writeResults, toJson } from "./store.js";
import { UserError } from "../errors.js";
import { VERSION } from "../version.js";

export interface SuiteOptions {
  config: Config;
  /** Folder of the config file; relative paths resolve against it. */
  baseDir: string;
  /** Where results.json and runs/ go. */
  outDir: string;
  /** "base", "head", or a free label. */
  label: string;
  /** Agent to evaluate (defaults to config.agent). */
  agent?: AgentConfig;
  /** Executor override (tests, Docker). */
  executor?: Executor;
  registry?: Registry;
  signal?: AbortSignal;
  /** Progress lines. */
  log?: (line: string) => void;
  git?: { sha: string | null; ref: string | null };
  gpuModel?: string | null;
  /** Seconds between "still running" progress lines (0: none). Default 60. */
  heartbeatSecs?: number;
  /** Which runs execute again: --fresh, --rerun OUTCOMES, --only RUNS (checked against the plan). */
  selection?: { fresh?: boolean; rerun?: Outcome[]; only?: string | null };
}

export function describeAgent(agent: AgentConfig): string {
  if (agent.image) return `image ${agent.image}`;
  if (agent.build) return `build ${agent.build.context}/${agent.build.dockerfile}`;
  return Array.isArray(agent.command) ? agent.command.join(" ") : (agent.command ?? "(none)");
}

function gradeJson(r: GradeReport): GradeReportJson {
  const n = (v: number | null) => (v !== null && Number.isNaN(v) ? ("NaN" as const) : v);
  return {
    ...r,
    score: n(r.score),
    gold_threshold: n(r.gold_threshold),
    silver_threshold: n(r.silver_threshold),
    bronze_threshold: n(r.bronze_threshold),
    median_threshold: n(r.median_threshold),
    ...(r.unrounded_score === undefined ? {} : { unrounded_score: n(r.unrounded_score) }),
  };
}

const UsageSchema = z.object({
  tokens: z.number().nonnegative().optional(),
  dollars: z.number().nonnegative().optional(),
});

/** The agent's optional logs/usage.json ({tokens, dollars}); ignored when absent or malformed. */
export function readUsage(runDir: string): RunResult["usage"] {
  try {
    const parsed = UsageSchema.safeParse(
      JSON.parse(readFileSync(join(runPaths(runDir).logsDir, "usage.json"), "utf8")),
    );
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function localExecutor(opts: SuiteOptions, agent: AgentConfig): Executor {
  if (agent.command === undefined) throw new UserError("agent.command: the local executor needs a command");
  return new LocalExecutor({
    command: agent.command,
    cwd: resolve(opts.baseDir, agent.cwd ?? "."),
    graceSecs: opts.config.docker.stopGraceSecs,
  });
}

/** Resolves agent.secrets (names) against the runner's environment. Missing secrets are an error. */
export function agentEnv(agent: AgentConfig, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = { ...agent.env };
  for (const name of agent.secrets) {
    const v = env[name];
    if (v === undefined) throw new UserError(`agent.secrets: ${name} is not set in the runner's environment`);
    out[name] = v;
  }
  return out;
}

/**
 * Runs every (competition, seed) of the suite, grades each submission outside the agent's
 * sandbox, and writes results.json. A run whose run.json exists for the same suite and agent is
 * reused, so an interrupted suite resumes where it stopped.
 */
export async function runSuite(opts: SuiteOptions): Promise<SuiteResults> {
  const { config } = opts;
  const log = opts.log ?? (() => {});
  const agent = opts.agent ?? config.agent;
  const registry =
    opts.registry ??
    loadRegistry(config.registryDir ? resolve(opts.baseDir, config.registryDir) : defaultRegistryDir());
  const thePlan = plan(config, registry);
  const dataDir = resolve(opts.baseDir, config.dataDir);
  const outDir = resolve(opts.outDir);
  const env = agentEnv(agent);
  // One id per suite invocation: container names and labels, so a cancel removes exactly these.
  const suiteId = `${opts.label}-${thePlan.suiteHash.slice(0, 8)}-${Date.now().toString(36)}`;
  const agentText = describeAgent(agent);
  const startedAt = new Date().toISOString();

  const external = thePlan.competitions.filter((id) => registry.get(id)!.competition.grading === "external");
  if (external.length > 0 && !config.externalGrader) {
    throw new UserError(
      `externalGrader: ${external.join(", ")} ${external.length === 1 ? "is" : "are"} not graded natively; ` +
        `set externalGrader (e.g. ["mlebench", "grade-sample", "{submission}", "{competition}"]) or exclude ${external.length === 1 ? "it" : "them"}`,
    );
  }

  const prepared = new Map<string, PreparedPaths>();
  for (const id of thePlan.competitions)
    prepared.set(id, await ensurePrepared(registry.get(id)!, dataDir, log));

  // Checks and data first; the Docker setup (daemon, image build, GPUs, validation endpoint) last.
  const docker =
    !opts.executor && config.executor === "docker"
      ? await setupDocker({ ...config, agent }, { baseDir: opts.baseDir, log })
      : null;
  const executor: Executor = opts.executor ?? docker?.executor ?? localExecutor(opts, agent);
  const stopContainers = () => void (docker && cleanupSuite(docker.docker, suiteId).catch(() => {}));
  opts.signal?.addEventListener("abort", stopContainers, { once: true });

  // Each run's identity: a finished run is reused only while it matches.
  const selection: Selection = {
    fresh: opts.selection?.fresh ?? false,
    rerun: opts.selection?.rerun ?? [],
    only: opts.selection?.only ? parseOnly(opts.selection.only, thePlan.competitions, thePlan.seeds) : null,
  };
  const facts = agentFacts({
    agent,
    config,
    baseDir: opts.baseDir,
    executor: executor.name,
    imageId: docker?.image.id ?? null,
    exclude: [outDir, dataDir],
  });
  const identities = new Map(
    thePlan.competitions.map((id) => [
      id,
      competitionIdentity(facts, registry.get(id)!.competition, preparedDir(dataDir, id), config),
    ]),
  );
  const counts = { executed: 0, reused: 0, skipped: 0 };

  log(
    `[${opts.label}] ${thePlan.runs.length} runs: ${thePlan.competitions.length} competitions × ${thePlan.seeds} seeds, agent: ${agentText}`,
  );
  const results = new Map<string, RunResult>();
  let done = 0;
  const total = thePlan.runs.length;

  /** Runs in flight and when each started, for the heartbeat. */
  const running = new Map<string, number>();
  const one = async (run: PlannedRun, gpus: string[]) => {
    const runDir = join(outDir, "runs", run.runId);
    const storePath = join(runDir, "run.json");
    const stored = readStoredRun(storePath);
    const identity = identities.get(run.competitionId)!;
    const decision = decide(
      run,
      stored ? { identity: stored.identity, outcome: stored.result.outcome } : null,
      identity,
      selection,
    );
    if (decision.action === "skip") {
      counts.skipped++;
      log(`[${opts.label}] ${++done}/${total} ${run.runId}: left out (${decision.why})`);
      return;
    }
    if (decision.action === "reuse" && stored) {
      counts.reused++;
      results.set(run.runId, { ...stored.result, identity: identity.hash, reused: true });
      const cause = stored.result.failure ? `: ${stored.result.failure.cause}` : "";
      log(
        `[${opts.label}] ${++done}/${total} ${run.runId}: reused, same identity as the finished run (${stored.result.outcome}${cause})`,
      );
      return;
    }
    counts.executed++;
    rmSync(runDir, { recursive: true, force: true });
    mkdirSync(runDir, { recursive: true });
    const entry = registry.get(run.competitionId)!;
    const paths = prepared.get(run.competitionId)!;
    const specBase = {
      runId: run.runId,
      suiteId,
      competitionId: run.competitionId,
      seed: run.seed,
      publicDir: paths.publicDir,
      runDir,
      timeLimitSecs: config.limits.time,
      env,
      gpus,
      secretEnv: agent.secrets,
    };
    // The instructions name the paths this executor really gives the agent.
    writeFileSync(
      runPaths(runDir).instructionsFile,
      instructions(entry.competition, config.limits.time, executor.agentPaths?.(specBase) ?? CONTAINER_PATHS),
    );
    const t0 = new Date();
    running.set(run.runId, t0.getTime());
    const why = decision.action === "run" ? decision.why : "";
    log(
      `[${opts.label}] ${done + 1}/${total} ${run.runId}: started${gpus.length ? ` on GPU ${gpus.join(",")}` : ""} (${why})`,
    );

    let exec: ExecResult;
    let attempts = 0;
    for (;;) {
      attempts++;
      exec = await executor.execute(
        {
          ...specBase,
          validationUrl: docker?.validation?.register(
            run.competitionId,
            join(paths.publicDir, entry.competition.sampleSubmission),
          ),
        },
        opts.signal,
      );
      if (exec.attempts !== undefined) {
        attempts = exec.attempts; // the executor retried by itself
        break;
      }
      if (exec.outcome !== "infra_error" || attempts > config.docker.retries || opts.signal?.aborted) break;
      log(
        `[${opts.label}] ${run.runId}: infrastructure error (${exec.error}); retrying (${attempts}/${config.docker.retries})`,
      );
    }

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
            external: config.externalGrader ? { command: config.externalGrader } : undefined,
          });
    const failure = describeFailure(exec, readTail(runPaths(runDir).logFile));
    const result: RunResult = {
      runId: run.runId,
      competitionId: run.competitionId,
      seed: run.seed,
      outcome: exec.outcome,
      exitCode: exec.exitCode,
      startedAt: t0.toISOString(),
      durationMs: exec.durationMs,
      attempts,
      runDir: relative(outDir, runDir),
      error: exec.error ?? null,
      grade: report ? gradeJson(report) : null,
      usage: readUsage(runDir),
      gpus,
      details: exec.details ?? {},
      identity: identity.hash,
      failure,
    };
    // A cancelled run is not a result: it is run again when the suite resumes.
    const cancelled =
      exec.outcome === "infra_error" && (opts.signal?.aborted || exec.details?.cancelled === "true");
    if (!cancelled)
      writeAtomic(storePath, toJson({ suiteHash: thePlan.suiteHash, agent: agentText, identity, result }));
    results.set(run.runId, result);
    running.delete(run.runId);
    const medal = report
      ? report.gold_medal
        ? "gold"
        : report.silver_medal
          ? "silver"
          : report.bronze_medal
            ? "bronze"
            : "no medal"
      : "not graded";
    const score = report?.valid_submission
      ? `score ${report.score}`
      : report
        ? `invalid: ${report.error}`
        : "not graded";
    // One vocabulary: the outcome word is the one results.json and the report use.
    log(
      `[${opts.label}] ${++done}/${total} ${run.runId}: ${exec.outcome} in ${(exec.durationMs / 1000).toFixed(1)}s${failure ? `: ${failure.cause}` : ""}, ${score}, ${medal}`,
    );
    if (failure && failure.stderrTail.length > 0 && exec.outcome !== "infra_error")
      log(`[${opts.label}]   last stderr: ${failure.stderrTail.slice(-3).join(" ⏎ ")}`);
  };

  const beatSecs = opts.heartbeatSecs ?? 60;
  const heartbeat =
    beatSecs > 0
      ? setInterval(() => {
          if (running.size === 0) return;
          const now = Date.now();
          const list = [...running].map(([id, t]) => `${id} (${Math.round((now - t) / 1000)}s)`).join(", ");
          log(`[${opts.label}] ${done}/${total} done; running: ${list}`);
        }, beatSecs * 1000)
      : undefined;
  heartbeat?.unref();
  try {
    await schedule(
      thePlan.runs.map((r) => ({
        ...r,
        id: r.runId,
        gpus: docker?.perRun.gpus ?? 0,
        cpus: docker?.perRun.cpus,
      })),
      docker?.resources ?? { gpuIds: [], maxParallel: config.concurrency },
      one,
      opts.signal,
    );
  } finally {
    clearInterval(heartbeat);
    opts.signal?.removeEventListener("abort", stopContainers);
    await docker?.close();
  }

  log(
    `[${opts.label}] ${counts.executed} executed, ${counts.reused} reused (same identity as a finished run)` +
      (counts.skipped ? `, ${counts.skipped} left out (--only)` : ""),
  );
  const suite: SuiteResults = {
    schemaVersion: RESULTS_SCHEMA_VERSION,
    medalistVersion: VERSION,
    label: opts.label,
    suite: {
      name: config.name,
      hash: thePlan.suiteHash,
      competitions: thePlan.competitions,
      seeds: thePlan.seeds,
    },
    agent: {
      description: agentText,
      image: docker?.image.ref ?? agent.image ?? null,
      imageDigest: docker?.image.digest ?? null,
    },
    git: opts.git ?? { sha: null, ref: null },
    environment: {
      executor: executor.name,
      timeLimitSecs: config.limits.time,
      gpuModel: opts.gpuModel ?? docker?.gpus.model ?? null,
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    },
    startedAt,
    finishedAt: new Date().toISOString(),
    runs: thePlan.runs.map((r) => results.get(r.runId)).filter((r): r is RunResult => r !== undefined),
  };
  // Written before anything else (compare, comment, upload) uses it.
  return writeResults(join(outDir, "results.json"), suite);
}
