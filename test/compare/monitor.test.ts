// Monitoring after every run (src/compare/monitor.ts): the boundary, the looks, the stop record.
import { describe, expect, it } from "vitest";
import { normalCdf } from "../../src/stats/distributions.js";
import {
  decideLook,
  levelAt,
  monitorDesign,
  projectedChance,
  seedMajorKey,
  SuiteMonitor,
  type LookInput,
} from "../../src/compare/monitor.js";
import type { PlannedRun } from "../../src/plan/plan.js";
import type { RunResult } from "../../src/results/schema.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";

const gate = { tolerance: 0.05, alpha: 0.05, failOn: "regression" as const, maxNotComparable: 0.1 };

describe("the boundary", () => {
  const d = monitorDesign(0.05);
  it("spends the interim share over continuous monitoring and the rest at the last look", () => {
    // P(cross c1/√t before the end) + P(last look ≥ c2) = α (reflection principle).
    const interim = 1 - normalCdf(2 * d.c1 - d.c2);
    expect(interim).toBeCloseTo(0.05 * d.interimShare, 6);
    expect(levelAt(d, 1)).toBeCloseTo(0.05 * (1 - d.interimShare), 6);
    expect(interim + levelAt(d, 1)).toBeCloseTo(0.05, 6);
  });
  it("interim levels grow with the run fraction and stay below the last look's", () => {
    const ts = [0.1, 1 / 3, 0.5, 2 / 3, 0.99];
    const ls = ts.map((t) => levelAt(d, t));
    for (let i = 1; i < ls.length; i++) expect(ls[i]).toBeGreaterThan(ls[i - 1]);
    expect(ls[ls.length - 1]).toBeLessThan(levelAt(d, 1));
    expect(levelAt(d, 1 / 3)).toBeLessThan(0.001);
  });
  it("the projected chance is high far past the boundary and low far short of it", () => {
    expect(projectedChance(d, 0.5, 4)).toBeGreaterThan(0.99);
    expect(projectedChance(d, 0.5, -1)).toBeLessThan(0.01);
    expect(projectedChance(d, 1, 2)).toBe(1);
  });
});

const look = (over: Partial<LookInput>): LookInput => ({
  counts: [],
  notComparable: 0,
  competitions: 20,
  infra: { base: 0, baseRuns: 60, head: 0, headRuns: 20 },
  t: 1 / 3,
  last: false,
  ...over,
});
const lost = Array.from({ length: 20 }, () => ({ nb: 3, xb: 3, nh: 1, xh: 0 }));
const same = Array.from({ length: 20 }, (_, i) => ({ nb: 3, xb: i % 2 ? 3 : 0, nh: 1, xh: i % 2 }));

describe("one look", () => {
  const d = monitorDesign(0.05, { futility: 0 });
  it("a head that lost every medal is `regressed` at the first look", () => {
    const out = decideLook(d, look({ counts: lost }), gate);
    expect(out.decision).toBe("regressed");
    expect(out.level).toBeCloseTo(levelAt(d, 1 / 3), 12);
  });
  it("the same evidence does not stop at a level it does not reach", () => {
    const few = lost.slice(0, 4);
    expect(decideLook(d, look({ counts: few, competitions: 4 }), gate).decision).toBe("continue");
    expect(decideLook(d, look({ counts: few, competitions: 4, last: true, t: 1 }), gate).decision).toBe(
      "regressed",
    );
  });
  it("an infra error on one competition's seed is not a lost competition; all its seeds lost is", () => {
    expect(decideLook(d, look({ counts: same, notComparable: 0 }), gate).decision).not.toBe("error");
    expect(decideLook(d, look({ counts: same.slice(2), notComparable: 3 }), gate).decision).toBe("error");
  });
  it("the infra-error test runs at the look's level, not at full α", () => {
    // 3 head infra errors in 20 runs vs none in 60: p ≈ 0.013 ≤ 5% but above the first look's level.
    const infra = { base: 0, baseRuns: 60, head: 3, headRuns: 20 };
    expect(decideLook(d, look({ counts: same, infra }), gate).decision).toBe("continue");
    expect(decideLook(d, look({ counts: same, infra, last: true, t: 1 }), gate).decision).toBe("error");
  });
  it("a look with almost no information waits instead of testing at a level of 0", () => {
    const few = look({ counts: lost.slice(0, 2), competitions: 2, t: 0.01 });
    expect(levelAt(d, 0.01)).toBe(0);
    expect(decideLook(d, few, { ...gate, maxNotComparable: 1 }).decision).toBe("continue");
  });
  it("futility stops only when neither claim is within reach", () => {
    const f = monitorDesign(0.05, { futility: 0.1 });
    const open = Array.from({ length: 20 }, (_, i) => ({
      nb: 3,
      xb: i % 3 === 0 ? 2 : 1,
      nh: 1,
      xh: i % 4 === 0 ? 1 : 0,
    }));
    const out = decideLook(f, look({ counts: open, t: 0.5 }), gate);
    expect(["futility", "continue"]).toContain(out.decision);
    expect(decideLook(f, look({ counts: lost }), gate).decision).toBe("regressed");
  });
});

describe("SuiteMonitor", () => {
  const ids = Array.from({ length: 12 }, (_, i) => `c${String(i).padStart(2, "0")}`);
  const plan: PlannedRun[] = [0, 1, 2].flatMap((seed) =>
    ids.map((id) => ({ runId: `${id}.s${seed}`, competitionId: id, seed, expectedSecs: 3600, gpus: 1 })),
  );
  const base = fakeSuite(
    "base",
    ids.flatMap((id) => [0, 1, 2].map((s) => fakeRun(id, s, "gold"))),
  );
  const ordered = [...plan].sort((a, b) => seedMajorKey(b, 3) - seedMajorKey(a, 3));

  it("orders seed 0 of every competition first", () => {
    expect(ordered.slice(0, 12).every((r) => r.seed === 0)).toBe(true);
    expect(ordered.slice(12, 24).every((r) => r.seed === 1)).toBe(true);
  });

  it("a head that lost every medal stops within seed 1; later runs are recorded, not used", () => {
    const m = new SuiteMonitor(base, plan, gate);
    const results: RunResult[] = [];
    let stoppedAt = -1;
    for (const [i, p] of ordered.entries()) {
      const r = { ...fakeRun(p.competitionId, p.seed, "none"), durationMs: 7_200_000 };
      results.push(r);
      if (m.add(r) && stoppedAt < 0) stoppedAt = i + 1;
      if (stoppedAt > 0 && i >= stoppedAt) break; // one run was in flight at the stop
    }
    expect(stoppedAt).toBeGreaterThanOrEqual(12);
    expect(stoppedAt).toBeLessThan(24);
    const cmp = m.comparison({ ...base, label: "head", runs: results });
    expect(cmp.verdict).toBe("regressed");
    expect(cmp.head.runs).toBe(stoppedAt);
    const notStarted = 36 - stoppedAt - 1;
    expect(cmp.monitor).toMatchObject({
      decision: "regressed",
      usedRuns: stoppedAt,
      plannedRuns: 36,
      notStarted,
    });
    expect(cmp.monitor!.afterStop).toEqual([ordered[stoppedAt].runId]);
    // The runs never started, 2 h each on 1 GPU (each competition's mean run time so far).
    expect(cmp.monitor!.savedHours).toBeCloseTo(2 * notStarted, 9);
    expect(cmp.monitor!.gpuHours).toBe(true);
  });

  it("no look until every competition has a comparable run or all its runs", () => {
    const m = new SuiteMonitor(base, plan, gate);
    for (const p of ordered.slice(0, 11)) m.add(fakeRun(p.competitionId, p.seed, "none"));
    expect(m.look()).toBeNull();
    m.add(fakeRun(ordered[11].competitionId, 0, "none", { outcome: "infra_error", grade: null }));
    expect(m.look()).toBeNull(); // c11 has seeds 1 and 2 still to come
    expect(m.stopped).toBe(false);
  });

  it("a suite cut short before any look is analysed once, at the last look's level", () => {
    const m = new SuiteMonitor(base, plan, gate);
    const runs = ordered.slice(0, 5).map((p) => fakeRun(p.competitionId, p.seed, "gold"));
    for (const r of runs) m.add(r);
    const cmp = m.comparison({ ...base, label: "head", runs });
    expect(cmp.monitor!.decision).toBe("continue");
    expect(cmp.monitor!.level).toBeCloseTo(levelAt(m.design, 1), 12);
    expect(cmp.verdict).toBe("error"); // 7 of 12 competitions have no head run
  });

  it("the stop sentence names the runs and the time saved, in hours or less", async () => {
    const { monitorSentence } = await import("../../src/report/verdict.js");
    const rec = {
      decision: "regressed" as const,
      level: 0.0000394,
      usedRuns: 13,
      plannedRuns: 36,
      afterStop: ["a", "b"],
      notStarted: 21,
      savedHours: 42,
      gpuHours: true,
      interimShare: 0.02,
    };
    expect(monitorSentence(rec)).toBe(
      "Monitored after every run: stopped after 13 of 36 planned head runs because `regressed` was reached at the one-sided level 0.00394% for each claim. 21 runs were not started, saving about 42.0 GPU-hours against the fixed design (each competition's mean run time so far). 2 runs in flight at the stop finished after it: kept in the results, not used by the verdict.",
    );
    expect(monitorSentence({ ...rec, savedHours: 0.01, gpuHours: false, afterStop: [] })).toContain(
      "saving about 36s of runner time against",
    );
    // seeds.inFlight: stop: the runs in flight were stopped, not finished.
    const halted = { ...rec, afterStop: [], stoppedInFlight: ["a"] };
    expect(monitorSentence(halted)).toMatch(
      /\(each competition's mean run time so far\)\. 1 run was in flight at the stop and was stopped there \(seeds\.inFlight: stop\): no result, not used by the verdict; the GPU time it had left is saved too, not counted above\.$/,
    );
    // With covered competitions the interim share is of what the bounds leave of α.
    const last = { ...rec, decision: "final" as const, afterStop: [] };
    expect(monitorSentence(last)).toContain("(2% of α was kept for the looks before it)");
    expect(monitorSentence({ ...last, alphaRuns: 0.04 })).toContain(
      "(2% of the runs' α (0.04) was kept for the looks before it)",
    );
    expect(monitorSentence({ ...halted, stoppedInFlight: ["a", "b", "c"] })).toContain(
      " 3 runs were in flight at the stop and were stopped there (seeds.inFlight: stop): no result, not used by the verdict; the GPU time they had left is saved too",
    );
  });
});
