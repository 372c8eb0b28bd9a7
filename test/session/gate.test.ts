import { describe, expect, it } from "vitest";
import { compareRuns } from "../../src/compare/compare.js";
import { GATE_DEFAULTS } from "../../src/config/schema.js";
import { decideGate, plainSentence } from "../../src/session/gate.js";
import { NOT_RUN } from "../../src/session/merge.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";

const ids = Array.from({ length: 12 }, (_, i) => `c${i}`);
const suite = (label: string, medal: (i: number) => string) =>
  fakeSuite(
    label,
    ids.flatMap((id, i) => [0, 1].map((s) => fakeRun(id, s, medal(i)))),
  );
const base = suite("base", () => "gold");
const lost = (s: ReturnType<typeof suite>) => ({
  ...s,
  runs: s.runs.map((r, i) =>
    i === 0
      ? {
          ...r,
          outcome: "infra_error" as const,
          error: "not run: shard 2/2 lost",
          details: { [NOT_RUN]: "true" },
        }
      : r,
  ),
});

describe("the gate's one decision", () => {
  const gate = { failOn: "regression" as const, missingBaseline: undefined };

  it("fails on a regression, with the verdict's sentence", () => {
    const head = suite("head", () => "none");
    const d = decideGate(compareRuns(base, head, GATE_DEFAULTS, "file"), gate, { head, base });
    expect(d).toMatchObject({ fails: true, reason: "regressed" });
    expect(d.sentence).toMatch(/^\*\*Gate: failed\*\* — regressed: /);
    expect(plainSentence(d)).toMatch(/^Gate: failed — regressed: /);
  });

  it("passes the same runs, and is off with fail-on: never", () => {
    const d = decideGate(compareRuns(base, base, GATE_DEFAULTS, "file"), gate, { head: base, base });
    expect(d).toMatchObject({ fails: false, reason: "passed" });
    expect(d.sentence).toMatch(/^\*\*Gate: passed\*\*/);
    const regressed = suite("head", () => "none");
    const off = decideGate(
      compareRuns(base, regressed, GATE_DEFAULTS, "file"),
      { failOn: "never", missingBaseline: undefined },
      { head: regressed, base },
    );
    expect(off).toMatchObject({ fails: false, reason: "off" });
    expect(off.sentence).toMatch(/^\*\*Gate: off\*\* \(fail-on: never\); verdict regressed\./);
  });

  it("fails closed on runs of lost shards whatever the verdict", () => {
    const head = { ...lost(base), label: "head" };
    const d = decideGate(compareRuns(base, head, GATE_DEFAULTS, "file"), gate, { head, base });
    expect(d).toMatchObject({ fails: true, reason: "incomplete" });
    expect(d.sentence).toContain("Incomplete: 1 head run never ran (shard 2/2 lost)");
  });

  it("without a baseline follows gate.missingBaseline", () => {
    const sides = { head: base, base: null };
    expect(decideGate(null, gate, sides)).toMatchObject({ fails: false, reason: "passed" });
    expect(decideGate(null, { ...gate, missingBaseline: "fail" }, sides)).toEqual({
      fails: true,
      reason: "no-baseline",
      sentence: "**Gate: failed** — no baseline to compare with, and gate.missingBaseline is fail.",
    });
    expect(decideGate(null, { failOn: "never", missingBaseline: "fail" }, sides).fails).toBe(false);
  });
});
