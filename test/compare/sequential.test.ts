import { describe, expect, it } from "vitest";
import { gateFails } from "../../src/compare/compare.js";
import { lookDecision, runAdaptive, sequentialDesign } from "../../src/compare/sequential.js";
import { renderReport } from "../../src/report/markdown.js";
import type { RunResult } from "../../src/results/schema.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";

const gate = { tolerance: 0.05, alpha: 0.05, failOn: "regression" as const };
const ids = Array.from({ length: 22 }, (_, i) => `c${i}`);
const base = fakeSuite(
  "base",
  ids.flatMap((id, i) => [0, 1, 2].map((s) => fakeRun(id, s, (i + s) % 3 === 0 ? "gold" : "none"))),
);
base.suite.seeds = 3;

/** A head whose runs come from `medal(i, seed)`, run seed by seed; records the calls. */
function head(medal: (i: number, seed: number) => boolean, outcome?: RunResult["outcome"]) {
  const calls: number[][] = [];
  const runSeeds = async (seeds: number[]) => {
    calls.push(seeds);
    const s = fakeSuite(
      "head",
      ids.flatMap((id, i) =>
        seeds.map((seed) =>
          outcome === "infra_error"
            ? fakeRun(id, seed, "none", { outcome, grade: null })
            : fakeRun(id, seed, medal(i, seed) ? "gold" : "none"),
        ),
      ),
    );
    s.suite = { ...base.suite };
    return s;
  };
  return { calls, runSeeds };
}

describe("group-sequential design", () => {
  it("spends α across the looks: the levels of each claim sum to α", () => {
    const d = sequentialDesign(3, 0.05);
    expect(d.levels).toHaveLength(3);
    const total = d.levels.reduce((a, l) => a + l.regressed, 0);
    expect(total).toBeCloseTo(0.05, 12);
    expect(d.levels[0].regressed).toBeLessThan(d.levels[2].regressed);
  });

  it("decides: stop on a verdict, for futility when the head is not behind, else continue", () => {
    const d = sequentialDesign(3, 0.05);
    expect(lookDecision(d, 1, "regressed", -0.5)).toBe("regressed");
    expect(lookDecision(d, 1, "error", null)).toBe("error");
    expect(lookDecision(d, 1, "inconclusive", 0.01)).toBe("futility");
    expect(lookDecision(d, 1, "inconclusive", -0.05)).toBe("continue");
    expect(lookDecision(d, 3, "inconclusive", -0.05)).toBe("final");
  });
});

describe("runAdaptive", () => {
  it("no change with the head ahead after seed 0 → stops for futility after one look (22 runs, not 66)", async () => {
    const h = head((i, s) => (i + s) % 3 === 0 || i === 1);
    const r = await runAdaptive({ base, maxSeeds: 3, gate, runSeeds: h.runSeeds });
    expect(h.calls).toEqual([[0]]);
    expect(r.head.runs).toHaveLength(22);
    expect(r.looks.map((l) => l.decision)).toEqual(["futility"]);
    expect(r.comparison.verdict).toBe("inconclusive");
    expect(renderReport(r.comparison)).toContain("Look 1 (1 head seed, 22 runs");
    expect(renderReport(r.comparison)).toContain("stopped for futility");
  });

  it("a head slightly behind runs further seeds, one look per seed, and ends at the last look", async () => {
    const h = head((i, s) => (i + s) % 3 === 0 && i !== 0 && i !== 3);
    const r = await runAdaptive({ base, maxSeeds: 3, gate, runSeeds: h.runSeeds });
    expect(h.calls).toEqual([[0], [1], [2]]);
    expect(r.looks.map((l) => l.decision)).toEqual(["continue", "continue", "final"]);
    expect(r.comparison.analysis!.medal.levels.regressed).toBeCloseTo(0.05 * (1 - 2 * 0.005), 12);
    expect(r.comparison.looks).toHaveLength(3);
  });

  it("a broken head (no medals at all) is `regressed` at the first look", async () => {
    const strong = fakeSuite(
      "base",
      ids.flatMap((id) => [0, 1, 2].map((s) => fakeRun(id, s, "gold"))),
    );
    const h = head(() => false);
    const r = await runAdaptive({ base: strong, maxSeeds: 3, gate, runSeeds: h.runSeeds });
    expect(h.calls).toEqual([[0]]);
    expect(r.comparison.verdict).toBe("regressed");
    expect(gateFails(r.comparison)).toBe(true);
  });

  it("a head that cannot start at all stops with `error` after one look", async () => {
    const h = head(() => false, "infra_error");
    const r = await runAdaptive({ base, maxSeeds: 3, gate, runSeeds: h.runSeeds });
    expect(h.calls).toEqual([[0]]);
    expect(r.comparison.verdict).toBe("error");
  });
});
