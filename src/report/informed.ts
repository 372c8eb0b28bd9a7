// The history-informed plan in the report (its own section, kept apart from markdown.ts): the base
// side's earlier runs, and the plan's seeds in the comment's details.
import type { Comparison } from "../compare/compare.js";
import { coveredSentence, type InformedPlan } from "../plan/informed.js";

/** Earlier base runs (and medals) the analysis counted, over the compared competitions. */
export function historyCounts(cmp: Comparison): { runs: number; medals: number; competitions: number } {
  const ids = new Set(cmp.competitions.filter((r) => r.comparable).map((r) => r.competitionId));
  const rows = Object.entries(cmp.history?.competitions ?? {}).filter(([id]) => ids.has(id));
  return {
    runs: rows.reduce((a, [, c]) => a + c.runs, 0),
    medals: rows.reduce((a, [, c]) => a + c.medals, 0),
    competitions: rows.filter(([, c]) => c.runs > 0).length,
  };
}

/** What the base side of the medal analysis holds when the history adds to it; null otherwise. */
export function historySentence(cmp: Comparison): string | null {
  if (!cmp.history) return null;
  const h = historyCounts(cmp);
  if (h.runs === 0) return null;
  return `Base side of the medal analysis: the base's runs now and ${h.runs} earlier runs of the same identity (agent code, command, environment, limits, data, grader) in ${h.competitions} competition${h.competitions === 1 ? "" : "s"}, from ${cmp.history.suites} default-branch suite${cmp.history.suites === 1 ? "" : "s"}; the base medal rate and the change above count both. The infrastructure-error test, the percentiles and the per-competition tables use the base's runs now only.`;
}

/**
 * With competitions covered by a history bound: what the figures above are over, and how the
 * claims count the covered ones. Null when none is covered.
 */
export function coveredSummary(cmp: Comparison): string | null {
  const covered = cmp.competitions.filter((r) => r.covered);
  const plan = cmp.informed;
  // Without an analysis (no competition compared) there are no figures or claims to qualify.
  if (!covered.length || !plan || !cmp.analysis) return null;
  const ran = cmp.analysis.medal.competitions;
  const k = covered.length;
  return `${k} competition${k === 1 ? " was" : "s were"} covered by a bound from the base's history instead of head runs (listed in the details): the medal rates, the percentiles, the change, the interval and the power above are over the ${ran} competition${ran === 1 ? "" : "s"} compared; each claim counts the covered ones at their bound (against the head for \`no-regression\`, as possible gains for the head for \`regressed\`), of α = ${cmp.gate.alpha}, ${num(plan.alphaHistory)} spent on the bounds and ${num(plan.alphaRuns)} on the runs.`;
}

const num = (x: number) => String(+x.toPrecision(3));

/**
 * A `<details>` block: how many head runs the plan kept and why, each competition's seeds, and
 * one sentence per competition covered by a history bound. Empty when no plan was used.
 */
export function renderInformedPlan(plan: InformedPlan | null, alpha: number): string {
  if (!plan) return "";
  const covered = plan.competitions.filter((c) => c.covered);
  const fromHistory = plan.competitions.filter((c) => c.rate !== null);
  const out = [
    `<details><summary>History-informed plan: ${plan.headRuns} of ${plan.fixedRuns} head runs planned</summary>`,
    "",
    `Seeds come from the base's runs now and its default-branch history, counting only runs of the identity the base has now (agent code, command, environment, limits, data, grader): ${fromHistory.length} of ${plan.competitions.length} competitions had enough such runs; a competition gets more head seeds the more its base outcome varies, the rest get every seed. A head run lost to an infrastructure error is replaced by the competition's next seed while one is left.`,
    "",
    "| competition | base medals (runs now and history) | head seeds planned |",
    "| --- | --- | --- |",
    ...plan.competitions.map(
      (c) =>
        `| ${c.id} | ${c.history ? `${c.history.medals} of ${c.history.runs} runs` : "too few runs"} | ${c.covered ? "0 (covered)" : c.seeds} |`,
    ),
  ];
  if (covered.length) {
    out.push(
      "",
      `Covered by a bound from the history instead of runs (of α = ${alpha}, ${num(plan.alphaHistory)} is spent on these bounds, Bonferroni; the runs' analysis uses the remaining ${num(plan.alphaRuns)} for each claim):`,
      "",
      ...covered.map((c) => `- ${coveredSentence(c.id, c.covered!)}`),
    );
  }
  out.push("", "</details>");
  return out.join("\n");
}
