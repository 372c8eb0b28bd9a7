import { describe, expect, it } from "vitest";
import { compareRuns } from "../../src/compare/compare.js";
import { GATE_DEFAULTS } from "../../src/config/schema.js";
import { decideGate, noBaselineRule, plainSentence } from "../../src/report/gate.js";
import { NOT_RUN } from "../../src/results/not-run.js";
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

describe("a side whose setup failed (suite/run.ts: every run not run for one cause)", () => {
  const cause =
    "not run: setup failed: the agent image did not build: step 4/4 (RUN pip install x) exited with code 127: exec: pip: not found";
  const head = fakeSuite(
    "head",
    [0, 1].map((s) =>
      fakeRun("c0", s, "none", {
        outcome: "infra_error",
        attempts: 0,
        grade: null,
        error: cause,
        details: { [NOT_RUN]: "true", setup: "failed", buildLog: "head-build.log" },
      }),
    ),
  );

  it("fails the gate without a baseline, in one sentence with the cause", () => {
    const d = decideGate(null, GATE_DEFAULTS, { head, base: null });
    expect(d.fails).toBe(true);
    expect(plainSentence(d)).toBe(
      "Gate: failed — Incomplete: 2 head runs never ran because the suite's setup failed: the agent image did not build: step 4/4 (RUN pip install x) exited with code 127: exec: pip: not found. They count as not comparable and the gate does not pass.",
    );
    // Even when a missing baseline would pass.
    expect(decideGate(null, { ...GATE_DEFAULTS, missingBaseline: "pass" }, { head, base: null }).fails).toBe(
      true,
    );
  });

  it("the no-baseline report does not say the gate passes", () => {
    expect(noBaselineRule(GATE_DEFAULTS, true)).toBe("The gate fails: runs are missing (below).");
    expect(noBaselineRule(GATE_DEFAULTS)).toBe(
      "Nothing was compared, so the gate passes (gate.missingBaseline: pass).",
    );
  });
});

describe("a setup failure's cause quotes the agent's build output", () => {
  it("is inert in the Markdown sentence and as written in the plain one", () => {
    const hostile =
      "not run: setup failed: the agent image did not build: step 2/2 (RUN x) exited with code 1: <img src=x onerror=alert(1)> [win](http://evil.example) @acme/team <!-- medalist:sticky -->";
    const head = fakeSuite("head", [
      fakeRun("c0", 0, "none", {
        outcome: "infra_error",
        attempts: 0,
        grade: null,
        error: hostile,
        details: { [NOT_RUN]: "true", setup: "failed" },
      }),
    ]);
    const d = decideGate(null, GATE_DEFAULTS, { head, base: null });
    // Escaped (\<img, \]), split (@\u200bacme) and stripped (the marker): shown as text, opening nothing.
    expect(d.sentence).not.toMatch(/(?<!\\)<img|(?<!\\)\]\(http|<!--|@acme\/team/);
    expect(d.sentence).toContain("\\<img src=x onerror=alert(1)\\>");
    expect(plainSentence(d)).toContain("<img src=x onerror=alert(1)> [win](http://evil.example)");
  });
});
