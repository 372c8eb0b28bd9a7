import { markdownTable } from "markdown-table";
import type { Comparison, CompetitionRow, RunCell, SideSummary } from "../compare/compare.js";
import type { TrendPoint } from "../history/history.js";
import type { SuiteResults } from "../results/schema.js";
import { cellOf, summarize } from "../compare/compare.js";
import type { MetricAnalysis } from "../stats/stats.js";
import {
  MEDAL_ICON,
  cellWidth,
  NOT_COMPARABLE_ICON,
  cell,
  costText,
  duration,
  medals,
  outcomeText,
  pct,
  points,
  score,
  shortName,
} from "./format.js";
import { CHART_OPEN_MAX, TREND_CAPTION, percentileChart, trendChart, wholePoints } from "./charts.js";
import { VERSION } from "../version.js";
import { inert } from "./inert.js";
import {
  coveredSummary,
  historyCounts,
  historySentence,
  pairedSentence,
  renderInformedPlan,
} from "./informed.js";
import {
  VERDICT_MEANING,
  VERDICT_TITLE,
  droppedText,
  errorLines,
  intervalText,
  levelText,
  metricReason,
  monitorSentence,
  seedCountsSentence,
  powerSentence,
  stopBiasSentence,
} from "./verdict.js";

export interface ReportOptions {
  /** Trajectory links by run directory (relative, as in the results). */
  links?: Record<string, string>;
  /** Where the full report lives (used when the comment is cut). */
  fullReportUrl?: string;
  /** Environment facts shown at the bottom. */
  environment?: Record<string, string | null | undefined>;
  /** Where the HTML viewer of these runs is (artifact or folder). */
  viewerUrl?: string;
  /** Default-branch trend, this run's head last (see src/history). */
  trend?: TrendPoint[];
}

const VERDICT = VERDICT_TITLE;
/** "−6.1 to +3.1 pts": an interval short enough for a table cell (its level is in the header). */
export function shortInterval(m: MetricAnalysis): string {
  const b = m.interval;
  return b ? `${points(b.lower)} to ${points(b.upper)}` : "";
}

/** One better/worse mark: 🟢 better, 🔴 worse, ⚪ unchanged, blank when unknown. */
export function mark(delta: number | null, higherIsBetter = true, epsilon = 1e-9): string {
  if (delta === null || Number.isNaN(delta)) return "";
  if (Math.abs(delta) <= epsilon) return "⚪ same";
  return delta > 0 === higherIsBetter ? "🟢 better" : "🔴 worse";
}

/**
 * The headline's mark for an analysed change: better or worse only when its interval (the one
 * printed beside it) excludes no change, "not significant" when it does not, nothing without one.
 */
export function significanceMark(m: MetricAnalysis): string {
  if (Math.abs(m.delta) <= 1e-9) return "⚪ same";
  const b = m.interval;
  if (!b) return "";
  if (b.lower > 0) return "🟢 better";
  if (b.upper < 0) return "🔴 worse";
  return "not significant";
}

/** A headline cell: "$1.20", "$1.20 (1 of 3)" when some runs did not report, or "—". */
const costCell = (s: SideSummary) =>
  s.dollars === null
    ? "—"
    : `$${s.dollars.toFixed(2)}${s.dollarsRuns < s.runs ? ` (${s.dollarsRuns} of ${s.runs})` : ""}`;

/**
 * The runs both sides ran (same competition and seed), base then head, and whether they are every
 * run of both sides. After an early stop, or with the history-informed plan, the head ran fewer:
 * totals over different runs are not a change.
 */
export function pairedRuns(cmp: Comparison): { pairs: [RunCell, RunCell][]; all: boolean } {
  const pairs: [RunCell, RunCell][] = [];
  for (const r of cmp.competitions) {
    const head = new Map(r.head.map((c) => [c.seed, c]));
    for (const b of r.base) {
      const h = head.get(b.seed);
      if (h) pairs.push([b, h]);
    }
  }
  return { pairs, all: pairs.length === cmp.base.runs && pairs.length === cmp.head.runs };
}

/** " on the 22 runs both sides ran". */
export const onPaired = (n: number) => ` on the ${n} run${n === 1 ? "" : "s"} both sides ran`;

/**
 * The cost change, only when every run compared reported one (every run of both sides, or every
 * run both sides ran when they ran different runs); never a better/worse mark.
 */
function costChange(cmp: Comparison): string {
  const b = cmp.base;
  const h = cmp.head;
  if (b.dollars === null && h.dollars === null) return "not reported";
  const { pairs, all } = pairedRuns(cmp);
  const money = (d: number) => `${d >= 0 ? "+" : "−"}$${Math.abs(d).toFixed(2)} unverified`;
  if (all) {
    if (b.dollars === null || h.dollars === null || b.dollarsRuns < b.runs || h.dollarsRuns < h.runs)
      return "not compared";
    return money(h.dollars - b.dollars);
  }
  const reported = pairs.filter(([x, y]) => typeof x.dollars === "number" && typeof y.dollars === "number");
  if (pairs.length === 0 || reported.length < pairs.length) return "not compared";
  const sum = (i: 0 | 1) => reported.reduce((a, p) => a + (p[i].dollars as number), 0);
  return `${money(sum(1) - sum(0))},${onPaired(pairs.length)}`;
}

/** The sentence under the headline when any run reported a cost (empty otherwise). */
function costSentence(b: SideSummary, h: SideSummary): string {
  if (b.dollars === null && h.dollars === null && !b.dollarsIgnored && !h.dollarsIgnored) return "";
  return `Cost is self-reported by the agent (logs/usage.json) and not verified; it never marks a change better or worse. Base: ${costText(b)}. Head: ${costText(h)}.`;
}

/** The change between two shown durations, from the values as shown (so 1s → 1s is "±0s ⚪ same"). */
function durationChange(fromMs: number, toMs: number): string {
  const ms = Math.round(toMs / 1000) * 1000 - Math.round(fromMs / 1000) * 1000;
  return `${ms > 0 ? "+" : ms < 0 ? "−" : "±"}${duration(Math.abs(ms))} ${mark(ms, false, 0)}`;
}

/**
 * The agent times a change compares: every run's when both sides ran the same runs (`all`), else
 * those of the `runs` runs both sides ran (same competition and seed).
 */
export function comparedTimes(cmp: Comparison): {
  all: boolean;
  runs: number;
  baseMs: number;
  headMs: number;
} {
  const { pairs, all } = pairedRuns(cmp);
  if (all) return { all, runs: pairs.length, baseMs: cmp.base.durationMs, headMs: cmp.head.durationMs };
  const sum = (i: 0 | 1) => pairs.reduce((a, p) => a + (p[i].durationMs ?? 0), 0);
  return { all, runs: pairs.length, baseMs: sum(0), headMs: sum(1) };
}

/** " (22 runs)" after a side's total when the sides ran different runs. */
export const runsNote = (all: boolean, n: number) => (all ? "" : ` (${n} run${n === 1 ? "" : "s"})`);

/**
 * The agent-time row: each side's total and its change, over the runs both sides ran when the
 * sides ran different runs (then each total says how many runs it covers).
 */
function agentTime(cmp: Comparison): { base: string; head: string; change: string } {
  if (cmp.base.untimed || cmp.head.untimed) return unknownTimes(cmp);
  const t = comparedTimes(cmp);
  return {
    base: `${duration(cmp.base.durationMs)}${runsNote(t.all, cmp.base.runs)}`,
    head: `${duration(cmp.head.durationMs)}${runsNote(t.all, cmp.head.runs)}`,
    change: t.all
      ? durationChange(t.baseMs, t.headMs)
      : t.runs
        ? `${durationChange(t.baseMs, t.headMs)}${onPaired(t.runs)}`
        : "not compared (no run on both sides)",
  };
}

/**
 * Agent time when a side has runs imported from MLE-bench: upstream records no run times, so that
 * side's time is unknown and nothing is compared (never a better/worse mark on a made-up 0 s).
 */
export function unknownTimes(cmp: Pick<Comparison, "base" | "head">): {
  base: string;
  head: string;
  change: string;
} {
  const side = (s: Comparison["base"]) => (s.untimed ? "unknown" : duration(s.durationMs));
  return {
    base: side(cmp.base),
    head: side(cmp.head),
    change: "not compared (MLE-bench records no run times)",
  };
}

/** The verdict, what it means, and the sentences behind it (src/report/verdict.ts). */
export function verdictSection(cmp: Comparison): string[] {
  const a = cmp.analysis;
  const out: string[] = [`_${VERDICT_MEANING[cmp.verdict]}_`];
  for (const e of errorLines(cmp)) out.push("", `⛔ ${e}`);
  if (a) {
    const power = powerSentence(a.medal, a.targetPower, !cmp.powerSkipped);
    out.push(
      "",
      `${cmp.verdict === "error" ? "Not used for the verdict: " : ""}${metricReason(a.medal)} Tolerance: a ${(cmp.gate.tolerance * 100).toFixed(1)}-point drop; α = ${cmp.gate.alpha}.` +
        (power ? ` ${power}` : ""),
    );
    if (a.percentile && cmp.gate.percentileTolerance !== undefined)
      out.push("", `Percentile (gated): ${metricReason(a.percentile)}`);
  }
  if (!cmp.sameSuite && cmp.errors.every((e) => e.kind !== "suite-mismatch"))
    out.push(
      "",
      `⚠️ Base and head ran different suites (compared as allowed by gate.allowSuiteMismatch): ${cmp.suiteDifferences.map((d) => inert(d)).join("; ")}.`,
    );
  if (cmp.dropped.length) out.push("", droppedText(cmp));
  const seeds = seedCountsSentence(cmp);
  if (seeds) out.push("", seeds);
  const history = historySentence(cmp);
  if (history) out.push("", history);
  const paired = pairedSentence(cmp);
  if (paired) out.push("", paired);
  const covered = coveredSummary(cmp);
  if (covered) out.push("", covered);
  if (cmp.monitor) out.push("", monitorSentence(cmp.monitor));
  const bias = stopBiasSentence(cmp);
  if (bias) out.push("", bias);
  const reused = (side: SideSummary) => `${side.label} ${side.reused ?? 0} of ${side.runs}`;
  if ((cmp.head.reused ?? 0) + (cmp.base.reused ?? 0) > 0)
    out.push(
      "",
      `Runs reused from an earlier invocation with the same identity: ${reused(cmp.head)}, ${reused(cmp.base)}.`,
    );
  return out;
}

/** The collapsed statistics (interval, p-value, power table). */
export function statisticsDetails(cmp: Comparison): string[] {
  const a = cmp.analysis;
  if (!a) return [];
  const out: string[] = ["<details><summary>Statistics</summary>", ""];
  const metricRows = [a.medal, a.percentile]
    .filter((m): m is MetricAnalysis => m !== null)
    .map((m) => [
      m.metric === "medal" ? "medal rate" : "leaderboard percentile",
      pct(m.base),
      pct(m.head),
      points(m.delta),
      shortInterval(m) || "—",
      m.pValue < 0.001 ? "<0.001" : m.pValue.toFixed(3),
      m.mde === null ? "—" : points(-m.mde).replace("−", ""),
      m.verdict,
    ]);
  out.push(
    markdownTable([["Metric", "Base", "Head", "Δ", "Interval", "p", "MDE", "Verdict"], ...metricRows]),
  );
  if (a.medal.interval) out.push("", `Medal rate: ${intervalText(a.medal)}; p-values are one-sided.`);
  out.push(
    "",
    `Probability that a drop of this size is flagged \`regressed\` (${a.medal.levels.regressed !== a.alpha ? `one-sided level ${levelText(a.medal.levels.regressed)}, the level the verdict was decided at; gate α = ${a.alpha}` : `α = ${a.alpha}`}; medal rate: ${a.medal.powerMethod}${a.percentile ? `, percentile: ${a.percentile.powerMethod}` : ""}):`,
    "",
  );
  out.push(
    markdownTable([
      ["Drop", ...a.medal.power.map((p) => points(-p.drop, 0).replace("−", ""))],
      ["Medal rate", ...a.medal.power.map((p) => (p.power === null ? "n/a" : pct(p.power, 0)))],
      ...(a.percentile
        ? [["Percentile", ...a.percentile.power.map((p) => (p.power === null ? "n/a" : pct(p.power, 0)))]]
        : []),
    ]),
  );
  out.push(
    "",
    `Paired by competition: ${a.medal.competitions} competitions, ${a.medal.baseRuns} base${cmp.history ? ` (${historyCounts(cmp).runs} of them earlier runs from the history)` : ""} and ${a.medal.headRuns} head runs; p-value ${a.medal.pValueMethod} permutation test within competitions.`,
    "",
    "</details>",
  );
  return out;
}

const rateCell = (rate: number | null, x: number, n: number) => `${pct(rate)} (${x}/${n})`;

/**
 * The medal rates the change is the difference of: means over the compared competitions (each
 * weighs the same), with the pooled counts; "mean over competitions" when the two differ.
 */
export function comparedRates(cmp: Comparison, m: MetricAnalysis): [string, string] {
  const rows = cmp.competitions.filter((r) => r.comparable);
  const count = (cells: RunCell[]) => {
    const ok = cells.filter((c) => c.comparable !== false);
    return { x: ok.filter((c) => c.medal !== "none").length, n: ok.length };
  };
  const side = (rate: number, cells: RunCell[]) => {
    const { x, n } = count(cells);
    const pooled = n > 0 && Math.abs(x / n - rate) < 1e-9;
    return pooled ? rateCell(rate, x, n) : `${pct(rate)} (mean over competitions; ${x}/${n} runs)`;
  };
  const earlier = historyCounts(cmp);
  const { x, n } = count(rows.flatMap((r) => r.base));
  return [
    earlier.runs > 0
      ? `${pct(m.base)} (mean over competitions; ${x}/${n} runs now, ${earlier.medals}/${earlier.runs} earlier)`
      : side(
          m.base,
          rows.flatMap((r) => r.base),
        ),
    side(
      m.head,
      rows.flatMap((r) => r.head),
    ),
  ];
}

const withSpace = (text: string) => (text ? ` ${text}` : "");

/**
 * The headline: medal rate, percentile, cost and time, base → head. The rates are marked by their
 * interval; without an analysis (no competition compared on both sides) they are not marked.
 */
function headline(cmp: Comparison): string {
  const b = cmp.base;
  const h = cmp.head;
  const a = cmp.analysis;
  const rateDelta = a
    ? a.medal.delta
    : b.medalRate !== null && h.medalRate !== null
      ? h.medalRate - b.medalRate
      : null;
  const pctDelta = a?.percentile
    ? a.percentile.delta
    : b.meanPercentile !== null && h.meanPercentile !== null
      ? h.meanPercentile - b.meanPercentile
      : null;
  const time = agentTime(cmp);
  const [baseRate, headRate] = a
    ? comparedRates(cmp, a.medal)
    : [rateCell(b.medalRate, b.medals, b.comparable), rateCell(h.medalRate, h.medals, h.comparable)];
  return markdownTable(
    [
      ["", "Base", "Head", "Change"],
      [
        "**Medal rate**",
        baseRate,
        `**${headRate.replace(/^(\S+)/, "$1**")}`,
        `**${points(rateDelta)}**${withSpace(a ? significanceMark(a.medal) : "")}${a?.medal.interval ? ` (${levelText(a.medal.interval.level)}: ${shortInterval(a.medal)})` : ""}`,
      ],
      [
        "Mean percentile",
        // The percentiles the change is the difference of (a run with nothing gradeable counts 0).
        pct(a?.percentile ? a.percentile.base : b.meanPercentile),
        pct(a?.percentile ? a.percentile.head : h.meanPercentile),
        `${points(pctDelta)}${withSpace(a?.percentile ? significanceMark(a.percentile) : "")}`,
      ],
      ["Cost (self-reported)", costCell(b), costCell(h), costChange(cmp)],
      ["Agent time", time.base, time.head, time.change],
    ],
    { align: ["l", "r", "r", "l"] },
  );
}

/**
 * Compact per-seed links, "0 1 2"; a failed or invalid seed says why in a word or two
 * ("1 timed out"), or, past two such seeds, the row ends with how many failed.
 */
function seedLinks(cells: RunCell[], links?: Record<string, string>): string {
  const bad = (c: RunCell) => c.outcome !== "completed" || !c.valid;
  const nBad = cells.filter(bad).length;
  const parts = cells.map((c) => {
    const text = bad(c) ? (nBad <= 2 ? `${c.seed} ${outcomeText(c)}` : `${c.seed}✗`) : `${c.seed}`;
    const url = links?.[c.runDir];
    return url ? `[${text}](${url})` : text;
  });
  if (nBad > 2) parts.push(`(${nBad} failed)`);
  return parts.join(" ") || "—";
}

const TIER = { gold: 3, silver: 2, bronze: 1, none: 0 } as const;
const perRun = (cells: RunCell[], f: (c: RunCell) => number) =>
  cells.length ? cells.reduce((a, c) => a + f(c), 0) / cells.length : 0;

/**
 * How a competition's medals moved: by medals per run first, then by medal tier per run
 * (🥉→🥇 is a change too). Positive: gained; negative: lost; 0: unchanged.
 */
export function medalChange(r: CompetitionRow): number {
  // Only runs that count: an infrastructure error is nobody's lost medal.
  if (!r.comparable) return 0;
  const head = r.head.filter((c) => c.comparable !== false);
  const base = r.base.filter((c) => c.comparable !== false);
  const count = (c: RunCell) => (c.medal === "none" ? 0 : 1);
  const d = perRun(head, count) - perRun(base, count);
  if (Math.abs(d) > 1e-9) return Math.sign(d);
  const t = perRun(head, (c) => TIER[c.medal]) - perRun(base, (c) => TIER[c.medal]);
  return Math.abs(t) > 1e-9 ? Math.sign(t) : 0;
}

function rowMark(r: CompetitionRow): string {
  const m = (r.headMedalRate ?? 0) - (r.baseMedalRate ?? 0);
  if (!r.comparable) return "";
  if (Math.abs(m) > 1e-9 || medalChange(r) !== 0) return mark(medalChange(r));
  const p =
    r.headMeanPercentile !== null && r.basePercentile !== null
      ? r.headMeanPercentile - r.basePercentile
      : null;
  return mark(p, true, 0.005);
}

const MARK_ONLY: Record<string, string> = { "🟢 better": "🟢", "🔴 worse": "🔴", "⚪ same": "⚪", "": "" };

function competitionTable(rows: CompetitionRow[], links?: Record<string, string>): string {
  const header = ["", "Competition", "Base", "Head", "Percentile", "Head runs"];
  const body = rows.map((r) => [
    MARK_ONLY[rowMark(r)] ?? "",
    cell(shortName(r.competitionId)),
    medals(r.base),
    medals(r.head),
    `${pctNum(r.basePercentile)} → ${pctNum(r.headMeanPercentile)}`,
    r.covered ? "covered by a history bound" : seedLinks(r.head, links),
  ]);
  return markdownTable([header, ...body], {
    align: ["c", "l", "l", "l", "r", "l"],
    stringLength: cellWidth,
  });
}

const pctNum = (x: number | null) => String(wholePoints(x) ?? "—");

/** The PR comment / job summary text for a base-vs-head comparison. */
export function renderReport(cmp: Comparison, opts: ReportOptions = {}): string {
  const out: string[] = [];
  const h = cmp.head;
  const b = cmp.base;
  out.push(`## Medalist · ${cell(cmp.suiteName)} · ${VERDICT[cmp.verdict]}`, "");
  out.push(headline(cmp), "");
  const cost = costSentence(cmp.base, cmp.head);
  if (cost) out.push(`<sub>${cost}</sub>`, "");
  out.push(...verdictSection(cmp));
  out.push(
    "",
    `Baseline: ${cmp.baselineSource}.${opts.viewerUrl ? ` **[Open the trajectory viewer](${opts.viewerUrl})** (runs, logs, code diff).` : ""}`,
  );

  const gained = cmp.competitions.filter((r) => medalChange(r) > 0);
  const lost = cmp.competitions.filter((r) => medalChange(r) < 0);
  // Only a competition compared on both sides can have unchanged medals.
  const rest = cmp.competitions.filter((r) => r.comparable && medalChange(r) === 0);
  const notCompared = cmp.competitions.filter((r) => !r.comparable);
  const key = `🟢 better 🔴 worse ⚪ same (medals, then percentile) · one mark per seed: ${MEDAL_ICON.gold} gold ${MEDAL_ICON.silver} silver ${MEDAL_ICON.bronze} bronze ${MEDAL_ICON.none} no medal ${NOT_COMPARABLE_ICON} not comparable · percentile: mean leaderboard percentile, base → head · head runs: one link per seed.`;
  if (lost.length)
    out.push(
      "",
      `### 🔴 Medals lost in ${lost.length} competition${lost.length === 1 ? "" : "s"}`,
      "",
      competitionTable(lost, opts.links),
    );
  if (gained.length)
    out.push(
      "",
      `### 🟢 Medals gained in ${gained.length} competition${gained.length === 1 ? "" : "s"}`,
      "",
      competitionTable(gained, opts.links),
    );
  if (!lost.length && !gained.length)
    out.push(
      "",
      rest.length
        ? "No competition's medal count changed."
        : "No competition has comparable runs on both sides, so no medal change is shown.",
    );
  if (rest.length) {
    out.push(
      "",
      `<details><summary>${rest.length} competition${rest.length === 1 ? "" : "s"} with unchanged medals</summary>`,
      "",
    );
    out.push(competitionTable(rest, opts.links), "", "</details>");
  }
  if (notCompared.length) {
    const why = notCompared.some((r) => r.covered)
      ? notCompared.every((r) => r.covered)
        ? "covered by a history bound"
        : "no comparable run on one side, or covered by a history bound"
      : "no comparable run on one side";
    out.push(
      "",
      `<details><summary>${notCompared.length} competition${notCompared.length === 1 ? "" : "s"} not compared (${why})</summary>`,
      "",
    );
    out.push(competitionTable(notCompared, opts.links), "", "</details>");
  }
  out.push("", `<sub>${key}</sub>`);
  // Why the head's runs that did not complete ended: the cause, not just the word.
  const failed = cmp.competitions.flatMap((r) =>
    r.head.filter((c) => c.outcome !== "completed").map((c) => ({ id: `${r.competitionId}.s${c.seed}`, c })),
  );
  if (failed.length > 0) {
    out.push("", `<details><summary>Head runs that did not complete (${failed.length})</summary>`, "");
    for (const { id, c } of failed.slice(0, 20))
      out.push(`- ${cell(id)}: ${outcomeText(c)}${c.error ? ` — ${inert(c.error, 300)}` : ""}`);
    if (failed.length > 20) out.push(`- … and ${failed.length - 20} more (see results.json)`);
    out.push("", "</details>");
  }

  const pc = percentileChart(cmp.competitions);
  if (pc.chart)
    out.push(
      "",
      `<details${pc.bars <= CHART_OPEN_MAX ? " open" : ""}><summary>Percentile change in ${pc.changed} competition${pc.changed === 1 ? "" : "s"} (chart${pc.bars < pc.changed ? ` of the ${pc.bars} largest` : ""})</summary>`,
      "",
      pc.caption,
      "",
      pc.chart,
      "",
      "</details>",
    );
  const trend = opts.trend ? trendChart(opts.trend) : "";
  if (trend)
    out.push(
      "",
      "<details open><summary>Trend on the default branch</summary>",
      "",
      TREND_CAPTION,
      "",
      trend,
      "",
      "</details>",
    );

  out.push("", ...statisticsDetails(cmp));
  const plan = renderInformedPlan(cmp.informed ?? null, cmp.gate.alpha);
  if (plan) out.push("", plan);
  out.push("", "<details><summary>Runs, validity and agents</summary>", "");
  out.push(
    markdownTable([
      ["", "Base", "Head"],
      ["Agent", cell(b.agent), cell(h.agent)],
      ["Runs (comparable)", `${b.runs} (${b.comparable})`, `${h.runs} (${h.comparable})`],
      ["Valid submissions", pct(b.validRate, 0), pct(h.validRate, 0)],
      ["Above median", pct(b.aboveMedianRate, 0), pct(h.aboveMedianRate, 0)],
    ]),
  );
  out.push("", "</details>");

  const env = { ...opts.environment, "suite hash": cmp.suiteHash, medalist: VERSION };
  const facts = Object.entries(env)
    .filter(([, v]) => v !== null && v !== undefined && v !== "")
    .map(([k, v]) => `${k}: ${inert(String(v), 200)}`);
  out.push("", `<sub>${facts.join(" · ")}</sub>`);
  if (opts.fullReportUrl) out.push("", `[Full report](${opts.fullReportUrl})`);
  return out.join("\n") + "\n";
}

function direction(lower: boolean | null): string {
  return lower === null ? "" : lower ? " ↓" : " ↑";
}

function runLink(c: RunCell, links?: Record<string, string>): string {
  const url = links?.[c.runDir];
  return url ? `[s${c.seed}](${url})` : `s${c.seed}`;
}

/** A report for one suite run without a baseline (`medalist report RESULTS.json`). */
export function renderResults(s: SuiteResults, opts: ReportOptions = {}): string {
  const sum = summarize(s);
  const out: string[] = [];
  out.push(`## Medalist · ${cell(s.suite.name)} · ${cell(s.label)}`);
  out.push("");
  out.push(
    `**Medal rate ${pct(sum.medalRate)}** (${sum.medals}/${sum.comparable}: ${sum.gold} gold, ${sum.silver} silver, ${sum.bronze} bronze) · valid submissions ${pct(sum.validRate, 0)} · above median ${pct(sum.aboveMedianRate, 0)}` +
      (sum.infraErrors ? ` · ${sum.infraErrors} not comparable (infrastructure)` : "") +
      (sum.dollars !== null || sum.dollarsIgnored ? ` · cost ${costText(sum)}` : ""),
  );
  out.push("");
  const header = ["Competition", "Seed", "Outcome", "Score", "Medal", "Percentile", "Time", "Note"];
  const rows = s.runs.map((r) => {
    const c = cellOf(r);
    return [
      cell(`${r.competitionId}${direction(r.grade ? r.grade.is_lower_better : null)}`),
      runLink(c, opts.links),
      outcomeText(c),
      score(c.score),
      MEDAL_ICON[c.medal],
      pct(c.percentile, 0),
      duration(r.durationMs),
      inert(c.error, 300),
    ];
  });
  out.push(markdownTable([header, ...rows], { align: ["l", "r", "l", "r", "c", "r", "r", "l"] }));
  const reused = s.runs.filter((r) => r.reused).length;
  if (reused > 0)
    out.push(
      "",
      `${reused} of ${s.runs.length} runs reused from an earlier invocation with the same identity (agent code, command, env, limits, data, grader).`,
    );
  out.push(
    "",
    `<sub>agent: ${inert(s.agent.description, 200)} · executor: ${inert(s.environment.executor)}${s.environment.runtime ? ` · runtime: ${inert(s.environment.runtime, 64)}` : ""}${s.environment.unsandboxed ? ` · sandbox: none, the agent ran unsandboxed (${inert(s.environment.unsandboxed, 300)})` : ""} · time limit: ${s.environment.timeLimitSecs}s · suite hash: ${inert(s.suite.hash)} · medalist: ${inert(s.medalistVersion)}</sub>`,
  );
  return out.join("\n") + "\n";
}
