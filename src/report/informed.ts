// The history-informed plan in the report (its own section, kept apart from markdown.ts): the base
// side's earlier runs, and the plan's seeds in the comment's details.
import type { Comparison, HistoryCheck } from "../compare/compare.js";
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

/**
 * What the history did: the drift check's sentence when the history-informed plan was considered,
 * or what the base side of the medal analysis holds when earlier runs were added to it; null otherwise.
 */
export function historySentence(cmp: Comparison): string | null {
  if (cmp.historyCheck)
    return checkSentence(cmp.historyCheck, cmp.informed?.competitions.filter((c) => c.covered).length ?? 0);
  if (!cmp.history) return null;
  const h = historyCounts(cmp);
  if (h.runs === 0) return null;
  return `Base side of the medal analysis: the base's runs now and ${h.runs} earlier runs of the same identity (agent code, command, environment, limits, data, grader) in ${h.competitions} competition${h.competitions === 1 ? "" : "s"}, from ${cmp.history.suites} default-branch suite${cmp.history.suites === 1 ? "" : "s"}; the base medal rate and the change above count both. The infrastructure-error test, the percentiles and the per-competition tables use the base's runs now only.`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const pct1 = (x: number | null) => (x === null ? "n/a" : `${(x * 100).toFixed(1)}%`);

/**
 * A p-value with enough digits that it reads on the same side of `level` as it is (p ≤ level or
 * p > level), however close the two are.
 */
export function pBeside(p: number, level: number): string {
  for (let d = 2; d < 15; d++) {
    const shown = Number(p.toPrecision(d));
    if (p <= level ? shown <= level : shown > level) return String(shown);
  }
  return String(p);
}

/**
 * The drift check in one paragraph: how many earlier runs (each counted once), against how many
 * current base runs, what the tests found at which levels, and what the history was used for.
 */
export function checkSentence(c: HistoryCheck, covered = 0): string {
  const m = c.competitions;
  const share = `${num(c.perLevel * m)}/${m}`;
  const copies =
    c.copies > 0
      ? ` (each run counted once: ${plural(c.copies, "more recorded run")} ${c.copies === 1 ? "was a copy" : "were copies"} of runs counted already, reused by identity)`
      : "";
  const tests = `exact tests of equal medal rates, overall at ${num(c.overallLevel)} and each competition at ${share}`;
  const head = `History: ${plural(c.historyRuns, "earlier run")} of the base's current identity in ${plural(m, "competition")}, from ${plural(c.suites, "default-branch suite")}${copies}, checked against the base's ${plural(c.currentRuns, "current run")} (${tests}):`;
  if (c.used)
    return `${head} no drift detected (overall p = ${pBeside(c.overallP, c.overallLevel)} > ${num(c.overallLevel)}; smallest competition p = ${pBeside(c.minP, c.perLevel)} > ${share}). ${
      covered
        ? `Used to plan the head's seeds and their order, and to cover ${plural(covered, "competition")} by a bound from the history (such a bound assumes no drift); the competitions the head ran are compared with the base's current runs.`
        : "Used to plan the head's seeds and their order only: the change, the interval and the verdict compare the head with the base's current runs, so a drift the check cannot see does not bias them."
    }`;
  const where: string[] = [];
  if (c.overallP <= c.overallLevel)
    where.push(
      `overall (history ${pct1(c.historyRate)}, current runs ${pct1(c.currentRate)}, mean over competitions; p = ${pBeside(c.overallP, c.overallLevel)} ≤ ${num(c.overallLevel)})`,
    );
  for (const d of c.differing)
    where.push(
      `on ${d.id} (history ${pct1(d.history)}, current runs ${pct1(d.current)}; p = ${pBeside(d.p, c.perLevel)} ≤ ${share})`,
    );
  return `${head} it differs from the current runs ${where.join(" and ")}: not used; the head was planned as without a history (every seed, monitored after every run) and compared with the base's current runs.`;
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
    `Seeds come from the base's earlier default-branch runs of the identity it has now (agent code, command, environment, limits, data, grader), each run counted once: ${fromHistory.length} of ${plan.competitions.length} competitions had enough such runs (the base's runs now count toward seeds.historyRuns); a competition gets more head seeds the more its base outcome varies, the rest get every seed. A head run lost to an infrastructure error is replaced by the competition's next seed while one is left.`,
    "",
    "| competition | base medals in earlier runs of its identity | head seeds planned |",
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

/**
 * `baseline: run` with monitoring: how far the base ran, paired seed by seed with the head
 * (session/paired.ts). Null when the base was not paired.
 */
export function pairedSentence(cmp: Comparison): string | null {
  const p = cmp.paired;
  if (!p) return null;
  const left = p.plannedBaseRuns - p.baseRuns;
  const ran =
    p.baseSeeds < p.seeds
      ? `no further seed started on either side once the head's verdict was reached: the base ran ${p.baseSeeds} of ${p.seeds} seeds (${p.baseRuns} of ${p.plannedBaseRuns} base runs; ${left} not started)`
      : `the base ran all ${p.seeds} seeds (${p.baseRuns} of ${p.plannedBaseRuns} base runs)`;
  return `Base run in this job, paired with the head (baseline: run): seed by seed, each seed of every competition on the base before the head's; ${ran}.`;
}
