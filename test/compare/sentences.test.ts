// Issue 21: every sentence the report prints about the verdict is literally true (one test each).
import { describe, expect, it } from "vitest";
import { compareRuns } from "../../src/compare/compare.js";
import { renderReport } from "../../src/report/markdown.js";
import { intervalText, levelText, metricReason } from "../../src/report/verdict.js";
import type { RunResult } from "../../src/results/schema.js";
import { fakeRun, fakeSuite, sideOf } from "../helpers/results.js";

const gate = { tolerance: 0.05, alpha: 0.05, failOn: "regression" as const };
const infra = (id: string, seed: number): RunResult =>
  fakeRun(id, seed, "none", { outcome: "infra_error", grade: null, error: "runner lost" });
const side = sideOf;

describe("levels are printed with the digits they need", () => {
  it("a 99.95% interval is not labelled 100%, in the headline or the details", () => {
    expect(levelText(0.9995)).toBe("99.95%");
    expect(levelText(0.9)).toBe("90%");
    expect(levelText(0.00025)).toBe("0.025%");
    const base = side("base", 10, 3, (id, i, s) => fakeRun(id, s, (i + s) % 2 ? "gold" : "none"));
    const head = side("head", 10, 3, (id, i, s) => fakeRun(id, s, (i + s) % 2 ? "gold" : "none"));
    const levels = { regressed: 0.00025, noRegression: 0.00025 };
    const c = compareRuns(base, head, gate, "file", { levels, simulations: 50 });
    const text = renderReport(c);
    expect(intervalText(c.analysis!.medal)).toMatch(/^99\.95% interval/);
    expect(text).toContain("(99.95%:");
    expect(text).not.toMatch(/\b100%:/);
  });

  it("the power table states the level it was computed at, not the gate's α", () => {
    const base = side("base", 10, 3, (id, i, s) => fakeRun(id, s, (i + s) % 2 ? "gold" : "none"));
    const head = side("head", 10, 3, (id, i, s) => fakeRun(id, s, (i + s) % 2 ? "gold" : "none"));
    const at = (levels?: { regressed: number; noRegression: number }) =>
      renderReport(compareRuns(base, head, gate, "file", { levels, simulations: 50 }));
    expect(at()).toContain("flagged `regressed` (α = 0.05;");
    const interim = at({ regressed: 0.0045, noRegression: 0.0045 });
    expect(interim).toContain("(one-sided level 0.45%, the level the verdict was decided at; gate α = 0.05;");
    expect(interim).not.toContain("(α = 0.05;");
  });
});

describe("lost medals and the headline", () => {
  it("a head infrastructure error is not a lost medal", () => {
    const base = side("base", 5, 2, (id, i, s) => fakeRun(id, s, i === 0 ? "gold" : "none"));
    // c0: the base medalled on both seeds; the head's seed 0 is an infra error, its seed 1 a medal.
    const head = side("head", 5, 2, (id, i, s) =>
      i === 0 && s === 0 ? infra(id, s) : fakeRun(id, s, i === 0 ? "gold" : "none"),
    );
    const c = compareRuns(base, head, gate);
    const text = renderReport(c);
    expect(text).not.toContain("Medals lost");
    expect(text).toContain("No competition's medal count changed.");
  });

  it("identical documents do not read 'the head is 0.0 points better'", () => {
    const runs = (label: string) =>
      side(label, 6, 2, (id, i, s) => fakeRun(id, s, (i + s) % 3 === 0 ? "gold" : "none"));
    const c = compareRuns(runs("base"), runs("head"), gate);
    expect(c.analysis!.medal.why).toBe("open");
    const reason = metricReason(c.analysis!.medal);
    expect(reason).not.toMatch(/better/);
    expect(reason).toMatch(/^The medal rate is the same on both sides, but the lower bound/);
  });

  it("different runs per competition are said, and the headline's rates agree with its change", () => {
    // Base: c0 0/1, c1 3/3, c2 3/3 (6/7 pooled); head: c0 1/1, c1 2/3, c2 2/3 (5/7 pooled).
    const base = fakeSuite("base", [
      fakeRun("c0", 0, "none"),
      ...[0, 1, 2].flatMap((s) => [fakeRun("c1", s, "gold"), fakeRun("c2", s, "gold")]),
    ]);
    const head = fakeSuite("head", [
      fakeRun("c0", 0, "gold"),
      ...[0, 1, 2].flatMap((s) => [
        fakeRun("c1", s, s < 2 ? "gold" : "none"),
        fakeRun("c2", s, s < 2 ? "gold" : "none"),
      ]),
    ]);
    const c = compareRuns(base, head, gate);
    const m = c.analysis!.medal;
    expect(m.delta).toBeCloseTo(1 / 9, 12);
    const text = renderReport(c);
    const row = text.split("\n").find((l) => l.includes("**Medal rate**"))!;
    // The rates shown are the ones the change is the difference of: 66.7% → 77.8%, +11.1 pts.
    expect(row).toContain("66.7% (mean over competitions; 6/7 runs)");
    expect(row).toContain("**77.8%** (mean over competitions; 5/7 runs)");
    expect(row).toContain("+11.1 pts");
    expect(row).not.toContain("85.7%");
    expect(text).toContain("Comparable runs per competition differ (base 1–3, head 1–3)");
  });

  it("equal runs per competition: pooled counts, no extra sentence", () => {
    const base = side("base", 4, 3, (id, i, s) => fakeRun(id, s, (i + s) % 2 ? "gold" : "none"));
    const head = side("head", 4, 3, (id, i, s) => fakeRun(id, s, (i + s) % 3 ? "gold" : "none"));
    const text = renderReport(compareRuns(base, head, gate));
    expect(text).not.toContain("mean over competitions");
    expect(text).not.toContain("Comparable runs per competition differ");
  });

  it("the headline's mean percentiles are the ones its change is the difference of", () => {
    const base = side("base", 4, 1, (id, _i, s) => fakeRun(id, s, "none"));
    // c0's head run is invalid: it beat nobody (percentile 0), which the change counts.
    const head = side("head", 4, 1, (id, i, s) => fakeRun(id, s, "none", { valid: i !== 0 }));
    const text = renderReport(compareRuns(base, head, gate));
    const row = text.split("\n").find((l) => l.includes("Mean percentile"))!;
    expect(row).toMatch(/50\.0% \|\s+37\.5% \| −12\.5 pts/);
  });
});
