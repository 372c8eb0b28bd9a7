import { GATE_DEFAULTS, type Gate } from "../config/schema.js";
import { UserError } from "../errors.js";
import type { GradeReportJson, RunResult, SuiteResults } from "../results/schema.js";
import { medalOf, type Medal } from "../grade/types.js";
import { usableAmount } from "../results/usage.js";
import { hypergeometric } from "../stats/distributions.js";
import type { DriftCheck } from "../stats/drift.js";
import { coveredIds, coveredTolerances, type InformedPlan } from "../plan/informed.js";
import {
  analyze,
  type Analysis,
  type AnalyzeOptions,
  type CompetitionSample,
  type Levels,
  type Verdict,
} from "../stats/stats.js";

/** One run as the report shows it. */
export interface RunCell {
  seed: number;
  outcome: RunResult["outcome"];
  medal: Medal;
  /** Rounded score; NaN possible; null when missing or invalid. */
  score: number | null;
  valid: boolean;
  percentile: number | null;
  error: string | null;
  runDir: string;
  /** False for infrastructure errors and grader failures: they count on neither side. */
  comparable?: boolean;
  /** The run's wall time (cellOf sets it). */
  durationMs?: number;
  /** Its self-reported cost when usable (logs/usage.json), else null (cellOf sets it). */
  dollars?: number | null;
}

export interface SideSummary {
  label: string;
  agent: string;
  runs: number;
  /** Runs that count (not infrastructure errors). */
  comparable: number;
  medals: number;
  gold: number;
  silver: number;
  bronze: number;
  /** Medals ÷ comparable runs; null when nothing is comparable. */
  medalRate: number | null;
  validRate: number | null;
  aboveMedianRate: number | null;
  meanPercentile: number | null;
  infraErrors: number;
  /** Runs kept from an earlier invocation with the same identity instead of executed. */
  reused?: number;
  durationMs: number;
  /** Runs whose time is not recorded (imported from MLE-bench): `durationMs` is then not their time. */
  untimed?: number;
  /** Sum of the usable self-reported costs (logs/usage.json); null when no run reported one. */
  dollars: number | null;
  /** Runs whose self-reported cost counts in `dollars`. */
  dollarsRuns: number;
  /** Runs that reported a cost that is not usable (see usableAmount): left out of `dollars`. */
  dollarsIgnored: number;
}

export interface CompetitionRow {
  competitionId: string;
  isLowerBetter: boolean | null;
  base: RunCell[];
  head: RunCell[];
  baseMedalRate: number | null;
  headMedalRate: number | null;
  baseMeanScore: number | null;
  headMeanScore: number | null;
  /** head − base of the mean scores (sign as the metric's). */
  deltaScore: number | null;
  headMeanPercentile: number | null;
  basePercentile: number | null;
  /** False when one side has no comparable run of this competition. */
  comparable: boolean;
  /** Covered by a bound from the history instead of head runs (plan/informed.ts). */
  covered?: true;
}

/** A competition left out of the paired analysis, and why. */
export interface Dropped {
  competitionId: string;
  /** Which side has no comparable run. */
  side: "base" | "head" | "both";
  /** Infrastructure errors (or grader failures) per side in this competition. */
  baseInfra: number;
  headInfra: number;
  /** Runs per side in this competition (0: the side never ran it). */
  baseRuns: number;
  headRuns: number;
}

/** Why the verdict is `error`: no gating verdict can honestly be given. */
export type ErrorCause =
  | { kind: "suite-mismatch"; differences: string[] }
  | { kind: "not-comparable"; count: number; total: number; limit: number }
  | { kind: "infra-errors"; base: number; baseRuns: number; head: number; headRuns: number; pValue: number }
  | { kind: "no-data" };

/** Gate settings compareRuns reads; the rest take their defaults. */
export type GateInput = Pick<Gate, "tolerance" | "alpha" | "failOn"> & Partial<Gate>;

export interface Comparison {
  suiteName: string;
  suiteHash: string;
  /** False when base and head ran different suites (competitions, seeds, limits). */
  sameSuite: boolean;
  /** What differs between the two suites (empty when the same). */
  suiteDifferences: string[];
  base: SideSummary;
  head: SideSummary;
  /** head − base medal rate over the paired competitions; null when not computable. */
  delta: number | null;
  competitions: CompetitionRow[];
  /** Competitions left out of the analysis (no comparable run on a side). */
  dropped: Dropped[];
  analysis: Analysis | null;
  verdict: Verdict;
  /** Set when the verdict is `error`. */
  errors: ErrorCause[];
  gate: Gate;
  baselineSource: string;
  /** Monitoring after every run: when and why the head stopped (src/compare/monitor.ts). */
  monitor?: MonitorRecord;
  /**
   * The base side of the medal analysis holds, besides the base's runs now, earlier runs of the
   * same identity from the default-branch history (session/informed.ts); absent when it does not.
   */
  history?: BaseHistoryUsed;
  /** The history-informed plan the head ran (plan/informed.ts); absent when it ran every seed. */
  informed?: InformedPlan;
  /** Set when the medal power and MDE were not simulated (simulations: 0). */
  powerSkipped?: true;
  /** The default-branch history checked against the base's current runs (session/informed.ts). */
  historyCheck?: HistoryCheck;
  /** `baseline: run` with monitoring: the base ran paired with the head, seed by seed (session/paired.ts). */
  paired?: PairedRecord;
}

/** How far the base ran when it was paired with the monitored head. */
export interface PairedRecord {
  /** Seeds of every competition the base ran, of the suite's seeds. */
  baseSeeds: number;
  seeds: number;
  /** Base runs that ran, and the fixed design's base runs. */
  baseRuns: number;
  plannedBaseRuns: number;
}

/** The drift check of the history-informed plan, as the report states it (stats/drift.ts). */
export interface HistoryCheck extends DriftCheck {
  /** The check's level in all (a share of α). */
  level: number;
  /** Recorded runs left out as copies of runs counted already. */
  copies: number;
  /** Default-branch suites the earlier runs come from. */
  suites: number;
  /** Whether the history planned the head (it passed the check). */
  used: boolean;
}

/** Earlier base runs of the base's current identity that the medal analysis counts on the base side. */
export interface BaseHistoryUsed {
  /** Per competition: earlier comparable runs and the medals among them (the base's runs now excluded). */
  competitions: Record<string, { runs: number; medals: number }>;
  /** Default-branch suites the earlier runs come from. */
  suites: number;
}

const num = (v: number | "NaN" | null): number | null => (v === "NaN" ? NaN : v);

/** The agent's self-reported cost over a side's runs: what counts and what was ignored. */
export function selfReportedDollars(
  runs: RunResult[],
): Pick<SideSummary, "dollars" | "dollarsRuns" | "dollarsIgnored"> {
  const usable = runs.map((r) => r.usage?.dollars).filter(usableAmount);
  const ignored = runs.filter(
    (r) =>
      r.usage?.ignored?.includes("dollars") ||
      (r.usage?.dollars !== undefined && !usableAmount(r.usage?.dollars)),
  ).length;
  return {
    dollars: usable.length ? usable.reduce((a, b) => a + b, 0) : null,
    dollarsRuns: usable.length,
    dollarsIgnored: ignored,
  };
}
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/** A run imported from MLE-bench: upstream records no run times, so its durationMs (0) is not a time. */
export const untimed = (r: Pick<RunResult, "details">): boolean => r.details.source === "mlebench";

/** Infrastructure errors and grader failures are nobody's score: they count on neither side. */
const comparable = (r: RunResult) => r.outcome !== "infra_error" && r.grade?.grader_error !== true;

export function cellOf(r: RunResult): RunCell {
  const g: GradeReportJson | null = r.grade;
  return {
    seed: r.seed,
    outcome: r.outcome,
    medal: g ? medalOf(g) : "none",
    score: g && g.valid_submission ? num(g.score) : null,
    valid: g?.valid_submission ?? false,
    percentile: g?.percentile ?? null,
    // A run that did not complete: its cause first (the missing submission follows from it).
    error: r.failure?.cause ?? g?.error ?? r.error,
    runDir: r.runDir,
    comparable: comparable(r),
    durationMs: r.durationMs,
    dollars: usableAmount(r.usage?.dollars) ? r.usage.dollars : null,
  };
}

export function summarize(s: SuiteResults): SideSummary {
  const ok = s.runs.filter(comparable);
  const grades = ok.map((r) => r.grade).filter((g): g is GradeReportJson => g !== null);
  const rate = (n: number) => (ok.length ? n / ok.length : null);
  const pct = grades.map((g) => g.percentile).filter((p): p is number => p !== null);
  return {
    label: s.label,
    agent: s.agent.description,
    runs: s.runs.length,
    comparable: ok.length,
    medals: grades.filter((g) => g.any_medal).length,
    gold: grades.filter((g) => g.gold_medal).length,
    silver: grades.filter((g) => g.silver_medal).length,
    bronze: grades.filter((g) => g.bronze_medal).length,
    medalRate: rate(grades.filter((g) => g.any_medal).length),
    validRate: rate(grades.filter((g) => g.valid_submission).length),
    aboveMedianRate: rate(grades.filter((g) => g.above_median).length),
    meanPercentile: pct.length ? pct.reduce((a, b) => a + b, 0) / pct.length : null,
    infraErrors: s.runs.length - ok.length,
    reused: s.runs.filter((r) => r.reused).length,
    durationMs: s.runs.reduce((a, r) => a + r.durationMs, 0),
    untimed: s.runs.filter(untimed).length,
    ...selfReportedDollars(s.runs),
  };
}

/** Duplicate (competition, seed) runs and runs outside the suite are input errors (exit 2). */
export function checkRuns(s: SuiteResults): void {
  const inSuite = new Set(s.suite.competitions);
  const seen = new Set<string>();
  for (const r of s.runs) {
    const key = `${r.competitionId} seed ${r.seed}`;
    if (!inSuite.has(r.competitionId))
      throw new UserError(
        `${s.label} results: run ${r.runId} is of competition ${r.competitionId}, which is not in the suite's competitions`,
      );
    if (r.seed < 0 || r.seed >= s.suite.seeds)
      throw new UserError(
        `${s.label} results: run ${r.runId} has seed ${r.seed}, outside the suite's seeds 0..${s.suite.seeds - 1}`,
      );
    if (seen.has(key)) throw new UserError(`${s.label} results: two runs of ${key}`);
    seen.add(key);
  }
}

/** What makes the two suites not comparable, one line each (empty: comparable). */
export function suiteDifferences(base: SuiteResults, head: SuiteResults): string[] {
  const out: string[] = [];
  const b = new Set(base.suite.competitions);
  const h = new Set(head.suite.competitions);
  const onlyBase = [...b].filter((c) => !h.has(c));
  const onlyHead = [...h].filter((c) => !b.has(c));
  if (onlyBase.length) out.push(`competitions only in the base: ${onlyBase.join(", ")}`);
  if (onlyHead.length) out.push(`competitions only in the head: ${onlyHead.join(", ")}`);
  if (base.environment.timeLimitSecs !== head.environment.timeLimitSecs)
    out.push(`time limit: base ${base.environment.timeLimitSecs}s, head ${head.environment.timeLimitSecs}s`);
  if (base.suite.seeds !== head.suite.seeds)
    out.push(`seeds: base ${base.suite.seeds}, head ${head.suite.seeds}`);
  if (base.suite.hash !== head.suite.hash && out.length === 0)
    out.push(
      `suite hash: base ${base.suite.hash}, head ${head.suite.hash} (grading inputs, GPUs or registry entries differ)`,
    );
  else if (base.suite.hash !== head.suite.hash)
    out.push(`suite hash: base ${base.suite.hash}, head ${head.suite.hash}`);
  return out;
}

/** One-sided exact test: does the head have more infrastructure errors than the base? */
export function infraPValue(baseErr: number, baseRuns: number, headErr: number, headRuns: number): number {
  if (headErr === 0) return 1;
  const law = hypergeometric(baseRuns + headRuns, baseErr + headErr, headRuns);
  let p = 0;
  for (let i = headErr - law.min; i < law.pmf.length; i++) p += law.pmf[i];
  return Math.min(1, p);
}

/**
 * A run's percentile for the statistics: the grader's, or 0 when the agent produced nothing
 * gradeable on a competition that has a leaderboard; null (missing) when the competition has none.
 */
function percentileOf(r: RunResult, hasLeaderboard: boolean): number | null {
  if (r.grade?.percentile != null) return r.grade.percentile;
  const agentFailed = !r.grade || !r.grade.valid_submission;
  return agentFailed && hasLeaderboard ? 0 : null;
}

export interface CompareOptions {
  /** Levels of this look (adaptive seeds); default gate.alpha for both claims. */
  levels?: Levels;
  /** Level of the infra-error test (monitoring: the deciding look's); default gate.alpha. */
  infraLevel?: number;
  /** Power simulations (0 skips power and MDE, as interim looks do). */
  simulations?: AnalyzeOptions["simulations"];
  /** Earlier base runs of the same identity, counted on the base side of the medal analysis. */
  history?: BaseHistoryUsed;
  /** The history-informed plan: its covered competitions are not run and enter each claim by their bound. */
  informed?: InformedPlan;
}

/** A competition's medal outcomes on the base side: its runs now, then the history's earlier ones. */
function baseMedals(now: number[], earlier: { runs: number; medals: number } | undefined): number[] {
  if (!earlier) return now;
  const ones = Array.from({ length: earlier.medals }, () => 1);
  return [...now, ...ones, ...Array.from({ length: earlier.runs - earlier.medals }, () => 0)];
}

/**
 * Pairs base and head by competition and compares them: medal rates, per-competition rows, and
 * the paired statistics that decide the verdict. Infrastructure errors count on neither side;
 * too many of them on the head, or different suites, make the verdict `error`.
 */
export function compareRuns(
  base: SuiteResults,
  head: SuiteResults,
  gateInput: GateInput,
  baselineSource = "file",
  options: CompareOptions = {},
): Comparison {
  const gate: Gate = { ...GATE_DEFAULTS, ...gateInput };
  checkRuns(base);
  checkRuns(head);
  const differences = suiteDifferences(base, head);
  const ids = [...new Set([...head.suite.competitions, ...base.suite.competitions])].sort();
  const medals: CompetitionSample[] = [];
  const percentiles: CompetitionSample[] = [];
  const dropped: Dropped[] = [];
  const covered = coveredIds(options.informed);
  const rows: CompetitionRow[] = ids.map((id) => {
    const b = base.runs.filter((r) => r.competitionId === id).sort((x, y) => x.seed - y.seed);
    const h = head.runs.filter((r) => r.competitionId === id).sort((x, y) => x.seed - y.seed);
    const bOk = b.filter(comparable);
    const hOk = h.filter(comparable);
    const medalValues = (rs: RunResult[]) => rs.map((r) => (r.grade?.any_medal ? 1 : 0));
    const hasLeaderboard = [...bOk, ...hOk].some((r) => r.grade?.percentile != null);
    const pctValues = (rs: RunResult[]) =>
      rs.map((r) => percentileOf(r, hasLeaderboard)).filter((p): p is number => p !== null);
    const earlier = options.history?.competitions[id];
    // A covered competition is never run (the monitor never admits it): it enters by its bound only.
    const isComparable = !covered.has(id) && bOk.length + (earlier?.runs ?? 0) > 0 && hOk.length > 0;
    if (isComparable) {
      medals.push({ competitionId: id, base: baseMedals(medalValues(bOk), earlier), head: medalValues(hOk) });
      percentiles.push({ competitionId: id, base: pctValues(bOk), head: pctValues(hOk) });
    } else if (!covered.has(id)) {
      dropped.push({
        competitionId: id,
        side: bOk.length === 0 && hOk.length === 0 ? "both" : hOk.length === 0 ? "head" : "base",
        baseInfra: b.length - bOk.length,
        headInfra: h.length - hOk.length,
        baseRuns: b.length,
        headRuns: h.length,
      });
    }
    const scores = (rs: RunResult[]) =>
      rs
        .map(cellOf)
        .map((c) => c.score)
        .filter((x): x is number => x !== null && !Number.isNaN(x));
    const bs = mean(scores(bOk));
    const hs = mean(scores(hOk));
    const first = h[0]?.grade ?? b[0]?.grade;
    const pctMean = (rs: RunResult[]) => mean(pctValues(rs));
    return {
      competitionId: id,
      isLowerBetter: first ? first.is_lower_better : null,
      base: b.map(cellOf),
      head: h.map(cellOf),
      baseMedalRate: mean(medalValues(bOk)),
      headMedalRate: mean(medalValues(hOk)),
      baseMeanScore: bs,
      headMeanScore: hs,
      deltaScore: bs !== null && hs !== null ? hs - bs : null,
      headMeanPercentile: pctMean(hOk),
      basePercentile: pctMean(bOk),
      comparable: isComparable,
      ...(covered.has(id) ? { covered: true as const } : {}),
    };
  });

  const errors: ErrorCause[] = [];
  if (differences.length && !gate.allowSuiteMismatch) errors.push({ kind: "suite-mismatch", differences });
  const headLost = dropped.filter((d) => d.side !== "base").length;
  if (ids.length > 0 && headLost / ids.length > gate.maxNotComparable)
    errors.push({ kind: "not-comparable", count: headLost, total: ids.length, limit: gate.maxNotComparable });
  const baseSum = summarize(base);
  const headSum = summarize(head);
  const infraP = infraPValue(baseSum.infraErrors, baseSum.runs, headSum.infraErrors, headSum.runs);
  if (infraP <= (options.infraLevel ?? gate.alpha))
    errors.push({
      kind: "infra-errors",
      base: baseSum.infraErrors,
      baseRuns: baseSum.runs,
      head: headSum.infraErrors,
      headRuns: headSum.runs,
      pValue: infraP,
    });
  if (medals.length === 0 && !errors.some((e) => e.kind === "not-comparable"))
    errors.push({ kind: "no-data" });

  const analysis =
    medals.length > 0
      ? analyze(
          { medals, percentiles },
          {
            alpha: gate.alpha,
            tolerance: gate.tolerance,
            percentileTolerance: gate.percentileTolerance,
            levels: options.levels,
            ...(covered.size
              ? { claimTolerances: coveredTolerances(options.informed!, gate.tolerance) }
              : {}),
            simulations: options.simulations,
          },
        )
      : null;
  return {
    suiteName: head.suite.name,
    suiteHash: head.suite.hash,
    sameSuite: differences.length === 0,
    suiteDifferences: differences,
    base: baseSum,
    head: headSum,
    delta: analysis ? analysis.medal.delta : null,
    competitions: rows,
    dropped,
    analysis,
    verdict: errors.length ? "error" : combine(analysis!, gate),
    errors,
    gate,
    baselineSource,
    ...(options.history ? { history: options.history } : {}),
    ...(options.simulations === 0 ? { powerSkipped: true as const } : {}),
  };
}

/** The medal verdict, and the percentile's too when the gate covers it. */
function combine(a: Analysis, gate: Gate): Verdict {
  const vs = [a.medal.verdict];
  if (gate.percentileTolerance !== undefined) vs.push(a.percentile ? a.percentile.verdict : "inconclusive");
  if (vs.includes("regressed")) return "regressed";
  return vs.every((v) => v === "no-regression") ? "no-regression" : "inconclusive";
}

/** Whether the gate fails this comparison: on `regressed`, and on `error` (fail closed). */
export function gateFails(cmp: Comparison): boolean {
  return cmp.gate.failOn === "regression" && (cmp.verdict === "regressed" || cmp.verdict === "error");
}

/** How monitoring after every run ended (compare/monitor.ts decides it). */
export type MonitorDecision = "continue" | "regressed" | "no-regression" | "futility" | "error" | "final";

/** What the monitor did, kept with the comparison for the report. */
export interface MonitorRecord {
  decision: MonitorDecision;
  /** One-sided level of each claim at the deciding look. */
  level: number;
  /** Head runs finished when the verdict was reached (the ones it uses). */
  usedRuns: number;
  /** Head runs planned (the history-informed plan's, when there was one). */
  plannedRuns: number;
  /** The fixed design's head runs (every seed), set when a history-informed plan planned fewer. */
  fixedRuns?: number;
  /** Runs in flight at the stop that finished after it: kept in the results, not used by the verdict. */
  afterStop: string[];
  /**
   * Runs in flight at the stop that were stopped there (seeds.inFlight: stop): no result, not used;
   * the GPU time they had left is saved, and not counted in savedHours.
   */
  stoppedInFlight?: string[];
  /** Runs of the fixed design never started. */
  notStarted: number;
  /** Estimated hours the runs never started would have taken (× GPUs per run when it uses GPUs). */
  savedHours: number;
  /** Whether savedHours are GPU-hours (runs use GPUs) or runner hours. */
  gpuHours: boolean;
  interimShare: number;
  /** The part of α the runs' analysis spends, set when history bounds spend the rest (covered competitions). */
  alphaRuns?: number;
  /** Set when the looks were taken only at stage ends (the staged sharded workflow). */
  stages?: { ran: number; planned: number };
}
