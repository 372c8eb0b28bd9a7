// Simulation checks of the test's false-alarm rate and its power, for the design MLE-bench
// lite uses: 22 competitions × 3 seeds per side.
import { describe, expect, it } from "vitest";
import { makeRng } from "../../src/compare/distributions.js";
import {
  analyzeMetric,
  exactPermutationPValue,
  monteCarloPermutationPValue,
  type CompetitionSample,
} from "../../src/compare/stats.js";

const M = 22;
const SEEDS = 3;
const ALPHA = 0.05;

/** Per-competition medal probabilities of a plausible agent: many hard competitions, some easy. */
function rates(rng: () => number): number[] {
  return Array.from({ length: M }, () => {
    const u = rng();
    return u < 0.4 ? 0.02 : u < 0.7 ? 0.25 : u < 0.9 ? 0.6 : 0.95;
  });
}

function draw(p: number[], q: number[], rng: () => number): CompetitionSample[] {
  return p.map((pi, i) => ({
    competitionId: `c${i}`,
    base: Array.from({ length: SEEDS }, () => (rng() < pi ? 1 : 0)),
    head: Array.from({ length: SEEDS }, () => (rng() < q[i] ? 1 : 0)),
  }));
}

describe("simulation: 22 competitions × 3 seeds", () => {
  it("false-alarm rate of the test and of the `regressed` verdict stays at or below alpha", () => {
    const rng = makeRng(2024);
    const suites = 4000;
    let rejections = 0;
    for (let r = 0; r < suites; r++) {
      const p = rates(rng);
      if (exactPermutationPValue(draw(p, p, rng)) <= ALPHA) rejections++;
    }
    const rate = rejections / suites;
    // Monte Carlo error of a rate near 0.05 over 4000 suites is ≈ 0.0034; allow 2 SE.
    console.log(`false-alarm rate (test, α = ${ALPHA}): ${rate.toFixed(4)} over ${suites} null suites`);
    expect(rate).toBeLessThanOrEqual(ALPHA + 0.007);

    // The full verdict (test + tolerance + interval); power is not needed for it.
    let regressed = 0;
    const verdictSuites = 2000;
    for (let r = 0; r < verdictSuites; r++) {
      const p = rates(rng);
      const a = analyzeMetric("medal", draw(p, p, rng), {
        alpha: ALPHA,
        tolerance: 0.05,
        seed: r,
        simulations: 0,
      });
      if (a.verdict === "regressed") regressed++;
    }
    console.log(
      `false-alarm rate (verdict "regressed"): ${(regressed / verdictSuites).toFixed(4)} over ${verdictSuites}`,
    );
    // SE ≈ 0.005 over 2000 suites; allow 2 SE.
    expect(regressed / verdictSuites).toBeLessThanOrEqual(ALPHA + 0.01);
  });

  it("reports power for drops of 5, 10 and 20 points, increasing with the drop", () => {
    const rng = makeRng(7);
    const p = rates(rng);
    const observed = draw(p, p, rng);
    const a = analyzeMetric("medal", observed, { alpha: ALPHA, tolerance: 0.05, seed: 1, simulations: 1000 });
    const line = a.power.map(
      (x) => `${x.drop * 100} pts: ${x.power === null ? "n/a" : (x.power * 100).toFixed(0) + "%"}`,
    );
    console.log(
      `base rate ${(a.base * 100).toFixed(1)}%; power ${line.join(", ")}; MDE ${a.mde === null ? "n/a" : (a.mde * 100).toFixed(1) + " pts"}`,
    );
    const [p5, p10, p20] = a.power.map((x) => x.power ?? 1);
    expect(p5).toBeLessThan(p10);
    expect(p10).toBeLessThan(p20);
    expect(p5).toBeGreaterThan(ALPHA - 0.03);
    if (a.mde !== null) {
      expect(a.mde).toBeGreaterThan(0.05);
      expect(a.mde).toBeLessThan(0.4);
    }
  });

  it("the Monte Carlo test on percentiles keeps its false-alarm rate too", () => {
    const rng = makeRng(99);
    const suites = 600;
    let rejections = 0;
    for (let r = 0; r < suites; r++) {
      const centre = Array.from({ length: M }, () => rng());
      const draw1 = () => Array.from({ length: SEEDS }, (_, j) => j);
      const s = centre.map((c, i) => ({
        competitionId: `c${i}`,
        base: draw1().map(() => Math.min(1, Math.max(0, c + 0.15 * (rng() - 0.5)))),
        head: draw1().map(() => Math.min(1, Math.max(0, c + 0.15 * (rng() - 0.5)))),
      }));
      if (monteCarloPermutationPValue(s, 499, r) <= ALPHA) rejections++;
    }
    console.log(
      `false-alarm rate (percentile, Monte Carlo): ${(rejections / suites).toFixed(4)} over ${suites}`,
    );
    // SE ≈ 0.009 over 600 suites; allow 2 SE.
    expect(rejections / suites).toBeLessThanOrEqual(ALPHA + 0.018);
  });
});
