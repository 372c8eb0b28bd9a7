// The history-informed plan in the comment's details (its own section, kept apart from markdown.ts).
import { coveredSentence, type InformedPlan } from "../plan/informed.js";

const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;

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
    `Seeds come from the base's default-branch history, counting only runs of the identity the base has now (agent code, command, environment, limits, data, grader): ${fromHistory.length} of ${plan.competitions.length} competitions had enough such runs; a competition gets more head seeds the more its base outcome varies, the rest get every seed.`,
    "",
    "| competition | base medals in its history | head seeds |",
    "| --- | --- | --- |",
    ...plan.competitions.map(
      (c) =>
        `| ${c.id} | ${c.history ? `${c.history.medals} of ${c.history.runs} runs` : "too few runs"} | ${c.covered ? "0 (covered)" : c.seeds} |`,
    ),
  ];
  if (covered.length) {
    out.push(
      "",
      `Covered by a bound from the history instead of runs (${pct(plan.alphaHistory)} of α = ${alpha} spent on these bounds, Bonferroni; the runs' analysis uses the remaining ${pct(plan.alphaRuns)} for each claim):`,
      "",
      ...covered.map((c) => `- ${coveredSentence(c.id, c.covered!)}`),
    );
  }
  out.push("", "</details>");
  return out.join("\n");
}
