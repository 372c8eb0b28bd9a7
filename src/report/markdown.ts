import { markdownTable } from "markdown-table";
import type { Comparison, RunCell, SideSummary } from "../compare/compare.js";
import type { SuiteResults } from "../results/schema.js";
import { cellOf, summarize } from "../compare/compare.js";
import type { MetricAnalysis } from "../compare/stats.js";
import { MEDAL_ICON, cell, duration, medals, outcomeText, pct, points, score, signed } from "./format.js";
import { VERSION } from "../version.js";
import {
  VERDICT_MEANING,
  VERDICT_TITLE,
  droppedText,
  errorLines,
  intervalText,
  looksText,
  metricReason,
  powerSentence,
} from "./verdict.js";

export interface ReportOptions {
  /** Trajectory links by run directory (relative, as in the results). */
  links?: Record<string, string>;
  /** Where the full report lives (used when the comment is cut). */
  fullReportUrl?: string;
  /** Environment facts shown at the bottom. */
  environment?: Record<string, string | null | undefined>;
}

const VERDICT = VERDICT_TITLE;
const interval = intervalText;

function direction(lower: boolean | null): string {
  return lower === null ? "" : lower ? " ↓" : " ↑";
}

function runLink(c: RunCell, links?: Record<string, string>): string {
  const url = links?.[c.runDir];
  return url ? `[s${c.seed}](${url})` : `s${c.seed}`;
}

/** The PR comment / job summary text for a base-vs-head comparison. */
export function renderReport(cmp: Comparison, opts: ReportOptions = {}): string {
  const a = cmp.analysis;
  const out: string[] = [];
  out.push(`## Medalist · ${cell(cmp.suiteName)} · ${VERDICT[cmp.verdict]}`);
  out.push("");
  const b = cmp.base;
  const h = cmp.head;
  let line = `**Medal rate** ${pct(b.medalRate)} (${b.medals}/${b.comparable}) → **${pct(h.medalRate)}** (${h.medals}/${h.comparable})`;
  if (a) {
    line += `, Δ **${points(a.medal.delta)}**${cmp.dropped.length ? ` over the ${a.medal.competitions} paired competitions` : ""}`;
    const extra = [
      interval(a.medal),
      `p = ${a.medal.pValue < 0.001 ? "<0.001" : a.medal.pValue.toFixed(3)}`,
    ].filter(Boolean);
    line += ` (${extra.join("; ")})`;
  }
  out.push(line + ".");
  out.push("", `_${VERDICT_MEANING[cmp.verdict]}_`);
  for (const e of errorLines(cmp)) out.push("", `⛔ ${e}`);
  if (a) {
    out.push("");
    out.push(
      `${cmp.verdict === "error" ? "Not used for the verdict: " : ""}${metricReason(a.medal)} Tolerance: a ${(cmp.gate.tolerance * 100).toFixed(1)}-point drop; α = ${cmp.gate.alpha}. ` +
        powerSentence(a.medal, a.targetPower),
    );
    if (a.percentile && cmp.gate.percentileTolerance !== undefined)
      out.push("", `Percentile (gated): ${metricReason(a.percentile)}`);
  }
  if (!cmp.sameSuite && cmp.errors.every((e) => e.kind !== "suite-mismatch"))
    out.push(
      "",
      `⚠️ Base and head ran different suites (compared as allowed by gate.allowSuiteMismatch): ${cmp.suiteDifferences.join("; ")}.`,
    );
  if (cmp.dropped.length) out.push("", droppedText(cmp));
  if (cmp.looks?.length) out.push("", "Adaptive seeds:", "", ...looksText(cmp.looks).map((l) => `- ${l}`));
  out.push("", `Baseline: ${cmp.baselineSource}.`);
  const reused = (side: SideSummary) => `${side.label} ${side.reused ?? 0} of ${side.runs}`;
  if ((cmp.head.reused ?? 0) + (cmp.base.reused ?? 0) > 0)
    out.push(
      "",
      `Runs reused from an earlier invocation with the same identity: ${reused(cmp.head)}, ${reused(cmp.base)}.`,
    );
  out.push("");

  const header = [
    "Competition",
    "Base",
    "Head",
    "Base score",
    "Head score",
    "Δ score",
    "Head percentile",
    "Head runs",
  ];
  const rows = cmp.competitions.map((r) => [
    cell(`${r.competitionId}${direction(r.isLowerBetter)}`),
    medals(r.base),
    medals(r.head),
    score(r.baseMeanScore),
    score(r.headMeanScore),
    signed(r.deltaScore),
    pct(r.headMeanPercentile, 0),
    r.head.map((c) => `${runLink(c, opts.links)} ${outcomeText(c)}`).join(", ") || "—",
  ]);
  out.push(markdownTable([header, ...rows], { align: ["l", "c", "c", "r", "r", "r", "r", "l"] }));
  out.push("");
  out.push(
    `${MEDAL_ICON.gold} gold ${MEDAL_ICON.silver} silver ${MEDAL_ICON.bronze} bronze · no medal ⚠ not comparable (infrastructure); one mark per seed. Scores are means over valid runs.`,
  );
  // Why the head's runs that did not complete ended: the cause, not just the word.
  const failed = cmp.competitions.flatMap((r) =>
    r.head.filter((c) => c.outcome !== "completed").map((c) => ({ id: `${r.competitionId}.s${c.seed}`, c })),
  );
  if (failed.length > 0) {
    out.push("", `**Head runs that did not complete** (${failed.length}):`, "");
    for (const { id, c } of failed.slice(0, 20))
      out.push(`- ${cell(id)}: ${outcomeText(c)}${c.error ? ` — \`${c.error.replace(/`/g, "'")}\`` : ""}`);
    if (failed.length > 20) out.push(`- … and ${failed.length - 20} more (see results.json)`);
  }

  if (a) {
    out.push("", "<details><summary>Statistics</summary>", "");
    const metricRows = [a.medal, a.percentile]
      .filter((m): m is MetricAnalysis => m !== null)
      .map((m) => [
        m.metric === "medal" ? "medal rate" : "leaderboard percentile",
        pct(m.base),
        pct(m.head),
        points(m.delta),
        interval(m) || "—",
        m.pValue < 0.001 ? "<0.001" : m.pValue.toFixed(3),
        m.mde === null ? "—" : points(-m.mde).replace("−", ""),
        m.verdict,
      ]);
    out.push(
      markdownTable([
        ["Metric", "Base", "Head", "Δ", "Interval", "p (one-sided)", "MDE", "Verdict"],
        ...metricRows,
      ]),
    );
    out.push("");
    out.push(
      `Probability that a drop of this size is flagged \`regressed\` (α = ${a.alpha}; medal rate: ${a.medal.powerMethod}${a.percentile ? `, percentile: ${a.percentile.powerMethod}` : ""}):`,
    );
    out.push("");
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
      `Paired by competition: ${a.medal.competitions} competitions, ${a.medal.baseRuns} base and ${a.medal.headRuns} head runs; p-value ${a.medal.pValueMethod} permutation test within competitions.`,
    );
    out.push("", "</details>");
  }

  out.push("", "<details><summary>Cost and time</summary>", "");
  out.push(
    markdownTable([
      ["", "Base", "Head"],
      ["Agent", cell(b.agent), cell(h.agent)],
      ["Runs (comparable)", `${b.runs} (${b.comparable})`, `${h.runs} (${h.comparable})`],
      ["Valid submissions", pct(b.validRate, 0), pct(h.validRate, 0)],
      ["Above median", pct(b.aboveMedianRate, 0), pct(h.aboveMedianRate, 0)],
      ["Agent time", duration(b.durationMs), duration(h.durationMs)],
      [
        "Cost",
        b.dollars === null ? "—" : `$${b.dollars.toFixed(2)}`,
        h.dollars === null ? "—" : `$${h.dollars.toFixed(2)}`,
      ],
    ]),
  );
  out.push("", "</details>");

  const env = { ...opts.environment, "suite hash": cmp.suiteHash, medalist: VERSION };
  const facts = Object.entries(env)
    .filter(([, v]) => v !== null && v !== undefined && v !== "")
    .map(([k, v]) => `${k}: \`${v}\``);
  out.push("", `<sub>${facts.join(" · ")}</sub>`);
  if (opts.fullReportUrl) out.push("", `[Full report](${opts.fullReportUrl})`);
  return out.join("\n") + "\n";
}

/** A report for one suite run without a baseline (`medalist report RESULTS.json`). */
export function renderResults(s: SuiteResults, opts: ReportOptions = {}): string {
  const sum = summarize(s);
  const out: string[] = [];
  out.push(`## Medalist · ${cell(s.suite.name)} · ${cell(s.label)}`);
  out.push("");
  out.push(
    `**Medal rate ${pct(sum.medalRate)}** (${sum.medals}/${sum.comparable}: ${sum.gold} gold, ${sum.silver} silver, ${sum.bronze} bronze) · valid submissions ${pct(sum.validRate, 0)} · above median ${pct(sum.aboveMedianRate, 0)}` +
      (sum.infraErrors ? ` · ${sum.infraErrors} not comparable (infrastructure)` : ""),
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
      cell(c.error ?? ""),
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
    `<sub>agent: \`${s.agent.description}\` · executor: \`${s.environment.executor}\` · time limit: \`${s.environment.timeLimitSecs}s\` · suite hash: \`${s.suite.hash}\` · medalist: \`${s.medalistVersion}\`</sub>`,
  );
  return out.join("\n") + "\n";
}
