// Simulation checks of the verdict's error rates (heterogeneous agents, see bench/stats-sim.ts).
// Sized by STATS_TEST_SUITES (default 400) so each test stays well under 10 s on a loaded machine;
// the bounds allow about 2.5 Monte Carlo standard errors.
import { describe, expect, it } from "vitest";
import { simulate } from "../../bench/adaptive.js";
import { rate } from "../../bench/stats-sim.js";
import { makeRng } from "../../src/stats/distributions.js";
import { monteCarloPermutationPValue } from "../../src/stats/stats.js";

const N = Number(process.env.STATS_TEST_SUITES ?? 400);
const ALPHA = 0.05;
const slack = (p: number) => 2.5 * Math.sqrt((p * (1 - p)) / N);

describe("simulation: the verdict keeps its level", () => {
  it("false `regressed` under no change ≤ α, with tolerance 5 points and with tolerance 0 (mid-p)", () => {
    for (const [m, k] of [
      [22, 3],
      [5, 1],
    ]) {
      expect(rate(m, k, 0, "regressed", N, 1)).toBeLessThanOrEqual(ALPHA + slack(ALPHA));
      expect(rate(m, k, 0, "regressed", N, 2, 0)).toBeLessThanOrEqual(ALPHA + slack(ALPHA));
    }
  }, 30_000);

  it("at a true drop equal to the tolerance, `regressed` fires at most α (22 × 3, 75 × 3)", () => {
    for (const m of [22, 75]) {
      const r = rate(m, 3, 0.05, "regressed", N, 3);
      console.log(`regressed at drop = tolerance, ${m}×3: ${(r * 100).toFixed(1)}%`);
      expect(r).toBeLessThanOrEqual(ALPHA + slack(ALPHA));
    }
  }, 30_000);

  it("a true 10-point drop is called `no-regression` at most α of the time (5 × 1, 22 × 3)", () => {
    expect(rate(5, 1, 0.1, "no-regression", N, 4)).toBeLessThanOrEqual(ALPHA + slack(ALPHA));
    expect(rate(22, 3, 0.1, "no-regression", N, 5)).toBeLessThanOrEqual(ALPHA + slack(ALPHA));
  }, 30_000);

  it("monitoring after every run keeps α at the tolerance and does not add `error` with infra noise", () => {
    const n = Math.max(100, Math.round(N / 2));
    const cells = simulate(
      n,
      undefined,
      (_a, drop, infra) => drop === 0.05 || drop === 0.1 || infra === 0.05,
    );
    const tol = (p: number) => p + 2.5 * Math.sqrt((p * (1 - p)) / n);
    for (const c of cells) {
      const m = c.monitored.v;
      if (c.drop === 0.05) expect(m.regressed / n).toBeLessThanOrEqual(tol(ALPHA));
      if (c.drop === 0.1) expect(m["no-regression"] / n).toBeLessThanOrEqual(tol(ALPHA));
      if (c.infra === 0.05) expect(m.error).toBeLessThanOrEqual(c.fixed.v.error + 2.5 * Math.sqrt(n * 0.02));
    }
  }, 300_000);

  it("the Monte Carlo test on percentiles keeps its false-alarm rate", () => {
    const rng = makeRng(99);
    const suites = Math.max(100, Math.round(N / 2));
    let rejections = 0;
    for (let r = 0; r < suites; r++) {
      const s = Array.from({ length: 22 }, (_, i) => {
        const c = rng();
        const draw = () =>
          Array.from({ length: 3 }, () => Math.min(1, Math.max(0, c + 0.15 * (rng() - 0.5))));
        return { competitionId: `c${i}`, base: draw(), head: draw() };
      });
      if (monteCarloPermutationPValue(s, 199, r) <= ALPHA) rejections++;
    }
    expect(rejections / suites).toBeLessThanOrEqual(ALPHA + 2.5 * Math.sqrt((ALPHA * (1 - ALPHA)) / suites));
  }, 30_000);
});
