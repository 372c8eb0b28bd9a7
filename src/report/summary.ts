// The terminal's summary of an evaluation: the verdict, the headline numbers and the paths to
// open, in a few lines, the verdict again on the last one. The full comment stays in report.md.
import { summarize, type Comparison } from "../compare/compare.js";
import type { SuiteResults } from "../results/schema.js";
import { countOf } from "../util/count.js";
import { pct, points } from "./format.js";
import { comparedRates, shortInterval, significanceMark } from "./markdown.js";
import { levelText, VERDICT_MEANING, VERDICT_TITLE } from "./verdict.js";

/** The most lines the summary prints (the run's progress lines come before it, on stderr). */
export const SUMMARY_MAX_LINES = 15;

export interface SummaryInput {
  head: SuiteResults;
  comparison: Comparison | null;
  /** Why there is no baseline, when there is none and that is known. */
  baselineNote: string | null;
  /** The gate's sentence, plain text ("Gate: passed — …"). */
  gateSentence: string;
  /** What the gate decided (the exit code follows it). */
  gate: "failed" | "passed" | "off";
  exitCode: number;
  paths: { report: string; viewer: string | null; results: string[] };
  /** Seconds the command took, when known. */
  tookSecs?: number;
}

/** A change with its mark and interval: "+66.7 pts, not significant (90%: −13.8 pts to +100.0 pts)". */
function change(a: NonNullable<Comparison["analysis"]>["medal"]): string {
  const mark = significanceMark(a);
  const interval = a.interval ? ` (${levelText(a.interval.level)} interval: ${shortInterval(a)})` : "";
  return `${points(a.delta)}${mark ? `, ${mark}` : ""}${interval}`;
}

/** The head's runs that did not complete, by outcome ("2 failed, 1 timed out"), or null. */
function notCompleted(head: SuiteResults): string | null {
  const counts = new Map<string, number>();
  for (const r of head.runs)
    if (r.outcome !== "completed") counts.set(r.outcome, (counts.get(r.outcome) ?? 0) + 1);
  if (counts.size === 0) return null;
  const parts = [...counts].map(([o, n]) => `${n} ${o.replace(/_/g, " ")}`);
  return `${parts.join(", ")} of ${countOf(head.runs.length, "head run")}`;
}

/** The verdict in a few words: the comparison's, or why there is none. */
export function verdictWords(comparison: Comparison | null): string {
  return comparison ? VERDICT_TITLE[comparison.verdict] : "no verdict (no baseline to compare with)";
}

/** The summary's lines, at most SUMMARY_MAX_LINES; the last one names the verdict and the exit code. */
export function terminalSummary(s: SummaryInput): string[] {
  const cmp = s.comparison;
  const lines: string[] = [`Medalist · ${s.head.suite.name} · ${verdictWords(cmp)}`];
  if (cmp) lines.push(VERDICT_MEANING[cmp.verdict]);
  const a = cmp?.analysis ?? null;
  if (cmp && a) {
    const [base, head] = comparedRates(cmp, a.medal);
    lines.push(`Medal rate: ${base} → ${head}; ${change(a.medal)}`);
    if (a.percentile)
      lines.push(
        `Mean percentile: ${pct(a.percentile.base)} → ${pct(a.percentile.head)}; ${change(a.percentile)}` +
          (cmp.gate.percentileTolerance === undefined ? " (not gated: the verdict is the medal rate's)" : ""),
      );
  } else if (cmp) {
    lines.push(
      `Medal rate: ${pct(cmp.base.medalRate)} (${cmp.base.medals}/${cmp.base.comparable}) → ${pct(cmp.head.medalRate)} (${cmp.head.medals}/${cmp.head.comparable}); not analysed`,
    );
  } else {
    const h = summarize(s.head);
    lines.push(
      `Head medal rate: ${pct(h.medalRate)} (${h.medals}/${h.comparable}); no baseline${s.baselineNote ? `: ${s.baselineNote}` : ""}`,
    );
  }
  const lost = notCompleted(s.head);
  if (lost) lines.push(`Not completed: ${lost} (the report says why)`);
  lines.push(s.gateSentence);
  lines.push(`report:  ${s.paths.report} (the full comment)`);
  if (s.paths.viewer) lines.push(`viewer:  ${s.paths.viewer}`);
  if (s.paths.results.length) lines.push(`results: ${s.paths.results.join(", ")}`);
  if (s.tookSecs !== undefined) lines.push(`took ${s.tookSecs.toFixed(1)}s`);
  lines.push(`Verdict: ${verdictWords(cmp)}; gate ${s.gate}; exit code ${s.exitCode}.`);
  // Never more than the limit: the first lines give way, the verdict stays last.
  return lines.length > SUMMARY_MAX_LINES
    ? [...lines.slice(0, SUMMARY_MAX_LINES - 1), lines[lines.length - 1]]
    : lines;
}

/** What `medalist run --json` prints: the comparison (null without a baseline), the gate and the paths. */
export function runJson(s: SummaryInput) {
  return {
    verdict: s.comparison?.verdict ?? null,
    gate: { decision: s.gate, sentence: s.gateSentence },
    exitCode: s.exitCode,
    baselineNote: s.comparison ? null : s.baselineNote,
    paths: s.paths,
    comparison: s.comparison,
  };
}
