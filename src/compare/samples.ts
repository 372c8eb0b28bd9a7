// Turns two SuiteResults into the per-competition samples that stats.ts analyses.
import type { RunResult, SuiteResults } from "../results/schema.js";
import type { CompetitionSample } from "./stats.js";

export interface PairedSamples {
  medals: CompetitionSample[];
  percentiles: CompetitionSample[];
  /** Competitions left out of the comparison, with the reason. */
  notComparable: { competitionId: string; reason: string }[];
  /** Runs left out because the infrastructure failed (never the agent's fault). */
  infraErrors: { side: "base" | "head"; runId: string; competitionId: string }[];
}

/** A run counts unless the infrastructure failed; a missing or invalid submission counts as no medal. */
function comparable(run: RunResult): boolean {
  return run.outcome !== "infra_error";
}

const medalOf = (run: RunResult) => (run.grade?.any_medal ? 1 : 0);
/** Percentile of the leaderboard beaten; a run with no valid score beat nobody. */
const percentileOf = (run: RunResult) => run.grade?.percentile ?? 0;

/** Pairs runs by competition; only competitions present with comparable runs on both sides are kept. */
export function pairSamples(base: SuiteResults, head: SuiteResults): PairedSamples {
  const out: PairedSamples = { medals: [], percentiles: [], notComparable: [], infraErrors: [] };
  for (const [side, results] of [
    ["base", base],
    ["head", head],
  ] as const) {
    for (const r of results.runs) {
      if (!comparable(r)) out.infraErrors.push({ side, runId: r.runId, competitionId: r.competitionId });
    }
  }
  const ids = [...new Set([...base.runs, ...head.runs].map((r) => r.competitionId))].sort();
  for (const id of ids) {
    const b = base.runs.filter((r) => r.competitionId === id && comparable(r));
    const h = head.runs.filter((r) => r.competitionId === id && comparable(r));
    const onBase = base.runs.some((r) => r.competitionId === id);
    const onHead = head.runs.some((r) => r.competitionId === id);
    if (!onBase || !onHead) {
      out.notComparable.push({ competitionId: id, reason: `only run on the ${onBase ? "base" : "head"} side` });
      continue;
    }
    if (b.length === 0 || h.length === 0) {
      out.notComparable.push({
        competitionId: id,
        reason: `no run finished without an infrastructure error on the ${b.length === 0 ? "base" : "head"} side`,
      });
      continue;
    }
    out.medals.push({ competitionId: id, base: b.map(medalOf), head: h.map(medalOf) });
    out.percentiles.push({ competitionId: id, base: b.map(percentileOf), head: h.map(percentileOf) });
  }
  return out;
}
