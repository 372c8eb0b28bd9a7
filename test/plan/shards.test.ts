import { describe, expect, it } from "vitest";
import type { PlannedRun } from "../../src/plan/plan.js";
import { durationsFrom, parseShard, shardRuns, shardsForTarget } from "../../src/plan/shards.js";
import type { SuiteResults } from "../../src/results/schema.js";

const runs = (secs: number[]): PlannedRun[] =>
  secs.map((s, i) => ({ runId: `c${i}.s0`, competitionId: `c${i}`, seed: 0, expectedSecs: s, gpus: 1 }));

describe("shard planning", () => {
  it("longest first onto the least loaded shard; every run once; the same inputs, the same shards", () => {
    const rs = runs([5, 9, 1, 7, 3, 3, 8]);
    const p = shardRuns(rs, 3);
    // 9, 8, 7 open the shards; 5 → the 7; 3 (c4) → the 8; 3 (c5) → the 9; 1 → the 11.
    expect(p.shards.map((s) => s.runIds)).toEqual([
      ["c1.s0", "c5.s0"],
      ["c6.s0", "c4.s0", "c2.s0"],
      ["c3.s0", "c0.s0"],
    ]);
    expect(p.makespanSecs).toBe(12);
    expect(p.shards.flatMap((s) => s.runIds).sort()).toEqual(rs.map((r) => r.runId).sort());
    expect(shardRuns([...rs].reverse(), 3)).toEqual(p);
  });

  it("never more shards than runs, never more than 256, never an empty shard", () => {
    expect(shardRuns(runs([1, 2]), 5).count).toBe(2);
    expect(shardRuns([], 5)).toMatchObject({ count: 0, shards: [] });
    expect(() => shardRuns(runs([1]), 257)).toThrow(/1 to 256/);
    expect(() => shardRuns(runs([1]), 0)).toThrow(/1 to 256/);
    expect(shardRuns(runs(new Array(300).fill(1)), 256).shards.every((s) => s.runIds.length > 0)).toBe(true);
  });

  it("picks the fewest shards that meet a target wall time", () => {
    const rs = runs(new Array(12).fill(3600));
    expect(shardsForTarget(rs, 10, 3 * 3600).count).toBe(4);
    expect(shardsForTarget(rs, 3, 3600).count).toBe(3); // the target cannot be met: the most allowed
  });

  it("takes durations from earlier results, capped by the time limit, ignoring infrastructure errors", () => {
    const doc = {
      runs: [
        { competitionId: "a", durationMs: 1000_000, outcome: "completed" },
        { competitionId: "a", durationMs: 3000_000, outcome: "failed" },
        { competitionId: "b", durationMs: 1, outcome: "infra_error" },
        { competitionId: "c", durationMs: 9e9, outcome: "timed_out" },
      ],
    } as unknown as SuiteResults;
    const d = durationsFrom([doc], 7200);
    expect([...d.byCompetition]).toEqual([
      ["a", 2000],
      ["c", 7200],
    ]);
  });

  it("parses i/N", () => {
    expect(parseShard("2/3")).toEqual({ index: 2, count: 3 });
    for (const bad of ["0/3", "4/3", "1/257", "x", "1/0"]) expect(parseShard(bad)).toBeNull();
  });
});
