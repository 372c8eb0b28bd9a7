// The verdict when some competitions are covered by history bounds instead of runs (pure).
// plan/informed.ts decides which; docs/statistics.md ("The history-informed plan") says why the
// union bound keeps each claim at α: the runs' analysis at α − alphaHistory, the bounds at alphaHistory.
import { coveredTolerances, type InformedPlan } from "../plan/informed.js";
import {
  medalVerdict,
  type ClaimTolerances,
  type Counts,
  type Levels,
  type MetricVerdict,
} from "../stats/stats.js";

/**
 * Each claim on the run competitions' counts, at the tolerance that makes it a claim about the
 * whole suite (covered competitions counted against the head): `no-regression` needs the runs to
 * rule out a drop of `noRegression`; `regressed` needs a drop beyond `regressed` on them.
 */
export function coveredVerdict(
  counts: Counts[],
  plan: InformedPlan,
  levels: Levels,
  tolerance: number,
): { verdict: MetricVerdict; tolerances: ClaimTolerances } {
  const t = coveredTolerances(plan, tolerance);
  return { verdict: medalVerdict(counts, levels, t).verdict, tolerances: t };
}
