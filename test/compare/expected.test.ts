import { describe, expect, it } from "vitest";
import { defaultSuites, expectedCost, type CompetitionProfile } from "../../src/compare/expected.js";
import { describeCost, ratesSource } from "../../src/compare/expected-text.js";

const SUITES = Number(process.env.MEDALIST_TEST_SIM_SUITES ?? 60);

const profiles = (m: number, history: (i: number) => CompetitionProfile["history"]) =>
  Array.from({ length: m }, (_, i) => ({ id: `c${i}`, secs: 3600 * (1 + (i % 4)), history: history(i) }));

const input = (competitions: CompetitionProfile[], slots = 4) => ({
  competitions,
  seeds: 3,
  baseSeeds: 3,
  gpusPerRun: 2,
  slots,
  alpha: 0.05,
  tolerance: 0.05,
  suites: SUITES,
});

describe("expected cost: fixed vs monitored", () => {
  it("prices the fixed design exactly and never charges the monitored one more", () => {
    const c = profiles(12, () => null);
    const e = expectedCost(input(c));
    // 12 competitions: (1+2+3+4) h × 3 each, × 3 seeds × 2 GPUs.
    const fixed = 3 * 10 * 3 * 2;
    expect(e.fixed.noChange.hours).toBeCloseTo(fixed, 9);
    expect(e.fixed.noChange.hoursSe).toBe(0);
    expect(e.fixed.atTolerance.hours).toBeCloseTo(fixed, 9);
    expect(e.headRuns).toBe(36);
    for (const s of [e.monitored.noChange, e.monitored.atTolerance]) {
      expect(s.hours).toBeLessThanOrEqual(fixed + 1e-9);
      expect(s.wallSecs).toBeLessThanOrEqual(e.fixed.noChange.wallSecs + 1e-9);
      expect(s.decisive).toBeGreaterThanOrEqual(0);
    }
    // One slot: the fixed wall time is the sum of every run.
    const one = expectedCost({ ...input(c, 1), suites: 2 });
    expect(one.fixed.noChange.wallSecs).toBe(3600 * 30 * 3);
  });

  it("is deterministic and stops early where the history makes the verdict clear", () => {
    // The base never medals in 200 runs anywhere: no change leaves nothing to lose, so the
    // monitored head can rule out a drop beyond a 10-point tolerance before its last run. (Not a
    // 5-point one: the simulated base has 3 runs per competition, and 0 medals in 66 base runs
    // happen with probability 0.95^66 = 3.4% when every competition is at 5%, more than any level
    // before the last look spends; the score test sees it, the t bound alone did not.)
    const c = profiles(22, () => ({ runs: 200, medals: 0 }));
    const a = expectedCost({ ...input(c, 8), tolerance: 0.1 });
    expect(expectedCost({ ...input(c, 8), tolerance: 0.1 })).toEqual(a);
    expect(a.fromHistory).toBe(22);
    expect(a.monitored.noChange.decisive).toBeGreaterThan(0.5);
    expect(a.monitored.noChange.hours).toBeLessThan(a.fixed.noChange.hours);
  });

  it("with seeds.inFlight: stop, the runs in flight at the verdict cost only their time until it", () => {
    const c = profiles(22, () => ({ runs: 200, medals: 0 }));
    const finish = expectedCost({ ...input(c, 8), tolerance: 0.1 });
    const stop = expectedCost({ ...input(c, 8), tolerance: 0.1, stopInFlight: true });
    // The same draws and looks: the same verdicts; less GPU time and wall time where a suite stopped.
    expect(stop.monitored.noChange.decisive).toBe(finish.monitored.noChange.decisive);
    expect(stop.monitored.noChange.hours).toBeLessThan(finish.monitored.noChange.hours);
    expect(stop.monitored.noChange.wallSecs).toBeLessThan(finish.monitored.noChange.wallSecs);
    // The fixed design never stops early.
    expect(stop.fixed).toEqual(finish.fixed);
    const text = (s: boolean) =>
      describeCost(s ? stop : finish, {
        gpusPerRun: 2,
        slots: 8,
        seeds: 3,
        tolerance: 0.1,
        historyRuns: 0,
        stopInFlight: s,
      });
    expect(text(true)).toContain("adaptive: true }; runs in flight at the verdict stop there), no change:");
    expect(text(false)).toContain("runs in flight at the verdict finish), no change:");
  });

  it("with seeds.cover, prices the covered plan: fewer head runs, and says how many are covered", () => {
    // 20 competitions with 400 runs each, 4 never won; a 20-point tolerance leaves room for two bounds.
    const c = profiles(20, (i) => ({ runs: 400, medals: i < 4 ? 0 : 200 }));
    const base = { ...input(c, 8), tolerance: 0.2, minRuns: 20 };
    const plain = expectedCost(base);
    const covered = expectedCost({ ...base, cover: true });
    expect(plain.informed!.covered).toBe(0);
    expect(covered.informed!.covered).toBe(2);
    expect(covered.informed!.headRuns).toBe(plain.informed!.headRuns - 2);
    const text = describeCost(covered, {
      gpusPerRun: 2,
      slots: 8,
      seeds: 3,
      tolerance: 0.2,
      historyRuns: 8000,
    });
    expect(text).toContain("2 competitions covered by a history bound (seeds.cover)");
  });

  it("simulates fewer suites for large suites, never fewer than 40", () => {
    expect(defaultSuites(66)).toBe(182);
    expect(defaultSuites(9)).toBe(200);
    expect(defaultSuites(225)).toBe(53);
    expect(defaultSuites(10_000)).toBe(40);
  });

  it("says where the rates come from, history or the stated assumption", () => {
    const none = expectedCost({ ...input(profiles(4, () => null)), suites: 2 });
    expect(ratesSource(none, 0)).toMatch(
      /^Base medal rates are assumed to spread like MLE-bench's lite leaderboard/,
    );
    const some = expectedCost({
      ...input(profiles(4, (i) => (i < 3 ? { runs: 9, medals: 3 } : null))),
      suites: 2,
    });
    expect(ratesSource(some, 27)).toMatch(
      /history \(27 base runs .*\) for 3 of 4 competitions; the rest are assumed/,
    );
    const text = describeCost(some, { gpusPerRun: 2, slots: 4, seeds: 3, tolerance: 0.05, historyRuns: 27 });
    expect(text).toMatch(/Fixed 3 seeds, no change: 60\.0 GPU-hours, /);
    expect(text).toMatch(
      /Monitored after every run, a drop equal to the tolerance \(5 points\): [\d.]+ ±[\d.]+ GPU-hours/,
    );
    const cpu = describeCost(some, { gpusPerRun: 0, slots: 4, seeds: 3, tolerance: 0.05, historyRuns: 27 });
    expect(cpu).toMatch(/runner-hours/);
  });
});
