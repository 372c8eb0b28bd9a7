import { join, resolve } from "node:path";
import { compareRuns, summarize, type Comparison } from "../compare/compare.js";
import { monitorHooks, SuiteMonitor } from "../compare/monitor.js";
import { stagedComparison } from "./stages.js";
import { adaptive } from "./rules.js";
import { historyInformed } from "./informed.js";
import { runPaired } from "./paired.js";
import { Cancelled, type EvaluateInput, type Git } from "./input.js";
import type { AgentConfig } from "../config/parts.js";
import { renderResults } from "../report/markdown.js";
import type { SuiteResults } from "../results/schema.js";
import { runSuite, type SuiteOptions } from "../suite/run.js";
import { toJson, writeResults } from "../suite/store.js";
import { writeAtomic } from "../util/atomic.js";
import { trend, type TrendPoint } from "../history/history.js";
import { writeSuiteViewer } from "./viewer.js";
import { decideGate, type GateDecision } from "../report/gate.js";
import { renderEvaluation, type RenderOptions } from "../report/evaluation.js";

export interface Evaluation {
  base: SuiteResults | null;
  head: SuiteResults;
  comparison: Comparison | null;
  baselineNote: string | null;
  /** Head's medal rate, counted as the comparison counts it (no infra or grader errors). */
  medalRate: number | null;
  paths: {
    head: string;
    base: string | null;
    report: string;
    comparison: string | null;
    /** The viewer's folder (index.html inside); null when it could not be written. */
    viewer: string | null;
  };
  /** Why the viewer is missing, when it is. */
  viewerProblem: string | null;
  /** The default-branch trend with this head last; empty without a history. */
  trend: TrendPoint[];
  /** Whether the gate fails, and the sentence that says why. */
  gate: GateDecision;
  /** The report from the results documents alone (never from the config). */
  render(opts?: RenderOptions): string;
}

type Sides = {
  base: SuiteResults | null;
  head: SuiteResults;
  description: string;
  /** Set when the head was monitored after every run (the monitor's comparison). */
  comparison?: Comparison;
};
type RunSide = (
  label: "base" | "head",
  configDir: string,
  agent: AgentConfig,
  git?: Git,
  hooks?: Pick<SuiteOptions, "onRunFinished" | "priority" | "admit" | "stopInFlight" | "onRunStopped">,
  /** Only these runs (the paired rounds of `baseline: run`, session/paired.ts). */
  runIds?: string[],
) => Promise<SuiteResults>;

/** One side's suite run, as evaluate() runs it (hooks: the head's monitoring). */
function sideRunner(input: EvaluateInput): RunSide {
  const { session } = input;
  const run = input.runSuite ?? runSuite;
  const dir = resolve(input.resultsDir);
  return (label, configDir, agent, git, hooks, runIds) =>
    run({
      ...hooks,
      config: session.config,
      baseDir: configDir,
      outDir: join(dir, label),
      label,
      agent,
      registry: session.registry,
      plan: session.plan,
      shard: runIds ? { index: 1, count: 1, runIds } : input.shard,
      git,
      log: input.log ?? (() => {}),
      signal: input.signal,
      selection: input.selection,
      storeDir: input.storeDir,
      graderDir: session.graderDir,
      untrustedRecords: input.untrustedRecords ?? null,
      // Neither side's results are the agent's code (base/ is written before head/ is hashed).
      notAgentFiles: [dir, ...(input.storeDir ? [input.storeDir] : [])],
      ...input.progress,
    });
}

/** Both sides' results: the baseline (given, or run first), then the head (given, or run). */
export async function runSides(input: EvaluateInput): Promise<Sides> {
  const { session, baseline } = input;
  const log = input.log ?? (() => {});
  const side = sideRunner(input);
  const { config } = session;
  const monitored = input.monitor !== false && adaptive(config);
  if (baseline.kind === "run" && monitored && !input.head && !input.shard) {
    // The base runs seed by seed with the head and stops when the head's verdict is reached.
    if (input.history && config.historyPlan)
      log("[head] history-informed plan not used: the base runs in this job, paired with the head");
    return runPaired(input, baseline, side, log);
  }
  let base: SuiteResults | null = null;
  let description = "none";
  if (baseline.kind === "results") {
    base = baseline.results;
    description = baseline.description;
  } else if (baseline.kind === "run") {
    const checkout = baseline.checkout ? await baseline.checkout(log) : null;
    try {
      base = await side("base", checkout?.baseDir ?? session.baseDir, baseline.agent, baseline.git);
    } finally {
      checkout?.dispose();
    }
    description = baseline.description;
  }
  if (input.signal?.aborted) throw new Cancelled({ base, head: input.head ?? null, description });
  if (base && !input.head && !input.shard && monitored) {
    // Monitoring after every finished head run; no new run starts once the verdict is reached.
    const informed = input.history ? historyInformed(base, input.history, config, session.plan) : null;
    if (informed && "why" in informed) log(`[head] history-informed plan not used: ${informed.why}`);
    const use = informed && "use" in informed ? informed.use : null;
    if (use)
      log(
        `[head] history-informed plan: ${use.plan.headRuns} of ${use.plan.fixedRuns} head runs planned from ${use.check.historyRuns} earlier runs of the base's identity (each counted once) that agree with its current runs (drift check p = ${use.check.overallP.toPrecision(2)}); the comparison uses the base's current runs`,
      );
    const monitor = new SuiteMonitor(base, session.plan.runs, config.gate, undefined, description, use);
    const head = await side(
      "head",
      session.baseDir,
      config.agent,
      input.headGit,
      monitorHooks(monitor, config.seeds, log, config.stopInFlight),
    );
    if (input.signal?.aborted) throw new Cancelled({ base, head, description });
    const check = informed && "check" in informed ? informed.check : use?.check;
    const comparison = monitor.comparison(head);
    return {
      base,
      head,
      description,
      comparison: check ? { ...comparison, historyCheck: check } : comparison,
    };
  }
  const head = input.head ?? (await side("head", session.baseDir, config.agent, input.headGit));
  if (input.signal?.aborted) throw new Cancelled({ base, head, description });
  if (base && input.head && input.stages && monitored) {
    const { byStage, planned } = input.stages;
    const comparison = stagedComparison(base, head, byStage, planned, config, session.plan, description);
    return { base, head, description, comparison };
  }
  return { base, head, description };
}

/**
 * The one evaluation both front doors call: the baseline (given, or run first), then the head,
 * then the comparison, the gate's decision and the report. Everything lands on disk (results,
 * comparison.json, the viewer, report.md) before this returns; uploads and comments are the
 * door's report targets' (src/action/targets/).
 */
export async function evaluate(input: EvaluateInput): Promise<Evaluation> {
  let sides: Sides;
  try {
    sides = await runSides(input);
  } catch (e) {
    // Cancelled: the report and the viewer of what finished are still written, then it ends.
    if (e instanceof Cancelled && e.partial) e.written = writeCancelled(input, e.partial);
    throw e;
  }
  return conclude(input, sides);
}

const CANCELLED_NOTICE =
  "> ⚠️ **Cancelled**: the suite was stopped before it finished. This report shows the runs that finished; " +
  "the next run reuses them and executes the rest.";

/** The report and viewer of a cancelled evaluation; the head may not have started at all. */
function writeCancelled(
  input: EvaluateInput,
  partial: NonNullable<Cancelled["partial"]>,
): Cancelled["written"] {
  const notices = [CANCELLED_NOTICE, ...(input.notices ?? [])];
  try {
    if (partial.head) {
      const ev = conclude({ ...input, notices }, { ...partial, head: partial.head });
      return { report: ev.paths.report, viewer: ev.paths.viewer };
    }
    if (!partial.base) return null;
    // Stopped while the baseline ran: the base's finished runs alone (the head never started).
    const dir = resolve(input.resultsDir);
    const viewer = join(dir, "viewer");
    let wrote: string | null = viewer;
    try {
      writeSuiteViewer({
        head: partial.base,
        headDir: join(dir, "base"),
        out: viewer,
        registry: input.session.registry,
      });
    } catch (e) {
      input.log?.(`medalist: viewer not written: ${(e as Error).message}`);
      wrote = null;
    }
    const report = join(dir, "report.md");
    const text =
      `${notices.join("\n\n")}\n\nThe head did not run: the suite was cancelled while the baseline ran. ` +
      `The baseline's runs so far:\n\n${renderResults(partial.base)}`;
    writeAtomic(report, text);
    return { report, viewer: wrote };
  } catch (e) {
    input.log?.(`medalist: the report of the finished runs was not written: ${(e as Error).message}`);
    return null;
  }
}

/** The comparison, the gate's decision, comparison.json, the viewer and report.md of both sides. */
function conclude(input: EvaluateInput, sides: Sides): Evaluation {
  const { session, baseline } = input;
  const dir = resolve(input.resultsDir);
  const log = input.log ?? (() => {});
  const { base, head, description } = sides;
  const comparison =
    sides.comparison ?? (base ? compareRuns(base, head, session.config.gate, description) : null);
  const paths = {
    head: join(dir, "head", "results.json"),
    base: baseline.kind === "run" ? join(dir, "base", "results.json") : null,
    report: join(dir, "report.md"),
    comparison: comparison ? join(dir, "comparison.json") : null,
    viewer: join(dir, "viewer") as string | null,
  };
  if (input.head) writeResults(paths.head, input.head);
  if (comparison) writeAtomic(paths.comparison!, toJson(comparison));
  const baselineNote = baseline.kind === "none" ? (baseline.note ?? null) : null;
  const points = input.history ? trend(input.history, head) : [];
  // The viewer beside report.md; results are already on disk, so a failure here only loses the viewer.
  let viewerProblem: string | null = null;
  try {
    writeSuiteViewer({
      head,
      headDir: join(dir, "head"),
      base,
      // A baseline from a file or the cache has no run folders here: its pages show results only.
      baseDir: paths.base ? join(dir, "base") : join(dir, "base-not-here"),
      out: paths.viewer!,
      registry: session.registry,
      history: points,
      comparison,
    });
  } catch (e) {
    viewerProblem = `viewer not written: ${(e as Error).message}`;
    paths.viewer = null;
    log(`medalist: ${viewerProblem}`);
  }
  const render = (opts?: RenderOptions) =>
    renderEvaluation(
      head,
      comparison,
      baselineNote,
      { notices: input.notices, ...opts, gate: session.config.gate, trend: points },
      base,
    );
  writeAtomic(paths.report, render({ viewerUrl: paths.viewer ? "viewer/index.html" : undefined }));
  return {
    base,
    head,
    comparison,
    baselineNote,
    medalRate: summarize(head).medalRate,
    paths,
    viewerProblem,
    trend: points,
    gate: decideGate(comparison, session.config.gate, { head, base }),
    render,
  };
}
