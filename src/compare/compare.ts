import type { Config } from "../config/schema.js";
import type { GradeReportJson, RunResult, SuiteResults } from "../results/schema.js";
import { medalOf, type Medal } from "../grade/types.js";
import { analyze, type Analysis, type CompetitionSample, type Verdict } from "./stats.js";

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
  dollars: number | null;
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
}

export interface Comparison {
  suiteName: string;
  suiteHash: string;
  /** False when base and head ran different suites (competitions, seeds, limits). */
  sameSuite: boolean;
  base: SideSummary;
  head: SideSummary;
  /** head − base medal rate over the paired competitions; null when not computable. */
  delta: number | null;
  competitions: CompetitionRow[];
  analysis: Analysis | null;
  verdict: Verdict;
  gate: Config["gate"];
  baselineSource: string;
}

const num = (v: number | "NaN" | null): number | null => (v === "NaN" ? NaN : v);
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

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
  };
}

/** Infrastructure errors and grader failures are nobody's score: they count on neither side. */
const comparable = (r: RunResult) => r.outcome !== "infra_error" && r.grade?.grader_error !== true;

export function summarize(s: SuiteResults): SideSummary {
  const ok = s.runs.filter(comparable);
  const grades = ok.map((r) => r.grade).filter((g): g is GradeReportJson => g !== null);
  const rate = (n: number) => (ok.length ? n / ok.length : null);
  const pct = grades.map((g) => g.percentile ?? 0);
  const dollars = s.runs.map((r) => r.usage?.dollars).filter((d): d is number => typeof d === "number");
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
    meanPercentile: ok.length ? pct.reduce((a, b) => a + b, 0) / ok.length : null,
    infraErrors: s.runs.length - ok.length,
    reused: s.runs.filter((r) => r.reused).length,
    durationMs: s.runs.reduce((a, r) => a + r.durationMs, 0),
    dollars: dollars.length ? dollars.reduce((a, b) => a + b, 0) : null,
  };
}

/**
 * Pairs base and head by competition and compares them: medal rates, per-competition rows, and
 * the paired statistics that decide the verdict. Infrastructure errors count on neither side.
 */
export function compareRuns(
  base: SuiteResults,
  head: SuiteResults,
  gate: Config["gate"],
  baselineSource = "file",
): Comparison {
  const ids = [...new Set([...head.suite.competitions, ...base.suite.competitions])].sort();
  const medals: CompetitionSample[] = [];
  const percentiles: CompetitionSample[] = [];
  const rows: CompetitionRow[] = ids.map((id) => {
    const b = base.runs.filter((r) => r.competitionId === id).sort((x, y) => x.seed - y.seed);
    const h = head.runs.filter((r) => r.competitionId === id).sort((x, y) => x.seed - y.seed);
    const bOk = b.filter(comparable);
    const hOk = h.filter(comparable);
    const medalValues = (rs: RunResult[]) => rs.map((r) => (r.grade?.any_medal ? 1 : 0));
    const pctValues = (rs: RunResult[]) => rs.map((r) => r.grade?.percentile ?? 0);
    const isComparable = bOk.length > 0 && hOk.length > 0;
    if (isComparable) {
      medals.push({ competitionId: id, base: medalValues(bOk), head: medalValues(hOk) });
      percentiles.push({ competitionId: id, base: pctValues(bOk), head: pctValues(hOk) });
    }
    const scores = (rs: RunResult[]) =>
      rs
        .map(cellOf)
        .map((c) => c.score)
        .filter((x): x is number => x !== null && !Number.isNaN(x));
    const bs = mean(scores(bOk));
    const hs = mean(scores(hOk));
    const first = h[0]?.grade ?? b[0]?.grade;
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
      headMeanPercentile: mean(pctValues(hOk)),
      basePercentile: mean(pctValues(bOk)),
      comparable: isComparable,
    };
  });
  const analysis =
    medals.length > 0
      ? analyze({ medals, percentiles }, { alpha: gate.alpha, tolerance: gate.tolerance })
      : null;
  return {
    suiteName: head.suite.name,
    suiteHash: head.suite.hash,
    sameSuite: base.suite.hash === head.suite.hash,
    base: summarize(base),
    head: summarize(head),
    delta: analysis ? analysis.medal.delta : null,
    competitions: rows,
    analysis,
    verdict: analysis ? analysis.medal.verdict : "inconclusive",
    gate,
    baselineSource,
  };
}
