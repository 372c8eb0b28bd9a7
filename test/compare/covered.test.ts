// Covering competitions by history bounds keeps each claim's level (simulated). Sized by
// STATS_TEST_SUITES (default 400); the bounds allow about 2.5 Monte Carlo standard errors.
import { describe, expect, it } from "vitest";
import { betaDraw, makeRng } from "../../src/stats/distributions.js";
import {
  medalVerdict,
  type ClaimTolerances,
  type Counts,
  type Levels,
  type MetricVerdict,
} from "../../src/stats/stats.js";
import { coveredTolerances, informedPlan, type InformedPlan } from "../../src/plan/informed.js";

/**
 * The verdict when some competitions are covered by history bounds, at the claim tolerances
 * compareRuns and the monitor pass to the analysis: each claim on the run competitions' counts, at
 * the tolerance that makes it a claim about the whole suite (plan/informed.ts, coveredTolerances).
 */
function coveredVerdict(
  counts: Counts[],
  plan: InformedPlan,
  levels: Levels,
  tolerance: number,
): { verdict: MetricVerdict; tolerances: ClaimTolerances } {
  const t = coveredTolerances(plan, tolerance);
  return { verdict: medalVerdict(counts, levels, t).verdict, tolerances: t };
}

const N = Number(process.env.STATS_TEST_SUITES ?? 400);
const ALPHA = 0.05;
const M = 44;
const HISTORY = 200;
// Covering needs room on both claims: at most half the tolerance on the bounds, `regressed` at
// most twice the tolerance (plan/informed.ts), so a 10-point tolerance over 44 competitions.
const TOL = 0.1;

/** Share of suites with each verdict at a drop (every rate scaled by 1 − drop/mean). */
function rates(drop: number, seed: number) {
  const rng = makeRng(seed);
  const out = { regressed: 0, "no-regression": 0, covered: 0 };
  for (let k = 0; k < N; k++) {
    // A third of the competitions are (almost) never won, as in MLE-bench's lite split.
    const p = Array.from({ length: M }, (_, i) => (i % 3 === 0 ? 0.002 : betaDraw(0.6, 0.9, rng)));
    const mean = p.reduce((a, b) => a + b, 0) / M;
    const keep = Math.max(0, 1 - drop / mean);
    const hist = p.map((pi) => {
      let x = 0;
      for (let j = 0; j < HISTORY; j++) if (rng() < pi) x++;
      return { runs: HISTORY, medals: x };
    });
    const plan = informedPlan({
      competitions: hist.map((history, i) => ({ id: `c${i}`, secs: 1, history })),
      seeds: 3,
      alpha: ALPHA,
      tolerance: TOL,
      cover: true,
    });
    out.covered += plan.competitions.filter((c) => c.covered).length;
    const counts: Counts[] = [];
    plan.competitions.forEach((c, i) => {
      if (c.covered) return;
      let xh = 0;
      for (let s = 0; s < c.seeds; s++) if (rng() < p[i] * keep) xh++;
      counts.push({ nb: hist[i].runs, xb: hist[i].medals, nh: c.seeds, xh });
    });
    const levels = { regressed: plan.alphaRuns, noRegression: plan.alphaRuns };
    const v = coveredVerdict(counts, plan, levels, TOL).verdict;
    if (v !== "inconclusive") out[v]++;
  }
  return { regressed: out.regressed / N, noRegression: out["no-regression"] / N, covered: out.covered / N };
}

describe("covering competitions by history bounds keeps each claim at α", () => {
  const slack = 2.5 * Math.sqrt((ALPHA * (1 - ALPHA)) / N);

  it("false `no-regression` at the tolerance, `regressed` at a drop equal to the tolerance", () => {
    const ten = rates(TOL, 1);
    expect(ten.covered).toBeGreaterThan(1);
    expect(ten.noRegression).toBeLessThanOrEqual(ALPHA + slack);
    const atTol = rates(TOL, 2);
    expect(atTol.regressed).toBeLessThanOrEqual(ALPHA + slack);
    // No change: covering must still allow `no-regression`.
    expect(rates(0, 3).noRegression).toBeGreaterThan(0);
  }, 120_000);
});

describe("the covered competitions enter each claim at their worst case", () => {
  // 20 competitions, a 20-point tolerance: two never-won ones covered (`regressed` then needs 33 points).
  const hist = Array.from({ length: 20 }, (_, i) => ({ runs: 400, medals: i < 4 ? 0 : 200 }));
  const plan = (cover: boolean) =>
    informedPlan({
      competitions: hist.map((history, i) => ({ id: `c${i}`, secs: 1, history })),
      seeds: 3,
      alpha: ALPHA,
      tolerance: 0.2,
      cover,
    });

  it("a clear drop on the runs is not `regressed` when the head may have gained where it did not run", () => {
    const p = plan(true);
    const run = p.competitions.filter((c) => !c.covered).length;
    expect(run).toBe(18);
    // Every run competition: base 200/400, head 80/400 (a 30-point drop).
    const counts = Array.from({ length: run }, () => ({ nb: 400, xb: 200, nh: 400, xh: 80 }));
    const levels = { regressed: p.alphaRuns, noRegression: p.alphaRuns };
    const { verdict, tolerances } = coveredVerdict(counts, p, levels, 0.2);
    expect(tolerances.regressed).toBeGreaterThan(0.3);
    expect(tolerances.regressed).toBeLessThanOrEqual(0.4);
    expect(verdict).toBe("inconclusive");
    // Nothing covered: the same runs show the drop.
    expect(coveredVerdict(counts, plan(false), levels, 0.2).verdict).toBe("regressed");
  });

  it("no change on the runs is `no-regression` once the covered bounds leave room", () => {
    const p = plan(true);
    const run = p.competitions.filter((c) => !c.covered).length;
    const counts = Array.from({ length: run }, () => ({ nb: 400, xb: 200, nh: 400, xh: 200 }));
    const levels = { regressed: p.alphaRuns, noRegression: p.alphaRuns };
    const { verdict, tolerances } = coveredVerdict(counts, p, levels, 0.2);
    expect(tolerances.noRegression).not.toBeNull();
    expect(verdict).toBe("no-regression");
  });
});
