// Futility must judge each claim as its test does (issue 30): with the score test deciding the
// medal claims, a futility projection from the t bound's wider standard error stopped suites whose
// drop the last look would have flagged. A 10% agent losing every medal (a 20-point drop cell of
// bench/adaptive.ts, where the drop is capped at each suite's own rate), seeded; sized by
// MEDALIST_STATS_SIM (default 300 → 150 suites here).
import { describe, expect, it } from "vitest";
import { simulate } from "../../bench/adaptive.js";

const N = Math.max(100, Math.round(Number(process.env.MEDALIST_STATS_SIM ?? 300) / 2));

describe("simulation: monitoring keeps the fixed design's `regressed` where the score test sees the drop", () => {
  it("10% agent, 20-point drop: monitored `regressed` within 5 points of fixed 3 seeds on the same draws", () => {
    const [cell] = simulate(
      N,
      undefined,
      (agent, drop, infra) => agent === 0.1 && drop === 0.2 && infra === 0,
    );
    const fixed = cell.fixed.v.regressed / N;
    const monitored = cell.monitored.v.regressed / N;
    console.log(
      `regressed: fixed ${(100 * fixed).toFixed(1)}%, monitored ${(100 * monitored).toFixed(1)}% (${N} suites)`,
    );
    expect(fixed).toBeGreaterThan(0.15);
    expect(monitored).toBeGreaterThanOrEqual(fixed - 0.05);
  }, 240_000);
});
