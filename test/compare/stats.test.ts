import { describe, expect, it } from "vitest";
import {
  convolve,
  hypergeometric,
  makeRng,
  normalCdf,
  normalQuantile,
  studentTQuantile,
} from "../../src/stats/distributions.js";
import {
  analyze,
  analyzeMetric,
  bounds,
  exactTest,
  fitBeta,
  exactPermutationPValue,
  monteCarloPermutationPValue,
  type CompetitionSample,
} from "../../src/stats/stats.js";

const comp = (id: string, base: number[], head: number[]): CompetitionSample => ({
  competitionId: id,
  base,
  head,
});

describe("distributions", () => {
  it("matches tabulated normal and t quantiles", () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 12);
    expect(normalCdf(1.959963985)).toBeCloseTo(0.975, 8);
    expect(normalQuantile(0.95)).toBeCloseTo(1.644854, 5);
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.7062, 3);
    expect(studentTQuantile(0.975, 2)).toBeCloseTo(4.3027, 3);
    expect(studentTQuantile(0.975, 5)).toBeCloseTo(2.5706, 3);
    expect(studentTQuantile(0.975, 21)).toBeCloseTo(2.0796, 3);
    expect(studentTQuantile(0.95, 10)).toBeCloseTo(1.8125, 3);
  });

  it("hypergeometric sums to one and convolves", () => {
    const h = hypergeometric(6, 3, 3); // 20 relabellings of 3 medals among 6 runs
    expect(h.min).toBe(0);
    expect(h.pmf.map((p) => p * 20)).toEqual([1, 9, 9, 1].map((x) => expect.closeTo(x, 9)));
    const c = convolve([h, h]);
    expect(c.pmf.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(c.pmf[0]).toBeCloseTo(1 / 400, 12);
  });

  it("the PRNG is seeded and uniform-ish", () => {
    const a = makeRng(7);
    const b = makeRng(7);
    const xs = Array.from({ length: 10000 }, () => a());
    expect(xs.slice(0, 5)).toEqual(Array.from({ length: 5 }, () => b()));
    expect(xs.reduce((s, x) => s + x, 0) / xs.length).toBeCloseTo(0.5, 1);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
  });
});

describe("permutation test, known cases", () => {
  it("one competition, all base medals, no head medals: p = 1/20", () => {
    expect(exactPermutationPValue([comp("a", [1, 1, 1], [0, 0, 0])])).toBeCloseTo(1 / 20, 12);
  });

  it("two such competitions: p = 1/400", () => {
    const s = [comp("a", [1, 1, 1], [0, 0, 0]), comp("b", [1, 1, 1], [0, 0, 0])];
    expect(exactPermutationPValue(s)).toBeCloseTo(1 / 400, 12);
  });

  it("identical sides give p well above any alpha; an improvement gives p = 1", () => {
    expect(exactPermutationPValue([comp("a", [1, 0, 1], [1, 0, 1])])).toBeGreaterThan(0.5);
    expect(exactPermutationPValue([comp("a", [0, 0, 0], [1, 1, 1])])).toBeCloseTo(1, 12);
  });

  it("unequal seeds per side: 2 base medals of 2, 0 head medals of 4 → 1/C(6,2)", () => {
    expect(exactPermutationPValue([comp("a", [1, 1], [0, 0, 0, 0])])).toBeCloseTo(1 / 15, 12);
  });

  it("Monte Carlo agrees with the exact p-value on binary data", () => {
    const s = [
      comp("a", [1, 1, 0], [0, 0, 0]),
      comp("b", [1, 1, 1], [1, 0, 0]),
      comp("c", [0, 1, 0], [0, 0, 1]),
    ];
    const exact = exactPermutationPValue(s);
    const mc = monteCarloPermutationPValue(s, 20000, 3);
    expect(mc).toBeCloseTo(exact, 2);
  });
});

describe("bounds", () => {
  const L = { regressed: 0.05, noRegression: 0.05 };
  it("are one-sided t bounds over per-competition differences, at the test's level", () => {
    // differences: -1, 0, 0, -1/3 → mean -1/3, sd = 0.4714, t(0.95, 3) = 2.3534
    const b = bounds([-1, 0, 0, -1 / 3], 0, L)!;
    const half = (2.35336 * 0.471405) / 2;
    expect(b.lower).toBeCloseTo(-1 / 3 - half, 3);
    expect(b.upper).toBeCloseTo(-1 / 3 + half, 3);
    expect(b.level).toBeCloseTo(0.9, 12);
    expect(b.floored).toBe(false);
  });

  it("never collapse: equal differences fall back on the variance floor", () => {
    const b = bounds([0, 0, 0, 0, 0], 0.01, L)!;
    expect(b.floored).toBe(true);
    expect(b.se).toBeCloseTo(0.1, 12);
    expect(b.lower).toBeLessThan(-0.2);
  });

  it("spend different levels on the two claims when asked", () => {
    const b = bounds([-0.1, 0, 0.1, 0], 0, { regressed: 0.01, noRegression: 0.05 })!;
    expect(-b.lower).toBeLessThan(b.upper);
    expect(b.level).toBeCloseTo(0.94, 12);
  });

  it("are null with a single competition", () => {
    expect(bounds([-1], 0, L)).toBeNull();
  });
});

function suite(
  m: number,
  seeds: number,
  base: (i: number) => number,
  head: (i: number) => number,
  rng: () => number,
) {
  return Array.from({ length: m }, (_, i) =>
    comp(
      `c${i}`,
      Array.from({ length: seeds }, () => (rng() < base(i) ? 1 : 0)),
      Array.from({ length: seeds }, () => (rng() < head(i) ? 1 : 0)),
    ),
  );
}

describe("verdicts", () => {
  const opts = { alpha: 0.05, tolerance: 0.05, seed: 1, simulations: 300 };

  it("a large, consistent drop is regressed", () => {
    const rates = [0.9, 0.8, 0.7, 0.6, 0.9, 0.8, 0.7, 0.6, 0.9, 0.8];
    const base = rates.map((_, i) => comp(`c${i}`, [1, 1, 1], [0, 0, 1]));
    const a = analyzeMetric("medal", base, opts);
    expect(a.delta).toBeCloseTo(-2 / 3, 9);
    expect(a.pValue).toBeLessThan(0.001);
    expect(a.verdict).toBe("regressed");
    expect(a.why).toBe("drop-beyond-tolerance");
    expect(a.interval!.upper).toBeLessThan(-0.05);
  });

  it("identical results on 22 × 3 cannot rule out a 5-point drop, on 200 × 3 they can", () => {
    const rng = makeRng(11);
    const small = suite(
      22,
      3,
      (i) => (i % 4) / 4,
      (i) => (i % 4) / 4,
      rng,
    ).map((c) => ({ ...c, head: c.base }));
    const a22 = analyzeMetric("medal", small, { ...opts, simulations: 0 });
    expect(a22.interval!.lower).toBeLessThan(-0.05);
    expect(a22.verdict).toBe("inconclusive");
    const s = suite(
      200,
      3,
      (i) => (i % 4) / 4,
      (i) => (i % 4) / 4,
      rng,
    ).map((c) => ({ ...c, head: c.base }));
    const a = analyzeMetric("medal", s, { ...opts, simulations: 0 });
    expect(a.delta).toBe(0);
    expect(a.interval!.floored).toBe(true);
    expect(a.interval!.lower).toBeGreaterThan(-0.05);
    expect(a.verdict).toBe("no-regression");
  });

  it("a noisy small suite is inconclusive", () => {
    const s = [
      comp("a", [1, 0, 1], [0, 0, 1]),
      comp("b", [0, 1, 0], [1, 0, 0]),
      comp("c", [1, 1, 0], [0, 1, 0]),
    ];
    const a = analyzeMetric("medal", s, opts);
    expect(a.verdict).toBe("inconclusive");
  });

  it("a significant drop within tolerance is not a regression", () => {
    // 100 competitions, head loses one medal in 3 runs on 8% of them → drop ≈ 2.7 points
    const s = Array.from({ length: 100 }, (_, i) =>
      i < 8 ? comp(`c${i}`, [1, 1, 1], [1, 1, 0]) : comp(`c${i}`, [1, 1, 1], [1, 1, 1]),
    );
    const a = analyzeMetric("medal", s, { ...opts, tolerance: 0.05 });
    expect(a.pValue).toBeLessThan(0.05);
    expect(a.delta).toBeGreaterThan(-0.05);
    expect(a.verdict).not.toBe("regressed");
  });

  it("no comparable competitions → inconclusive with a reason", () => {
    const a = analyzeMetric("medal", [comp("a", [], [1])], opts);
    expect(a.verdict).toBe("inconclusive");
    expect(a.competitions).toBe(0);
  });

  it("analyze covers percentiles with a Monte Carlo test and a normal-approximation power", () => {
    const rng = makeRng(5);
    const med = suite(
      22,
      3,
      () => 0.3,
      () => 0.3,
      rng,
    );
    const pct = med.map((c) => ({
      ...c,
      base: c.base.map(() => 0.5 + 0.2 * rng()),
      head: c.head.map(() => 0.2 + 0.2 * rng()),
    }));
    const a = analyze({ medals: med, percentiles: pct }, opts);
    expect(a.percentile!.pValueMethod).toBe("monte-carlo");
    expect(a.percentile!.verdict).toBe("regressed");
    expect(a.percentile!.powerMethod).toBe("normal-approximation");
    expect(a.percentile!.mde).toBeGreaterThan(0);
    expect(a.percentile!.mde).toBeLessThan(0.1);
    expect(a.medal.power.map((p) => p.drop)).toEqual([0.05, 0.1, 0.2]);
  });

  it("is deterministic for a given seed", () => {
    const rng = makeRng(9);
    const s = suite(
      22,
      3,
      () => 0.4,
      () => 0.3,
      rng,
    );
    expect(analyzeMetric("medal", s, opts)).toEqual(analyzeMetric("medal", s, opts));
  });

  it("simulations: 0 skips power and MDE", () => {
    const a = analyzeMetric("medal", [comp("a", [1, 1], [0, 0]), comp("b", [1, 0], [0, 0])], {
      ...opts,
      simulations: 0,
    });
    expect(a.power.map((p) => p.power)).toEqual([null, null, null]);
    expect(a.mde).toBeNull();
  });

  it("validates alpha and tolerance", () => {
    expect(() => analyzeMetric("medal", [], { alpha: 0, tolerance: 0.05 })).toThrow(/alpha/);
    expect(() => analyzeMetric("medal", [], { alpha: 0.5, tolerance: 0.05 })).toThrow(/alpha/);
    expect(() => analyzeMetric("medal", [], { alpha: 0.05, tolerance: 2 })).toThrow(/tolerance/);
  });
});

describe("percentile power on tiny designs", () => {
  it("reports no power when no relabelling can reach alpha", () => {
    // one competition, one run per side: the smallest p-value is 1/2
    const a = analyzeMetric("percentile", [comp("a", [0.4], [0.3])], { alpha: 0.05, tolerance: 0.05 });
    expect(a.power.every((p) => p.power === 0)).toBe(true);
    expect(a.mde).toBeNull();
  });
});

describe("empirical-Bayes rates and the mid-p", () => {
  it("fitBeta recovers the spread of heterogeneous rates and gives 'never' for a base without medals", () => {
    const rng = makeRng(21);
    // Half the competitions at 5%, half at 65%: ρ = var(p)/(μ(1−μ)) = 0.09/0.25 = 0.36.
    const xs = Array.from({ length: 400 }, (_, i) => {
      const p = i % 2 ? 0.05 : 0.65;
      let x = 0;
      for (let k = 0; k < 5; k++) if (rng() < p) x++;
      return { x, n: 5 };
    });
    const b = fitBeta(xs);
    expect(b.a / (b.a + b.b)).toBeCloseTo(0.35, 1);
    expect(1 / (b.a + b.b + 1)).toBeGreaterThan(0.28);
    expect(1 / (b.a + b.b + 1)).toBeLessThan(0.44);
    expect(
      fitBeta([
        { x: 0, n: 3 },
        { x: 0, n: 3 },
      ]).a,
    ).toBe(0);
  });

  it("mid-p counts half the probability of the observed total", () => {
    // One competition, 3 base medals of 3, 0 head of 3: P(T = 0) = 1/20, nothing below.
    const t = exactTest([{ nb: 3, xb: 3, nh: 3, xh: 0 }]);
    expect(t.p).toBeCloseTo(1 / 20, 12);
    expect(t.midP).toBeCloseTo(1 / 40, 12);
  });
});
