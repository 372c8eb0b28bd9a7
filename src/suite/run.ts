import { join, resolve } from "node:path";
import { configDeprecations, runPolicy, type AgentConfig, type Config } from "../config/schema.js";
import { loadRegistry, defaultRegistryDir, type Registry } from "../registry/registry.js";
import { plan as planSuite, type Plan, type PlannedRun } from "../plan/plan.js";
import { schedule } from "../execute/scheduler.js";
import { openExecutor } from "../execute/factory.js";
import type { ExecutorBackend, SuiteContext } from "../execute/lifecycle.js";
import type { RunResult, SuiteResults } from "../results/schema.js";
import { RESULTS_SCHEMA_VERSION } from "../results/schema.js";
import { ensurePrepared, type PreparedPaths } from "./prepare.js";
import { writeResults } from "./store.js";
import { progressLine, type Counter, type RunEvent } from "./progress.js";
import { runOne, type RunContext } from "./run-one.js";
import { UserError } from "../errors.js";
import { VERSION } from "../version.js";

export { readUsage } from "./run-files.js";

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
  /** Backend override (tests); default: the one named by config.executor. */
  backend?: ExecutorBackend;
  registry?: Registry;
  /** The plan, when the caller made it already (it is made from config and registry otherwise). */
  plan?: Plan;
  /** Run only this shard's runs; its results say which shard they hold. */
  shard?: { index: number; count: number; runIds: string[] };
  signal?: AbortSignal;
  /** Progress lines. */
  log?: (line: string) => void;
  git?: { sha: string | null; ref: string | null };
  gpuModel?: string | null;
  /** Seconds between "still running" progress lines (0: none). Default 60. */
  heartbeatSecs?: number;
  /** Wait before the first retry of an infrastructure error (doubled each time). Default 2000. */
  retryDelayMs?: number;
}

/** Configs whose deprecation lines were shown: once per config, not once per side. */
const warned = new WeakSet<Config>();

export function describeAgent(agent: AgentConfig): string {
  if (agent.image) return `image ${agent.image}`;
  if (agent.build) return `build ${agent.build.context}/${agent.build.dockerfile}`;
  return Array.isArray(agent.command) ? agent.command.join(" ") : (agent.command ?? "(none)");
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
 * Runs every (competition, seed) of the suite (or of one shard), grades each submission outside
 * the agent's sandbox, and writes results.json. A run whose run.json exists for the same suite
 * and agent is reused, so an interrupted suite resumes where it stopped.
 */
export async function runSuite(opts: SuiteOptions): Promise<SuiteResults> {
  const { config } = opts;
  const log = opts.log ?? (() => {});
  const agent = opts.agent ?? config.agent;
  const registry =
    opts.registry ??
    loadRegistry(config.registryDir ? resolve(opts.baseDir, config.registryDir) : defaultRegistryDir());
  const thePlan = opts.plan ?? planSuite(config, registry);
  const only = opts.shard ? new Set(opts.shard.runIds) : null;
  const runs = only ? thePlan.runs.filter((r) => only.has(r.runId)) : thePlan.runs;
  const competitions = [...new Set(runs.map((r) => r.competitionId))];
  const dataDir = resolve(opts.baseDir, config.dataDir);
  // The results folder. (A lock against a second process writing it belongs here.)
  const outDir = resolve(opts.outDir);
  const env = agentEnv(agent);
  // One id per suite invocation: container names and labels, so a cancel removes exactly these.
  const suiteId = `${opts.label}-${thePlan.suiteHash.slice(0, 8)}-${Date.now().toString(36)}`;
  const agentText = describeAgent(agent);
  const startedAt = new Date().toISOString();
  if (!warned.has(config)) for (const line of configDeprecations(config)) log(line);
  warned.add(config);

  const external = competitions.filter((id) => registry.get(id)!.competition.grading === "external");
  if (external.length > 0 && !config.externalGrader) {
    throw new UserError(
      `externalGrader: ${external.join(", ")} ${external.length === 1 ? "is" : "are"} not graded natively; ` +
        `set externalGrader (e.g. ["mlebench", "grade-sample", "{submission}", "{competition}"]) or exclude ${external.length === 1 ? "it" : "them"}`,
    );
  }

  const prepared = new Map<string, PreparedPaths>();
  for (const id of competitions) prepared.set(id, await ensurePrepared(registry.get(id)!, dataDir, log));

  // Checks and data first; the executor (daemon, image build, GPUs, validation endpoint) last.
  const suiteCtx: SuiteContext = { config, agent, baseDir: opts.baseDir, suiteId, label: opts.label, log };
  if (opts.signal) suiteCtx.signal = opts.signal;
  const executor = opts.backend
    ? await opts.backend.open(suiteCtx)
    : await openExecutor(config.executor, suiteCtx);

  log(
    `[${opts.label}] ${runs.length} runs: ${competitions.length} competitions × ${thePlan.seeds} seeds, agent: ${agentText}`,
  );
  const counter: Counter = { done: 0, total: runs.length };
  /** Runs in flight and when each started, for the heartbeat. */
  const running = new Map<string, number>();
  // Per-run progress: every line about a run comes from here.
  const emit = (e: RunEvent) => {
    if (e.kind === "started") running.set(e.runId, Date.now());
    if (e.kind === "kept" || e.kind === "finished") {
      counter.done++;
      running.delete(e.runId);
    }
    log(progressLine(opts.label, counter, e));
  };
  const ctx: RunContext = {
    config,
    agent,
    agentText,
    registry,
    prepared,
    executor,
    suiteId,
    suiteHash: thePlan.suiteHash,
    outDir,
    env,
    retry: { retries: runPolicy(config).retries, delayMs: opts.retryDelayMs ?? 2000 },
    signal: opts.signal,
    emit,
  };
  const results = new Map<string, RunResult>();
  const one = async (run: PlannedRun, gpus: string[]) => {
    try {
      const r = await runOne(ctx, run, gpus);
      if (r) results.set(run.runId, r);
    } finally {
      running.delete(run.runId);
    }
  };

  const beatSecs = opts.heartbeatSecs ?? 60;
  const heartbeat =
    beatSecs > 0
      ? setInterval(() => {
          if (running.size === 0) return;
          const now = Date.now();
          const list = [...running].map(([id, t]) => `${id} (${Math.round((now - t) / 1000)}s)`).join(", ");
          log(`[${opts.label}] ${counter.done}/${counter.total} done; running: ${list}`);
        }, beatSecs * 1000)
      : undefined;
  heartbeat?.unref();
  try {
    await schedule(
      runs.map((r) => ({ ...r, id: r.runId, gpus: executor.perRun.gpus, cpus: executor.perRun.cpus })),
      executor.resources,
      one,
      opts.signal,
    );
  } finally {
    clearInterval(heartbeat);
    await executor.close();
  }

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
      image: executor.facts.image ?? agent.image ?? null,
      imageDigest: executor.facts.imageDigest,
    },
    git: opts.git ?? { sha: null, ref: null },
    environment: {
      executor: executor.name,
      timeLimitSecs: config.limits.time,
      gpuModel: opts.gpuModel ?? executor.facts.gpuModel,
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    },
    startedAt,
    finishedAt: new Date().toISOString(),
    ...(opts.shard ? { shard: opts.shard } : {}),
    runs: runs.map((r) => results.get(r.runId)).filter((r): r is RunResult => r !== undefined),
  };
  // Written before anything else (compare, comment, upload) uses it.
  return writeResults(join(outDir, "results.json"), suite);
}
