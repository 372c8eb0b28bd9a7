// The medal claims' score test (src/stats/score.ts) where the t bound alone fails: sparse medals.
import { describe, expect, it } from "vitest";
import { makeRng } from "../../src/stats/distributions.js";
import { discreteness, restrictedVariance, tiltedRate } from "../../src/stats/score.js";
import { analyzeMetric, medalTBounds, type CompetitionSample, type Counts } from "../../src/stats/stats.js";

const L = { regressed: 0.05, noRegression: 0.05 };

/** 22 competitions × 3 seeds with the first `baseMedals` base runs and `headMedals` head runs won. */
function suite(baseMedals: number, headMedals: number): CompetitionSample[] {
  return Array.from({ length: 22 }, (_, i) => ({
    competitionId: `c${i}`,
    base: [0, 1, 2].map((k) => (i * 3 + k < baseMedals ? 1 : 0)),
    head: [0, 1, 2].map((k) => (i * 3 + k < headMedals ? 1 : 0)),
  }));
}

const analyzed = (s: CompetitionSample[], tolerance: number) =>
  analyzeMetric("medal", s, { alpha: 0.05, tolerance, simulations: 0 });

describe("the score test on sparse medals", () => {
  it("base 1/66 against head 0/66 does not rule out a 5-point drop", () => {
    // Every competition at 5% on the base and 0 on the head (a drop of exactly 5 points) gives at
    // most one base medal in 66 runs with probability 0.95^66 + 66·0.05·0.95^65 > 15%.
    expect(0.95 ** 66 + 66 * 0.05 * 0.95 ** 65).toBeGreaterThan(0.15);
    const a = analyzed(suite(1, 0), 0.05);
    expect(a.verdict).toBe("inconclusive");
    expect(a.why).toBe("open");
    expect(a.interval!.lower).toBeLessThanOrEqual(-0.05);
    expect(a.interval!.method).toBe("score");
    // The t bound alone (the verdict before the score test) said `no-regression` here.
    expect(medalTBounds(suite(1, 0).map(counts), L)!.lower).toBeGreaterThan(-0.05);
  });

  it("0/66 against 0/66 rules out 5 points (0.95^66 < 5%) but not 2.5 points (0.975^66 > 5%)", () => {
    expect(0.95 ** 66).toBeLessThan(0.05);
    expect(0.975 ** 66).toBeGreaterThan(0.05);
    const five = analyzed(suite(0, 0), 0.05);
    expect(five.verdict).toBe("no-regression");
    expect(five.interval!.lower).toBeGreaterThan(-0.05);
    const half = analyzed(suite(0, 0), 0.025);
    expect(half.verdict).toBe("inconclusive");
    expect(half.interval!.lower).toBeLessThanOrEqual(-0.025);
    // Its lower bound is where 0 medals in 66 runs at a spread rate has probability 5%: 1 − 0.05^(1/66).
    expect(-half.interval!.lower).toBeCloseTo(1 - 0.05 ** (1 / 66), 2);
  });

  it("the printed bounds lie beyond the tolerance exactly when the claim holds", () => {
    const rng = makeRng(5);
    let claims = 0;
    for (let r = 0; r < 150; r++) {
      const m = 5 + Math.floor(rng() * 30);
      const rate = rng() * rng();
      const drop = rng() * 0.1;
      const s: CompetitionSample[] = Array.from({ length: m }, (_, i) => {
        const p = rng() < 0.5 ? rate : rng();
        const nb = 1 + Math.floor(rng() * 4);
        return {
          competitionId: `c${i}`,
          base: Array.from({ length: nb }, () => (rng() < p ? 1 : 0)),
          head: Array.from({ length: 3 }, () => (rng() < Math.max(0, p - drop) ? 1 : 0)),
        };
      });
      for (const tol of [0.025, 0.05]) {
        const a = analyzed(s, tol);
        if (!a.interval) continue;
        expect(a.verdict === "no-regression").toBe(a.interval.lower > -tol);
        if (a.verdict === "regressed") expect(a.interval.upper).toBeLessThan(-tol);
        if (a.verdict !== "inconclusive") claims++;
      }
    }
    expect(claims).toBeGreaterThan(10);
  });

  it("the continuity correction: a quarter step with one run a side, none with three or more", () => {
    const design = (m: number, nb: number, nh: number): Counts[] =>
      Array.from({ length: m }, () => ({ nb, xb: 0, nh, xh: 0 }));
    // The estimate moves in steps of 1/(m·n) with n runs a side.
    expect(discreteness(design(22, 1, 1))).toBeCloseTo(1 / (4 * 22), 12);
    expect(discreteness(design(22, 2, 2))).toBeCloseTo(1 / (16 * 22), 12);
    expect(discreteness(design(22, 3, 1))).toBeCloseTo(1 / (8 * 22), 12);
    expect(discreteness(design(22, 3, 3))).toBe(0);
    expect(discreteness(design(22, 30, 5))).toBe(0);
    // A competition's weight counts once in m: one single-run competition among 22 full ones.
    const mixed = [...design(21, 3, 3), { nb: 1, xb: 0, nh: 1, xh: 0 }];
    expect(discreteness(mixed)).toBeCloseTo(1 / (4 * 22 * 22), 12);
    expect(discreteness([])).toBe(0);
  });

  it("the restricted rates meet the null and maximize each side's likelihood", () => {
    // tiltedRate maximizes x log p + (n − x) log(1 − p) + lam·p: its derivative is 0 there.
    for (const [n, x, lam] of [
      [3, 1, 2],
      [3, 0, 5],
      [30, 29, -4],
      [1, 1, -0.5],
    ]) {
      const p = tiltedRate(n, x, lam);
      const grad = (x > 0 ? x / p : 0) - (n - x) / (1 - p) + lam;
      if (p > 0 && p < 1) expect(Math.abs(grad)).toBeLessThan(1e-6);
    }
    expect(tiltedRate(3, 0, 2)).toBe(0); // no pull strong enough to leave 0
    expect(tiltedRate(3, 0, 6)).toBeCloseTo(0.5, 12); // 1 − n/lam
    // At the unrestricted estimate the variance is the plug-in binomial variance.
    const c: Counts[] = [
      { nb: 3, xb: 1, nh: 3, xh: 2 },
      { nb: 3, xb: 3, nh: 3, xh: 0 },
    ];
    const est = (2 / 3 - 1 / 3 + 0 - 1) / 2;
    const plug = ((1 / 3) * (2 / 3) * 2) / 3 / 4;
    expect(restrictedVariance(c, est)).toBeCloseTo(plug, 9);
    // Under a drop the data do not show, 0/3 vs 0/3 has a variance (the drop's), not 0.
    expect(restrictedVariance([{ nb: 3, xb: 0, nh: 3, xh: 0 }], -0.05)).toBeGreaterThan(0.01);
  });

  it("a competition's scale multiplies its own variance term only (the percentiles' per-competition dispersion)", () => {
    // At the unrestricted estimate each term is its plug-in variance, so the scales weight them.
    const c: Counts[] = [
      { nb: 3, xb: 1, nh: 3, xh: 2 },
      { nb: 3, xb: 2, nh: 3, xh: 2 },
    ];
    const est = (2 / 3 - 1 / 3 + 0) / 2;
    const term = ((1 / 3) * (2 / 3) * 2) / 3; // each competition: p(1 − p)/3 on each side
    const v = (a: number, b: number) =>
      restrictedVariance(c, est, [
        { a: 0, b: 0, scale: a },
        { a: 0, b: 0, scale: b },
      ]);
    expect(v(1, 1)).toBeCloseTo((2 * term) / 4, 9);
    expect(v(0.25, 1)).toBeCloseTo((1.25 * term) / 4, 9);
    expect(v(1, 0)).toBeCloseTo(term / 4, 9);
  });
});

function counts(s: CompetitionSample): Counts {
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  return { nb: s.base.length, xb: sum(s.base), nh: s.head.length, xh: sum(s.head) };
}
