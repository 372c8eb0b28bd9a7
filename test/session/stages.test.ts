import { describe, expect, it } from "vitest";
import { validateConfig } from "../../src/config/load.js";
import { stageOfSeed, stageSeeds } from "../../src/plan/stages.js";
import type { SuiteResults } from "../../src/results/schema.js";
import { monitorSentence } from "../../src/report/verdict.js";
import { openSession } from "../../src/session/input.js";
import { describePlan, planShards } from "../../src/session/shards.js";
import { mergeStages, stageDecision, stagedComparison } from "../../src/session/stages.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";

describe("stage seeds", () => {
  it("split the seeds into contiguous blocks, every seed in exactly one stage", () => {
    expect([1, 2, 3].map((k) => stageSeeds(3, 3, k))).toEqual([[0], [1], [2]]);
    expect([1, 2].map((k) => stageSeeds(5, 2, k))).toEqual([
      [0, 1],
      [2, 3, 4],
    ]);
    for (const [seeds, stages] of [
      [7, 3],
      [4, 4],
      [10, 1],
    ])
      for (let s = 0; s < seeds; s++)
        expect(stageSeeds(seeds, stages, stageOfSeed(seeds, stages, s))).toContain(s);
  });
});

// The monitor of src/compare/monitor.ts, fed one stage at a time (one look per stage end).
describe("stagedComparison", () => {
  const config = validateConfig(
    { competitions: { split: "lite" }, seeds: { max: 3, adaptive: true }, agent: { command: "x" } },
    "/tmp/medalist.yml",
  );
  const session = openSession(config, "/tmp");
  const ids = session.plan.competitions;
  const like = (label: string, runs: SuiteResults["runs"], shard?: { index: number; count: number }) => {
    const s = fakeSuite(label, runs, session.plan.suiteHash);
    s.suite = { name: config.name, hash: session.plan.suiteHash, competitions: ids, seeds: 3 };
    if (shard) s.shard = { ...shard, runIds: runs.map((r) => r.runId) };
    return s;
  };
  // The base medals on every even-numbered competition, on every seed.
  const medalOf = (i: number, seed = 0) => ((i + seed) % 2 === 0 ? "gold" : "none");
  const base = like(
    "base",
    ids.flatMap((id, i) => [0, 1, 2].map((s) => fakeRun(id, s, medalOf(i, s)))),
  );
  /** Stage k's results as two shards (its seed of every competition). */
  const stage = (k: number, medal: (i: number, k: number) => string) => {
    const runs = ids.map((id, i) => fakeRun(id, k - 1, medal(i, k)));
    const half = Math.ceil(runs.length / 2);
    return {
      stage: k,
      docs: [
        like("head", runs.slice(0, half), { index: 1, count: 2 }),
        like("head", runs.slice(half), { index: 2, count: 2 }),
      ],
    };
  };
  const judge = (stages: ReturnType<typeof stage>[], against = base) => {
    const m = mergeStages(stages, 3, 3);
    return stagedComparison(against, m.results, m.byStage, 3, config, session.plan, "test");
  };

  it("a clear regression stops after stage 1, with the stop sentence's numbers", () => {
    // The base medals everywhere; the head nowhere.
    const gold = like(
      "base",
      ids.flatMap((id) => [0, 1, 2].map((s) => fakeRun(id, s, "gold"))),
    );
    const cmp = judge([stage(1, () => "none")], gold);
    expect(cmp.verdict).toBe("regressed");
    expect(stageDecision(cmp)).toBe("stop");
    expect(cmp.monitor).toMatchObject({
      decision: "regressed",
      usedRuns: ids.length,
      notStarted: 2 * ids.length,
      stages: { ran: 1, planned: 3 },
    });
  });

  it("a stage that ran after the stop is kept, not used, and said so", () => {
    const gold = like(
      "base",
      ids.flatMap((id) => [0, 1, 2].map((s) => fakeRun(id, s, "gold"))),
    );
    const cmp = judge([stage(1, () => "none"), stage(2, () => "none")], gold);
    expect(cmp.monitor).toMatchObject({ usedRuns: ids.length, stages: { ran: 1, planned: 3 } });
    expect(cmp.monitor!.afterStop).toHaveLength(ids.length);
    expect(monitorSentence(cmp.monitor!)).toContain(
      `${ids.length} runs of later stages ran after the stop: kept in the results, not used by the verdict.`,
    );
  });

  it("the plan splits each stage's seeds over the shards; more stages than seeds are refused", () => {
    const p = planShards(session, { shards: 4, stages: 3 });
    expect(p.stages!.map((st) => st.seeds)).toEqual([[0], [1], [2]]);
    for (const st of p.stages!) {
      expect(st.matrix.include.map((e) => e.shard)).toEqual(["1/4", "2/4", "3/4", "4/4"]);
      const runs = st.shards.flatMap((x) => x.runIds);
      expect(runs.sort()).toEqual(ids.map((id) => `${id}.s${st.stage - 1}`).sort());
    }
    expect(describePlan(p)).toContain(
      "Stages: 3 (stage 1: seed 0 of every competition on 4 shards; stage 2: seed 1",
    );
    expect(() => planShards(session, { shards: 4, stages: 4 })).toThrow(/at most one stage per seed/);
  });

  it("a borderline head goes on after stages 1 and 2 and ends at the last look", () => {
    // As the base, but no medal on every third competition: the verdict stays open until the last look.
    const near = (i: number, k: number) => (i % 3 === 0 ? "none" : medalOf(i, k - 1));
    const one = judge([stage(1, near)]);
    expect(stageDecision(one)).toBe("continue");
    const two = judge([stage(1, near), stage(2, near)]);
    expect(stageDecision(two)).toBe("continue");
    const all = judge([stage(1, near), stage(2, near), stage(3, near)]);
    expect(stageDecision(all)).toBe("stop");
    expect(all.verdict).toBe("inconclusive");
    expect(all.monitor).toMatchObject({ decision: "final", usedRuns: 3 * ids.length, stages: { ran: 3 } });
  });

  it("a lost shard's runs are not run (infra errors), not silently dropped", () => {
    const s1 = stage(1, medalOf);
    const m = mergeStages([{ ...s1, docs: [s1.docs[0]] }], 3, 3);
    expect(m.results.runs).toHaveLength(ids.length);
    expect(m.missing).toHaveLength(s1.docs[1].runs.length);
  });
});
