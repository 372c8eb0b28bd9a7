// The history-informed design (bench/adaptive.ts, plan/informed.ts) keeps each claim's level:
// `regressed` at a drop equal to the tolerance and false `no-regression` at a 10-point drop stay
// ≤ α, and infra noise adds no `error`. Sized by STATS_TEST_SUITES (default 400, halved here);
// the bounds allow about 2.5 Monte Carlo standard errors.
import { describe, expect, it } from "vitest";
import { simulate } from "../../bench/adaptive.js";

const N = Math.max(100, Math.round(Number(process.env.STATS_TEST_SUITES ?? 400) / 2));
const ALPHA = 0.05;
const tol = (p: number) => p + 2.5 * Math.sqrt((p * (1 - p)) / N);

describe("simulation: the history-informed design keeps its level", () => {
  it("at the tolerance, at a 10-point drop and with 5% infra errors", () => {
    const cells = simulate(
      N,
      undefined,
      (agent, drop, infra) => agent === 0.35 && (drop === 0.05 || drop === 0.1 || infra === 0.05),
      30,
    );
    expect(cells.length).toBe(3);
    for (const c of cells) {
      const v = c.informed!.v;
      expect(c.informed!.n).toBe(N);
      if (c.drop === 0.05) expect(v.regressed / N).toBeLessThanOrEqual(tol(ALPHA));
      if (c.drop === 0.1) expect(v["no-regression"] / N).toBeLessThanOrEqual(tol(ALPHA));
      if (c.infra === 0.05) expect(v.error).toBeLessThanOrEqual(c.fixed.v.error + 2.5 * Math.sqrt(N * 0.02));
      // It runs fewer head runs than the fixed design on every suite.
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      expect(mean(c.informed!.hours)).toBeLessThan(mean(c.fixed.hours));
    }
  }, 120_000);
});
