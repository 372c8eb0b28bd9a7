// The percentile claims' stress corners (issue 30), printed by the stress section of bench/adaptive.ts.
// Every corner's true mean drop equals its tolerance, so each claim is wrong whenever it is made. The
// percentile claims are analysed once, on the runs a suite ended with: these are the fixed design's.
import { makeRng } from "../src/stats/distributions.js";
import { analyzeMetric, type CompetitionSample } from "../src/stats/stats.js";

export interface PercentileCorner {
  name: string;
  tol: number;
  m: number;
  make: (rng: () => number, i: number) => CompetitionSample;
}

const rep = (k: number, f: () => number) => Array.from({ length: k }, f);
const side = (f: () => number) => rep(3, f);

export const PERCENTILE_CORNERS: PercentileCorner[] = [
  {
    name: "22 × 3, every base run at the 90th percentile 5% of the time → never, tolerance 4.5 pts",
    tol: 0.045,
    m: 22,
    make: (rng, i) => ({
      competitionId: `c${i}`,
      base: side(() => (rng() < 0.05 ? 0.9 : 0)),
      head: [0, 0, 0],
    }),
  },
  {
    name: "22 × 3, 16 at 50% ± 1 pt unchanged, 6 at 90% 18.3% of the time → never, tolerance 4.5 pts",
    tol: 0.045,
    m: 22,
    make: (rng, i) => ({
      competitionId: `c${i}`,
      base: side(() => (i < 16 ? 0.49 + 0.02 * rng() : rng() < 0.1833 ? 0.9 : 0)),
      head: side(() => (i < 16 ? 0.49 + 0.02 * rng() : 0)),
    }),
  },
  {
    name: "22 × 3, 11 always at 95% → 90% of the time, 11 never, tolerance 4.75 pts",
    tol: 0.0475,
    m: 22,
    make: (rng, i) => ({
      competitionId: `c${i}`,
      base: side(() => (i < 11 ? 0.95 : 0)),
      head: side(() => (i < 11 && rng() < 0.9 ? 0.95 : 0)),
    }),
  },
  {
    name: "22 × 3, 11 always at 50% → 90% of the time, 11 never, tolerance 2.5 pts",
    tol: 0.025,
    m: 22,
    make: (rng, i) => ({
      competitionId: `c${i}`,
      base: side(() => (i < 11 ? 0.5 : 0)),
      head: side(() => (i < 11 && rng() < 0.9 ? 0.5 : 0)),
    }),
  },
  {
    name: "75 × 3, every base run at the 90th percentile 5.56% of the time → never, tolerance 5 pts",
    tol: 0.05,
    m: 75,
    make: (rng, i) => ({
      competitionId: `c${i}`,
      base: side(() => (rng() < 0.0556 ? 0.9 : 0)),
      head: [0, 0, 0],
    }),
  },
];

/** Each corner's counts of `regressed` and `no-regression` in `suites` seeded suites (999 relabellings each). */
export function percentileStress(
  suites: number,
  corners = PERCENTILE_CORNERS,
): { corner: PercentileCorner; regressed: number; noRegression: number }[] {
  return corners.map((corner, k) => {
    const rng = makeRng(7919 * (k + 1));
    let regressed = 0;
    let noRegression = 0;
    for (let r = 0; r < suites; r++) {
      const samples = Array.from({ length: corner.m }, (_, i) => corner.make(rng, i));
      const a = analyzeMetric("percentile", samples, {
        alpha: 0.05,
        tolerance: corner.tol,
        simulations: 0,
        permutations: 999,
        seed: r + 1,
      });
      if (a.verdict === "regressed") regressed++;
      if (a.verdict === "no-regression") noRegression++;
    }
    return { corner, regressed, noRegression };
  });
}
