// Crafted results documents for each case the verdict must get right (issue 9, "Must show").
import { describe, expect, it } from "vitest";
import { compareRuns, gateFails } from "../../src/compare/compare.js";
import { UserError } from "../../src/errors.js";
import { renderReport } from "../../src/report/markdown.js";
import { VERDICT_MEANING, gateSentence } from "../../src/report/verdict.js";
import type { RunResult } from "../../src/results/schema.js";
import { competitionIds, fakeRun, fakeSuite, sideOf } from "../helpers/results.js";

const gate = { tolerance: 0.05, alpha: 0.05, failOn: "regression" as const };
const ids = competitionIds;
const infra = (id: string, seed: number): RunResult =>
  fakeRun(id, seed, "none", { outcome: "infra_error", grade: null, error: "could not start the agent" });
const side = sideOf;

describe("fail closed: the head could not be evaluated", () => {
  it("every head run an infrastructure error → verdict error, the gate fails, the report says why", () => {
    const base = side("base", 22, 3, (id, i, s) => fakeRun(id, s, i % 3 === 0 ? "bronze" : "none"));
    const head = side("head", 22, 3, (id, _i, s) => infra(id, s));
    const c = compareRuns(base, head, gate);
    expect(c.verdict).toBe("error");
    expect(gateFails(c)).toBe(true);
    expect(c.dropped).toHaveLength(22);
    expect(c.errors.map((e) => e.kind)).toEqual(["not-comparable", "infra-errors"]);
    const text = renderReport(c);
    expect(text).toContain("⛔ error");
    expect(text).toContain("no comparable run in 22 of 22 competitions");
    expect(text).toContain("`c0`: 3 of 3 head runs not comparable");
    expect(gateSentence(c)).toMatch(/^\*\*Gate: failed\*\* — the head could not be evaluated/);
    expect(gateFails({ ...c, gate: { ...c.gate, failOn: "never" } })).toBe(false);
  });

  it("head errors only where the base medalled → error, not a better-looking head", () => {
    // 2 of 22 competitions (9% ≤ the 10% share) lost, but 6 infra errors vs none is significant.
    const base = side("base", 22, 3, (id, i, s) => fakeRun(id, s, i < 2 ? "gold" : "none"));
    const head = side("head", 22, 3, (id, i, s) => (i < 2 ? infra(id, s) : fakeRun(id, s, "none")));
    const c = compareRuns(base, head, gate);
    expect(c.verdict).toBe("error");
    expect(c.errors.map((e) => e.kind)).toEqual(["infra-errors"]);
    expect(renderReport(c)).toContain(
      "significantly more infrastructure errors than the base: 6 of 66 runs vs 0 of 66",
    );
  });

  it("an unstartable agent recorded as `failed` (exit 127) is the agent's: no medal, not an error", () => {
    const base = side("base", 12, 1, (id, _i, s) => fakeRun(id, s, "gold"));
    const head = side("head", 12, 1, (id, _i, s) =>
      fakeRun(id, s, "none", { outcome: "failed", exitCode: 127, valid: false }),
    );
    const c = compareRuns(base, head, gate, "file", { simulations: 0 });
    expect(c.errors).toEqual([]);
    expect(c.verdict).toBe("regressed");
  });
});

describe("honest intervals", () => {
  it("5/5 vs 5/5 at 5 × 1 is not no-regression: the interval does not collapse", () => {
    const all = (label: string) => side(label, 5, 1, (id, _i, s) => fakeRun(id, s, "gold"));
    const c = compareRuns(all("base"), all("head"), gate);
    expect(c.verdict).toBe("inconclusive");
    const b = c.analysis!.medal.interval!;
    expect(b.floored).toBe(true);
    expect(b.lower).toBeLessThan(-0.05);
    expect(renderReport(c)).toContain("90% interval");
  });

  it("0% vs 0% makes no claim about drops that cannot happen", () => {
    const none = (label: string) => side(label, 22, 3, (id, _i, s) => fakeRun(id, s, "none"));
    const c = compareRuns(none("base"), none("head"), gate);
    const m = c.analysis!.medal;
    expect(m.mde).toBeNull();
    expect(m.power.every((p) => p.power === null)).toBe(true);
    const text = renderReport(c);
    expect(text).toContain(
      "The base won no medal in these runs, so no power or smallest detectable drop is claimed",
    );
    expect(text).not.toMatch(/\| Medal rate \|[^\n]*%/);
  });

  it("a regressed verdict sits next to an upper bound below −tolerance at the same level", () => {
    const base = side("base", 12, 3, (id, _i, s) => fakeRun(id, s, "gold"));
    const head = side("head", 12, 3, (id, _i, s) => fakeRun(id, s, s === 0 ? "gold" : "none"));
    const c = compareRuns(base, head, gate, "file", { simulations: 0 });
    expect(c.verdict).toBe("regressed");
    const b = c.analysis!.medal.interval!;
    expect(b.upper).toBeLessThan(-0.05);
    expect(b.upperAlpha).toBe(0.05);
    expect(renderReport(c)).toContain(VERDICT_MEANING.regressed);
  });
});

describe("not comparable suites and bad input", () => {
  it("a suite hash mismatch gives no gating verdict unless allowed, and says what differs", () => {
    const base = fakeSuite(
      "base",
      ids(5).map((id) => fakeRun(id, 0, "gold")),
      "h24",
    );
    const head = fakeSuite(
      "head",
      ids(5).map((id) => fakeRun(id, 0, "none")),
      "h1",
    );
    head.environment.timeLimitSecs = 3600;
    base.environment.timeLimitSecs = 86400;
    const c = compareRuns(base, head, gate);
    expect(c.verdict).toBe("error");
    expect(gateFails(c)).toBe(true);
    expect(renderReport(c)).toContain("time limit: base 86400s, head 3600s");
    expect(renderReport(c)).toContain("Not used for the verdict: ");
    const allowed = compareRuns(base, head, { ...gate, allowSuiteMismatch: true }, "file", {
      simulations: 0,
    });
    expect(allowed.verdict).not.toBe("error");
    expect(renderReport(allowed)).toContain("compared as allowed by gate.allowSuiteMismatch");
  });

  it("duplicate (competition, seed) runs and runs outside the suite are input errors (exit 2)", () => {
    const base = fakeSuite("base", [fakeRun("a", 0, "gold"), fakeRun("a", 1, "none")]);
    const dup = fakeSuite("head", [fakeRun("a", 0, "gold"), fakeRun("a", 0, "none")]);
    const err = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e as UserError;
      }
      throw new Error("no error");
    };
    const e = err(() => compareRuns(base, dup, gate));
    expect(e).toBeInstanceOf(UserError);
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain("two runs of a seed 0");
    const outside = fakeSuite("head", [fakeRun("a", 0, "gold"), fakeRun("a", 1, "gold")]);
    outside.runs.push(fakeRun("zzz", 0, "gold"));
    expect(err(() => compareRuns(base, outside, gate)).message).toContain("not in the suite's competitions");
  });
});

describe("percentiles", () => {
  it("missing percentiles (no leaderboard) are left out, not counted as 0", () => {
    const noBoard = (r: RunResult): RunResult => ({ ...r, grade: { ...r.grade!, percentile: null } });
    const base = side("base", 6, 2, (id, i, s) =>
      i < 3 ? fakeRun(id, s, "none", { score: 0.6 }) : noBoard(fakeRun(id, s, "none")),
    );
    const head = side("head", 6, 2, (id, i, s) =>
      i < 3 ? fakeRun(id, s, "none", { score: 0.6 }) : noBoard(fakeRun(id, s, "none")),
    );
    const c = compareRuns(base, head, gate, "file", { simulations: 0 });
    expect(c.analysis!.percentile!.competitions).toBe(3);
    expect(c.analysis!.percentile!.base).toBeCloseTo(0.6, 12);
    expect(c.head.meanPercentile).toBeCloseTo(0.6, 12);
    const allMissing = (s: typeof base) => ({ ...s, runs: s.runs.map(noBoard) });
    expect(compareRuns(allMissing(base), allMissing(head), gate).analysis!.percentile).toBeNull();
  });

  it("an invalid submission on a competition with a leaderboard counts as percentile 0", () => {
    const base = side("base", 4, 1, (id, _i, s) => fakeRun(id, s, "none", { score: 0.8 }));
    const head = side("head", 4, 1, (id, i, s) =>
      i === 0 ? fakeRun(id, s, "none", { valid: false }) : fakeRun(id, s, "none", { score: 0.8 }),
    );
    const c = compareRuns(base, head, gate, "file", { simulations: 0 });
    expect(c.analysis!.percentile!.head).toBeCloseTo(0.6, 12);
  });

  it("an optional percentile gate turns a percentile regression into the verdict", () => {
    const base = side("base", 22, 3, (id, _i, s) => fakeRun(id, s, "none", { score: 0.6 + 0.01 * s }));
    const head = side("head", 22, 3, (id, _i, s) => fakeRun(id, s, "none", { score: 0.3 + 0.01 * s }));
    const plain = compareRuns(base, head, gate, "file", { simulations: 0 });
    expect(plain.verdict).not.toBe("regressed");
    const gated = compareRuns(base, head, { ...gate, percentileTolerance: 0.05 }, "file", { simulations: 0 });
    expect(gated.verdict).toBe("regressed");
    expect(gateSentence(gated)).toContain("The mean percentile dropped");
  });
});
