// Curtailment (bench/adaptive-curtail.ts, docs/statistics.md "What no design can do here"): the
// fixed design stopped once its verdict is settled must give the fixed design's verdict on every
// suite, for less, and "settled" must hold for every completion of the remaining runs.
import { describe, expect, it } from "vitest";
import { curtailed, simulateCurtail, verdictWith } from "../../bench/adaptive-curtail.js";
import { draw } from "../../bench/adaptive.js";
import { betaDraw, binomialDraw, makeRng } from "../../src/stats/distributions.js";
import { medalVerdict, type Counts } from "../../src/stats/stats.js";

// Count tables for the monotonicity check; sized by MEDALIST_STATS_SIM (default 300 → 1 500).
const TABLES = 5 * Number(process.env.MEDALIST_STATS_SIM ?? 300);
const RANK: Record<string, number> = { regressed: 0, inconclusive: 1, "no-regression": 2 };

describe("curtailment of fixed 3 seeds", () => {
  it("gives the fixed design's verdict on every suite and saves GPU-hours", () => {
    const cells = simulateCurtail(40, [0.1, 0.65], [0, 0.1]);
    for (const c of cells) {
      expect(c.differ).toBe(0);
      expect(c.curtailed.v).toEqual(c.fixed.v);
      c.curtailed.hours.forEach((h, i) => expect(h).toBeLessThanOrEqual(c.fixed.hours[i] + 1e-9));
    }
    const paid = cells.reduce((a, c) => a + c.curtailed.hours.reduce((x, y) => x + y, 0), 0);
    const full = cells.reduce((a, c) => a + c.fixed.hours.reduce((x, y) => x + y, 0), 0);
    expect(paid).toBeLessThan(full);
  });

  it("a settled verdict is the verdict of every completion of the remaining runs", () => {
    const rng = makeRng(17);
    let settled = 0;
    for (const [agent, drop] of [
      [0.1, 0],
      [0.35, 0.1],
      [0.65, 0.2],
    ])
      for (let k = 0; k < 25; k++) {
        const s = draw(agent, drop, 0, rng);
        const c = curtailed(s);
        if (!c.settledAt) continue;
        settled++;
        const { won, ran } = c.settledAt;
        for (let t = 0; t < 20; t++) {
          const xh = won.map((x, i) => x + Math.floor(rng() * (3 - ran[i] + 1)));
          expect(verdictWith(s, xh)).toBe(c.verdict);
        }
      }
    expect(settled).toBeGreaterThan(10);
  });

  it("one more head medal never moves the medal verdict toward `regressed` (what settling relies on)", () => {
    const rng = makeRng(29);
    const pick = <T>(xs: T[]) => xs[Math.floor(rng() * xs.length)];
    const levels = { regressed: 0.05, noRegression: 0.05 };
    let compared = 0;
    for (let k = 0; k < TABLES; k++) {
      const m = pick([5, 22, 75]);
      const rate = pick([0.02, 0.1, 0.35, 0.65, 0.95]);
      const ab = 1 / pick([0.1, 0.45, 0.8]) - 1;
      const tol = pick([0.025, 0.05, 0.1]);
      const keep = rng();
      const counts: Counts[] = Array.from({ length: m }, () => {
        const p = betaDraw(rate * ab, (1 - rate) * ab, rng);
        const nb = 1 + Math.floor(rng() * 3);
        const nh = 1 + Math.floor(rng() * 3);
        return { nb, xb: binomialDraw(nb, p, rng), nh, xh: binomialDraw(nh, p * keep, rng) };
      });
      const i = Math.floor(rng() * m);
      if (counts[i].xh === counts[i].nh) continue;
      const more = counts.map((c, j) => (j === i ? { ...c, xh: c.xh + 1 } : c));
      const before = medalVerdict(counts, levels, tol).verdict;
      const after = medalVerdict(more, levels, tol).verdict;
      expect(RANK[after], JSON.stringify({ tol, i, counts })).toBeGreaterThanOrEqual(RANK[before]);
      compared++;
    }
    expect(compared).toBeGreaterThan(TABLES / 2);
  });
});
