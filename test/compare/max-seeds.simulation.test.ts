// The monitored design with a larger maximum (`seeds: { max: 5, adaptive: true }`, issue 30's
// "savings at the default" search in bench/adaptive.ts, ADAPTIVE_MAX_SEEDS): its extra seeds are
// drawn after the first 3, so fixed 3 seeds sees the same suites whatever the maximum; the
// monitored head (and its cached base) use the extra seeds; and each claim keeps its level at a
// drop equal to the tolerance in a sparse corner. Seeded; sized by MEDALIST_STATS_SIM (default 300
// → 150 suites in the corner).
import { describe, expect, it } from "vitest";
import { simulate, stress, STRESS_CORNERS } from "../../bench/adaptive.js";
import { monitorDesign } from "../../src/compare/monitor.js";

const N = Math.max(100, Math.round(Number(process.env.MEDALIST_STATS_SIM ?? 300) / 2));
const ALPHA = 0.05;

describe("simulation: monitoring with up to 5 seeds against fixed 3 seeds", () => {
  it("a larger maximum leaves fixed 3 seeds' draws alone and runs the extra seeds on the monitored head", () => {
    const only = (agent: number, drop: number, infra: number) =>
      agent === 0.35 && drop === 0.2 && infra === 0;
    const design = monitorDesign(ALPHA, { futility: 0 });
    const [three] = simulate(40, design, only, 0, 3);
    const [five] = simulate(40, design, only, 0, 5);
    expect(five.fixed.v).toEqual(three.fixed.v);
    expect(five.fixed.hours).toEqual(three.fixed.hours);
    // Without futility, a suite the 3-seed head leaves open runs on past 66 head runs' hours.
    const longer = five.monitored.hours.filter((h, i) => h > five.fixed.hours[i] * 1.2).length;
    expect(longer).toBeGreaterThan(0);
    expect(five.monitored.hours.every((h, i) => h <= (5 / 3) * five.fixed.hours[i] * 1.5)).toBe(true);
  }, 240_000);

  it("22 × 5, every competition 5% → 0 (drop = tolerance): both claims within α + 2 standard errors", () => {
    const [cell] = stress(
      N,
      0,
      monitorDesign(ALPHA, { interimShare: 0.1, futility: 0.05 }),
      [STRESS_CORNERS[0]],
      5,
    );
    const limit = ALPHA + 2 * Math.sqrt((ALPHA * (1 - ALPHA)) / N);
    const r = cell.monitored.v.regressed / N;
    const nr = cell.monitored.v["no-regression"] / N;
    console.log(
      `max 5: regressed ${(100 * r).toFixed(1)}%, no-regression ${(100 * nr).toFixed(1)}% (${N} suites)`,
    );
    expect(r).toBeLessThanOrEqual(limit);
    expect(nr).toBeLessThanOrEqual(limit);
  }, 240_000);
});
