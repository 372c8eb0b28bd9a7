import { stageBuildContext } from "../execute/build-context.js";
import { basename, dirname, join, resolve } from "node:path";
import { type Config } from "../config/schema.js";
import { envBytes, MAX_ENV_BYTES, type AgentConfig } from "../config/parts.js";
import { configDeprecations, runPolicy } from "../config/run-policy.js";
import { loadRegistry, defaultRegistryDir, type Registry } from "../registry/registry.js";
import { plan as planSuite, type Plan, type PlannedRun } from "../plan/plan.js";
import { schedule } from "../execute/scheduler.js";
import { openExecutor } from "../execute/backends.js";
import type { OpenExecutor, SuiteContext } from "../execute/lifecycle.js";
import type { Outcome } from "../execute/types.js";
import { agentFacts, competitionIdentity } from "./identity-facts.js";
import { parseOnly, type Selection } from "./reuse.js";
import { preparedDir } from "../prepare/prepare.js";
import type { RunResult, SuiteResults } from "../results/schema.js";
import { RESULTS_SCHEMA_VERSION } from "../results/schema.js";
import { checkPrepared, ensurePrepared, type PreparedPaths } from "./prepare.js";
import { writeResults } from "./store.js";
import { heartbeatLine, lastLineOf, statusLine, type Running } from "./heartbeat.js";
import { readTail } from "../execute/run-log.js";
import {
  neverRanLine,
  progressLine,
  startLine,
  summaryLine,
  type Counter,
  type RunEvent,
} from "./progress.js";
import { runOne, type RunContext } from "./run-one.js";
import { suiteInstructions } from "../mlebench/instructions.js";
import { UserError } from "../errors.js";
import { lockResultsDir } from "./lock.js";
import { removeTempFiles, reserveSpace, RESERVE_FILE } from "./disk.js";
import { isStorageFault, storageSentence } from "../util/atomic.js";
import { existsSync, rmSync } from "node:fs";
import { VERSION } from "../version.js";
import { expandMlebenchAgent } from "../mlebench/agent-folder.js";
import { loadRunKey, RUN_SEAL } from "./seal.js";
import { SetupFailure } from "../execute/setup-failure.js";

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
  /** A stand-in that opens an executor itself (tests); default: the registered backend config.executor names. */
  backend?: { readonly name: string; open(ctx: SuiteContext): Promise<OpenExecutor> };
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
  /** Called instead of log for a finished run's line, with the run's folder (the action groups its log). */
  runDone?: (line: string, runDir: string) => void;
  /** A terminal's live status line: when set, the heartbeat goes here as one line instead of to log. */
  status?: (line: string) => void;
  /** Width of the status line (the terminal's columns). */
  statusWidth?: number;
  /** Wait before the first retry of an infrastructure error (doubled each time). Default 2000. */
  retryDelayMs?: number;
  /** Which runs execute again: --fresh, --rerun OUTCOMES, --only RUNS (checked against the plan). */
  selection?: { fresh?: boolean; rerun?: Outcome[]; only?: string | null };
  /** A runner-persistent folder of finished runs keyed by identity (outside the checkout). */
  storeDir?: string | null;
  /** The external grader's working folder; default: this process's. */
  graderDir?: string;
  /**
   * Why run records found in outDir are never reused (e.g. it lies in a pull request's checkout);
   * null or absent: they are reused when sealed by this runner's key (suite/seal.ts).
   */
  untrustedRecords?: string | null;
  /** The key run records are sealed with; default: loadRunKey() (MEDALIST_RUN_KEY, the key file). */
  runKey?: Buffer;
  /** Folders that are never the agent's code (the whole results folder of both sides). */
  notAgentFiles?: string[];
  /** Told of every finished run (src/compare/monitor.ts); true: start no new run (see stopInFlight). */
  onRunFinished?: (r: RunResult) => boolean;
  /** Once onRunFinished returned true, stop the runs in flight too (no result) instead of letting them finish. */
  stopInFlight?: boolean;
  /** Told of each run in flight that stopInFlight stopped. */
  onRunStopped?: (run: PlannedRun) => void;
  /** The scheduler's sort key, largest first (default: the expected duration, longest first). */
  priority?: (run: PlannedRun) => number;
  /** Whether a run starts when its turn comes, waits, or never starts (history-informed reserves). */
  admit?: (run: PlannedRun) => "start" | "wait" | "skip";
}

/** Configs whose deprecation lines were shown: once per config, not once per side. */
const warned = new WeakSet<Config>();

export function describeAgent(agent: AgentConfig): string {
  if (agent.mlebench) return `MLE-bench agent ${agent.mlebench.id} (${agent.mlebench.agentsDir})`;
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
  // The OS refuses to start a process with a huge environment ("spawn E2BIG"): say so up front.
  if (envBytes(out) > MAX_ENV_BYTES)
    throw new UserError(
      `agent.secrets: the agent's environment with its secrets is larger than ${MAX_ENV_BYTES} bytes`,
    );
  return out;
}

/** The run key is never one of the agent's values (a secret named after the variable that holds it). */
function checkKeyNotPassed(env: Record<string, string>, key: Buffer): void {
  const name = Object.keys(env).find((k) => env[k] === key.toString("utf8"));
  if (name)
    throw new UserError(
      `agent: ${name} holds the run key that seals this runner's run records; it is never passed to the agent`,
    );
}

/**
 * Runs every (competition, seed) of the suite (or of one shard), grades each submission outside
 * the agent's sandbox, and writes results.json. A run whose run.json exists for the same suite
 * and agent is reused, so an interrupted suite resumes where it stopped.
 */
export async function runSuite(opts: SuiteOptions): Promise<SuiteResults> {
  // One suite per results folder at a time: a second one would delete this one's run folders.
  const release = await lockResultsDir(resolve(opts.outDir), { log: opts.log });
  const disposers: (() => void)[] = [];
  try {
    return await runSuiteLocked(opts, disposers);
  } finally {
    for (const d of disposers) d();
    // A suite stopped by an error before its end leaves no reserve behind (unless the disk became read-only).
    quietRm(join(resolve(opts.outDir), RESERVE_FILE));
    release();
  }
}

async function runSuiteLocked(opts: SuiteOptions, disposers: (() => void)[]): Promise<SuiteResults> {
  const pre = await preflight(opts, disposers);
  const opened = await openSuite(opts, pre);
  if ("runs" in opened) return opened;
  const ran = await scheduleRuns(opts, pre, opened);
  return recordSuite(opts, pre, opened, ran);
}

type Opened = Exclude<Awaited<ReturnType<typeof openSuite>>, SuiteResults>;
type Scheduled = Awaited<ReturnType<typeof scheduleRuns>>;

/** What every phase of a suite run reads: the agent, the plan's runs, the folders, the suite's ids. */
type Prepared = Awaited<ReturnType<typeof preflight>>;

/**
 * Preflight: the agent, the runs of this shard, the checks that need no executor (external
 * grader, build context, prepared data), the results folder's reserve, and the data prepared.
 */
async function preflight(opts: SuiteOptions, disposers: (() => void)[]) {
  const { config } = opts;
  const log = opts.log ?? (() => {});
  // An MLE-bench agent folder becomes the image build and command every executor reads.
  const { agent, notes: agentNotes } = expandMlebenchAgent(opts.agent ?? config.agent, opts.baseDir);
  const registry =
    opts.registry ??
    loadRegistry(config.registryDir ? resolve(opts.baseDir, config.registryDir) : defaultRegistryDir());
  const thePlan = opts.plan ?? planSuite(config, registry);
  const only = opts.shard ? new Set(opts.shard.runIds) : null;
  const runs = only ? thePlan.runs.filter((r) => only.has(r.runId)) : thePlan.runs;
  const competitions = [...new Set(runs.map((r) => r.competitionId))];
  const dataDir = resolve(opts.baseDir, config.dataDir);
  // The results folder (locked by runSuite).
  const outDir = resolve(opts.outDir);
  const env = agentEnv(agent);
  // The key exists before any agent starts (the local sandbox covers its folder only if it exists).
  const runKey = opts.runKey ?? loadRunKey().key;
  checkKeyNotPassed(env, runKey);
  // One id per suite invocation: container names and labels, so a cancel removes exactly these.
  const suiteId = `${opts.label}-${thePlan.suiteHash.slice(0, 8)}-${Date.now().toString(36)}`;
  const agentText = describeAgent(agent);
  const startedAt = new Date().toISOString();
  if (!warned.has(config)) for (const line of configDeprecations(config)) log(line);
  warned.add(config);
  for (const line of agentNotes) log(line);

  const external = competitions.filter((id) => registry.get(id)!.competition.grading === "external");
  if (external.length > 0 && !config.externalGrader) {
    throw new UserError(
      `externalGrader: ${external.join(", ")} ${external.length === 1 ? "is" : "are"} not graded natively; ` +
        `set externalGrader (e.g. ["mlebench", "grade-sample", "{submission}", "{competition}"]) or exclude ${external.length === 1 ? "it" : "them"}`,
    );
  }

  // Whatever executor builds the agent's image, its build context never holds answers or credentials:
  // checked on real paths and built from a private copy (no link followed, nothing swapped later).
  const built = stageBuildContext({ agent, baseDir: opts.baseDir, dataDir, outDir, storeDir: opts.storeDir });
  if (built.staged) disposers.push(built.staged.dispose);
  if (built.note) log(built.note);

  // Data not prepared and not downloadable: one sentence with the command, before anything is made.
  checkPrepared(
    competitions.map((id) => registry.get(id)!),
    dataDir,
    config.competitions,
  );

  // Temporary files of writes a killed process left (the lock says no other process writes here).
  try {
    removeTempFiles(outDir);
  } catch (e) {
    if (!isStorageFault(e)) throw e; // said below, where the reserve cannot be made either
  }
  // Space kept back so that results.json can still be written when the agent fills the disk.
  let freeReserve: () => void;
  try {
    freeReserve = reserveSpace(outDir);
  } catch (e) {
    if (isStorageFault(e))
      throw new UserError(`${storageSentence("the results folder", outDir, e)}: no run started`, 1);
    throw e;
  }

  const prepared = new Map<string, PreparedPaths>();
  for (const id of competitions) prepared.set(id, await ensurePrepared(registry.get(id)!, dataDir, log));
  return {
    config,
    log,
    agent,
    registry,
    thePlan,
    runs,
    competitions,
    dataDir,
    outDir,
    env,
    runKey,
    suiteId,
    agentText,
    startedAt,
    built,
    freeReserve,
    prepared,
  };
}

/**
 * Open: the executor (daemon, image build, GPUs, validation endpoint), then each run's identity and
 * the suite's instructions. A setup failure gives the suite's results at once (every run not run).
 */
async function openSuite(opts: SuiteOptions, pre: Prepared) {
  const { config, log, agent, registry, thePlan, runs, competitions, dataDir, outDir, built, freeReserve } =
    pre;
  const { suiteId } = pre;
  // Checks and data first; the executor (daemon, image build, GPUs, validation endpoint) last.
  const suiteCtx: SuiteContext = {
    config,
    agent: built.agent,
    baseDir: opts.baseDir,
    suiteId,
    label: opts.label,
    outDir,
    log,
  };
  if (opts.signal) suiteCtx.signal = opts.signal;
  let executor;
  try {
    executor = opts.backend
      ? await opts.backend.open(suiteCtx)
      : await openExecutor(config.executor, suiteCtx);
  } catch (e) {
    if (!(e instanceof SetupFailure)) throw e;
    freeReserve();
    return setupFailed(e, {
      opts,
      runs,
      plan: thePlan,
      agentText: pre.agentText,
      startedAt: pre.startedAt,
      outDir,
    });
  }

  // Each run's identity: a finished run is reused only while it matches.
  const selection: Selection = {
    fresh: opts.selection?.fresh ?? false,
    rerun: opts.selection?.rerun ?? [],
    only: opts.selection?.only ? parseOnly(opts.selection.only, thePlan.competitions, thePlan.seeds) : null,
  };
  let identities;
  let upstreamText: string | null = null;
  try {
    upstreamText =
      (await suiteInstructions({ config, agent, baseDir: opts.baseDir, executor, log }))?.text ?? null;
    const facts = agentFacts({
      agent,
      config,
      baseDir: opts.baseDir,
      executor: executor.name,
      imageId: executor.facts.imageId ?? null,
      stagedContext: built.staged?.dir ?? null,
      exclude: [outDir, dataDir, ...(opts.notAgentFiles ?? []).map((d) => resolve(d))],
    });
    identities = new Map(
      competitions.map((id) => [
        id,
        competitionIdentity(facts, registry.get(id)!.competition, preparedDir(dataDir, id), config),
      ]),
    );
  } catch (e) {
    await executor.close();
    throw e;
  }
  return { executor, selection, identities, upstreamText };
}

/** Each run's events counted and worded: the progress lines, the runs in flight, stopped and left out. */
function runTally(opts: SuiteOptions, pre: Prepared) {
  const { log, runs, outDir } = pre;
  const counter: Counter = { done: 0, total: runs.length, executed: 0, reused: 0, skipped: 0 };
  /** Runs in flight and when each started, for the heartbeat. */
  const running = new Map<string, number>();
  // Per-run progress: every line about a run comes from here.
  /** Runs left out (--only) and runs stopped by a cancellation: neither has a result. */
  const leftOut = new Set<string>();
  const cancelled = new Set<string>();
  // Aborted when the monitor has its verdict and stopInFlight: the runs in flight stop too.
  const stopRuns = new AbortController();
  /** A run's stop came from the verdict, not from a cancellation of the suite. */
  const verdictStop = () => stopRuns.signal.aborted && !opts.signal?.aborted;
  /** Runs that started and were stopped at the verdict (the "stopped" event). */
  const halted = new Set<string>();
  const emit = (raw: RunEvent) => {
    const e: RunEvent =
      raw.kind === "cancelled" && verdictStop() ? { kind: "stopped", runId: raw.runId } : raw;
    if (e.kind === "stopped") {
      halted.add(e.runId);
      counter.stopped = halted.size;
      running.delete(e.runId);
    }
    if (e.kind === "started") running.set(e.runId, Date.now());
    if (e.kind === "finished") counter.executed!++;
    if (e.kind === "kept") counter.reused!++;
    if (e.kind === "skipped") {
      counter.skipped!++;
      leftOut.add(e.runId);
    }
    if (e.kind === "cancelled") {
      cancelled.add(e.runId);
      running.delete(e.runId);
    }
    if (e.kind === "kept" || e.kind === "finished" || e.kind === "skipped") {
      counter.done++;
      running.delete(e.runId);
    }
    const line = progressLine(opts.label, counter, e);
    if (e.kind === "finished" && opts.runDone) opts.runDone(line, join(outDir, "runs", e.runId));
    else log(line);
  };
  return { counter, running, leftOut, cancelled, stopRuns, halted, emit };
}

/** Schedule: every run handed to the executor as resources allow, with progress and the heartbeat. */
async function scheduleRuns(opts: SuiteOptions, pre: Prepared, opened: Opened) {
  const { config, log, agent, registry, thePlan, runs, competitions, outDir } = pre;
  const { agentText, prepared, suiteId, runKey, env } = pre;
  const { executor, selection, identities, upstreamText } = opened;
  log(startLine(opts.label, runs.length, competitions.length, thePlan.seeds, agentText));
  const { counter, running, leftOut, cancelled, stopRuns, halted, emit } = runTally(opts, pre);
  const ctx: RunContext = {
    config,
    agent,
    agentText,
    registry,
    prepared,
    executor,
    suiteId,
    suiteHash: thePlan.suiteHash,
    identities,
    instructionsText: upstreamText,
    selection,
    storeDir: opts.storeDir ? resolve(opts.storeDir) : null,
    graderDir: opts.graderDir,
    runKey,
    untrustedRecords: opts.untrustedRecords ?? null,
    log,
    outDir,
    env,
    retry: { retries: runPolicy(config).retries, delayMs: opts.retryDelayMs ?? 2000 },
    signal: opts.stopInFlight
      ? opts.signal
        ? AbortSignal.any([opts.signal, stopRuns.signal])
        : stopRuns.signal
      : opts.signal,
    emit,
    record: (r) => results.set(r.runId, r),
    storeFault: { sentence: null },
  };
  const results = new Map<string, RunResult>();
  // Aborted when the monitor has its verdict: the scheduler hands out no further run.
  const stopStarts = new AbortController();
  const one = async (run: PlannedRun, gpus: string[]) => {
    try {
      const r = await runOne(ctx, run, gpus);
      if (r) results.set(run.runId, r);
      if (r && opts.onRunFinished?.(r)) {
        stopStarts.abort();
        if (opts.stopInFlight) stopRuns.abort();
      }
      if (halted.has(run.runId)) opts.onRunStopped?.(run);
    } finally {
      running.delete(run.runId);
    }
  };

  const beatSecs = opts.heartbeatSecs ?? 60;
  const limitSecs = config.limits.time;
  const beat = () => {
    if (running.size === 0) return;
    const now = Date.now();
    const list: Running[] = [...running].map(([runId, startedAt]) => ({
      runId,
      startedAt,
      limitSecs,
      lastLine: lastLineOf(readTail(join(outDir, "runs", runId, "run.log"), 4096)),
    }));
    if (opts.status) opts.status(statusLine(opts.label, counter, list, now, opts.statusWidth));
    else for (const r of list) log(heartbeatLine(opts.label, counter, r, now));
  };
  const heartbeat = beatSecs > 0 ? setInterval(beat, beatSecs * 1000) : undefined;
  heartbeat?.unref();
  let diskFull: string | null = null;
  try {
    const key = opts.priority ?? ((r: PlannedRun) => r.expectedSecs);
    await schedule(
      runs.map((r) => ({
        ...r,
        id: r.runId,
        expectedSecs: key(r),
        gpus: executor.perRun.gpus,
        cpus: executor.perRun.cpus,
      })),
      executor.resources,
      one,
      opts.signal ? AbortSignal.any([opts.signal, stopStarts.signal]) : stopStarts.signal,
      opts.admit,
    );
  } catch (e) {
    // A full or read-only disk ends the suite cleanly: finished runs kept, the rest marked not run.
    if (!isStorageFault(e)) throw e;
    // Said as it was when the write failed (before the reserve is freed below).
    diskFull = storageSentence("the results folder", outDir, e);
  } finally {
    clearInterval(heartbeat);
    await executor.close();
  }
  return { results, leftOut, cancelled, counter, diskFull };
}

/**
 * Record: the suite's results (runs without a result recorded as cancelled or not run) written
 * before anything else uses them; a full disk ends here with one sentence.
 */
function recordSuite(opts: SuiteOptions, pre: Prepared, opened: Opened, ran: Scheduled): SuiteResults {
  const { config, log, agent, thePlan, runs, outDir, agentText, startedAt, freeReserve } = pre;
  const { executor } = opened;
  const { results, leftOut, cancelled, counter, diskFull } = ran;
  // Cancelled: every run without a result is recorded as not run, so the report and the viewer
  // of what finished say plainly what is missing (the next run executes them again).
  const stopped = opts.signal?.aborted
    ? runs.filter((r) => !results.has(r.runId) && !leftOut.has(r.runId))
    : [];
  counter.cancelled = cancelled.size;
  counter.notStarted = stopped.length - cancelled.size;
  log(summaryLine(opts.label, counter));
  const silent = neverRanLine(
    opts.label,
    [...results.values()].filter((r) => !r.reused),
  );
  if (silent) log(silent);
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
      ...(executor.facts.runtime ? { runtime: executor.facts.runtime } : {}),
      ...(executor.facts.unsandboxed ? { unsandboxed: executor.facts.unsandboxed } : {}),
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    },
    startedAt,
    finishedAt: new Date().toISOString(),
    ...(opts.shard ? { shard: opts.shard } : {}),
    runs: runs
      .map(
        (r) =>
          results.get(r.runId) ??
          (stopped.includes(r) ? cancelledResult(r, cancelled.has(r.runId)) : undefined),
      )
      .filter((r): r is RunResult => r !== undefined),
  };
  if (diskFull) {
    quietRm(join(outDir, RESERVE_FILE));
    const what = diskFull;
    const listed = new Set(suite.runs.map((r) => r.runId));
    const notRun = runs
      .filter((r) => !listed.has(r.runId))
      .map((r): RunResult => notRunResult(r, join("runs", r.runId), what));
    suite.runs = [...suite.runs, ...notRun];
    let removed = 0;
    try {
      removed = removeTempFiles(outDir);
    } catch (e) {
      if (!isStorageFault(e)) throw e;
    }
    const file = join(outDir, "results.json");
    let written = `results written to ${file}`;
    try {
      writeResults(file, suite);
    } catch (e) {
      if (!isStorageFault(e)) throw e;
      written = `${file} could not be written (${(e as NodeJS.ErrnoException).code}); the finished runs' sealed run.json records are reused when the suite resumes`;
    }
    // A run whose record could not be written is in results.json, but runs again when the suite resumes.
    const unsealed = [...results.values()].filter(
      (r) => !r.reused && !existsSync(join(outDir, "runs", r.runId, RUN_SEAL)),
    ).length;
    throw new UserError(
      `${what}: the suite stopped; ${results.size} finished run(s) kept` +
        `${unsealed ? ` (${unsealed} without a sealed record: run again on resume)` : ""}, ${notRun.length} not run; ` +
        `${written}${removed ? `; ${removed} temporary file(s) removed` : ""}`,
      1,
    );
  }
  freeReserve();
  // Written before anything else (compare, comment, upload) uses it.
  return writeResults(join(outDir, "results.json"), suite);
}

/** Removes a file; a read-only disk keeps it (nothing else can be done there). */
function quietRm(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch (e) {
    if (!isStorageFault(e)) throw e;
  }
}

/** A run the cancellation stopped or kept from starting: not run, marked cancelled. */
function cancelledResult(run: PlannedRun, started: boolean): RunResult {
  const r = notRunResult(
    run,
    join("runs", run.runId),
    started ? "cancelled before it finished" : "cancelled before it started",
  );
  return { ...r, details: { ...r.details, cancelled: started ? "started" : "not started" } };
}

/** A run the suite never started (it stopped first): not comparable, never the agent's failure. */
function notRunResult(run: PlannedRun, runDir: string, reason: string): RunResult {
  return {
    runId: run.runId,
    competitionId: run.competitionId,
    seed: run.seed,
    outcome: "infra_error",
    exitCode: null,
    startedAt: new Date().toISOString(),
    durationMs: 0,
    attempts: 0,
    runDir,
    error: `not run: ${reason}`,
    grade: null,
    usage: null,
    gpus: [],
    details: { notRun: "true" },
  };
}

/**
 * The suite's setup failed (execute/setup-failure.ts): every run is recorded as not run for that
 * one cause, never as the agent's failure, and the results say where the build log is (relative to
 * the results folder) for the viewer. The gate fails closed on runs that never ran.
 */
function setupFailed(
  e: SetupFailure,
  s: {
    opts: SuiteOptions;
    runs: PlannedRun[];
    plan: Plan;
    agentText: string;
    startedAt: string;
    outDir: string;
  },
): SuiteResults {
  const { opts, outDir } = s;
  const buildLog = e.buildLog && dirname(resolve(e.buildLog)) === outDir ? basename(e.buildLog) : null;
  const reason = `setup failed: ${e.line}`;
  const suite: SuiteResults = {
    schemaVersion: RESULTS_SCHEMA_VERSION,
    medalistVersion: VERSION,
    label: opts.label,
    suite: {
      name: opts.config.name,
      hash: s.plan.suiteHash,
      competitions: s.plan.competitions,
      seeds: s.plan.seeds,
    },
    agent: { description: s.agentText, image: null, imageDigest: null },
    git: opts.git ?? { sha: null, ref: null },
    environment: {
      executor: opts.config.executor,
      timeLimitSecs: opts.config.limits.time,
      gpuModel: opts.gpuModel ?? null,
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    },
    startedAt: s.startedAt,
    finishedAt: new Date().toISOString(),
    ...(opts.shard ? { shard: opts.shard } : {}),
    runs: s.runs.map((r) => {
      const run = notRunResult(r, join("runs", r.runId), reason);
      return { ...run, details: { ...run.details, setup: "failed", ...(buildLog ? { buildLog } : {}) } };
    }),
  };
  return writeResults(join(outDir, "results.json"), suite);
}
