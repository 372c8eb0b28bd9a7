// The drift check (issue 30): before the default branch's history plans a pull request's head,
// compare it with the base's current runs of the same identity. Pure.
// Null hypothesis: within each competition the history's runs and the current base runs are draws
// of the same medal rate (nothing outside the run identity changed). Exact conditional tests:
//  - per competition, Fisher's exact test (two-sided: twice the smaller tail, at most 1);
//  - overall, the current runs' total medals given each competition's total (the convolution of
//    the competitions' hypergeometric laws, two-sided the same way), which sees a drift shared by
//    all competitions that no single one can show with 3 runs.
// The check's level is split: half on the overall test, half over the competitions (Bonferroni).
// docs/statistics.md ("History drift") says what the check can and cannot see, and why the
// verdict's base side is the current runs whatever the check says.
import { convolve, hypergeometric } from "./distributions.js";

export interface DriftInput {
  id: string;
  /** Earlier runs of the current identity (deduplicated) and the medals among them. */
  history: { runs: number; medals: number };
  /** The base's current comparable runs and their medals. */
  current: { runs: number; medals: number };
}

export interface DriftCheck {
  /** Competitions with runs on both sides (the ones tested). */
  competitions: number;
  /** Earlier and current runs over the tested competitions. */
  historyRuns: number;
  currentRuns: number;
  /** Two-sided p of the overall test, and the level it was held to. */
  overallP: number;
  overallLevel: number;
  /** Level of each competition's test (Bonferroni share). */
  perLevel: number;
  /** Competitions whose own test rejects, with their p-values and rates. */
  differing: { id: string; p: number; history: number; current: number }[];
  /** The smallest per-competition p (1 when none was tested). */
  minP: number;
  /** No test rejects at its level. */
  passed: boolean;
  /** The history's and the current runs' medal rates over the tested competitions (mean of rates). */
  historyRate: number | null;
  currentRate: number | null;
}

/** Two-sided p of an exact conditional law at the observed value: twice the smaller tail, ≤ 1. */
function twoSided(law: { min: number; pmf: number[] }, observed: number): number {
  let below = 0;
  let above = 0;
  law.pmf.forEach((p, i) => {
    if (law.min + i <= observed) below += p;
    if (law.min + i >= observed) above += p;
  });
  return Math.min(1, 2 * Math.min(below, above));
}

/** The current runs' medals given the competition's total: Fisher's exact test's law. */
const lawOf = (c: DriftInput) =>
  hypergeometric(c.history.runs + c.current.runs, c.history.medals + c.current.medals, c.current.runs);

/**
 * Whether the history's medal rates agree with the current base runs', at level `level` in all
 * (half overall, half split over the competitions). Competitions without runs on both sides are
 * not tested (they add nothing to the base side either way).
 */
export function driftCheck(inputs: DriftInput[], level: number): DriftCheck {
  const tested = inputs.filter((c) => c.history.runs > 0 && c.current.runs > 0);
  const m = tested.length;
  const overallLevel = level / 2;
  const perLevel = m > 0 ? level / 2 / m : 0;
  const overallP = m
    ? twoSided(
        convolve(tested.map(lawOf)),
        tested.reduce((a, c) => a + c.current.medals, 0),
      )
    : 1;
  const per = tested.map((c) => ({
    id: c.id,
    p: twoSided(lawOf(c), c.current.medals),
    history: c.history.medals / c.history.runs,
    current: c.current.medals / c.current.runs,
  }));
  const differing = per.filter((c) => c.p <= perLevel);
  const rate = (f: (c: DriftInput) => number) => (m ? tested.reduce((a, c) => a + f(c), 0) / m : null);
  return {
    competitions: m,
    historyRuns: tested.reduce((a, c) => a + c.history.runs, 0),
    currentRuns: tested.reduce((a, c) => a + c.current.runs, 0),
    overallP,
    overallLevel,
    perLevel,
    differing,
    minP: Math.min(1, ...per.map((c) => c.p)),
    passed: overallP > overallLevel && differing.length === 0,
    historyRate: rate((c) => c.history.medals / c.history.runs),
    currentRate: rate((c) => c.current.medals / c.current.runs),
  };
}
