import { describe, expect, it } from "vitest";
import { compareRuns } from "../../src/compare/compare.js";
import { mark, medalChange, renderReport, renderResults } from "../../src/report/markdown.js";
import { trendChart } from "../../src/report/charts.js";
import { bigComparison } from "../helpers/big-comparison.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";

const gate = { tolerance: 0.05, alpha: 0.05, failOn: "regression" as const };

describe("compareRuns", () => {
  it("computes medal rates per side and pairs by competition", () => {
    const base = fakeSuite("base", [
      fakeRun("a", 0, "none", { score: 0.4 }),
      fakeRun("a", 1, "bronze", { score: 0.72 }),
      fakeRun("b", 0, "none"),
      fakeRun("b", 1, "none"),
    ]);
    const head = fakeSuite("head", [
      fakeRun("a", 0, "gold", { score: 0.95 }),
      fakeRun("a", 1, "silver", { score: 0.85 }),
      fakeRun("b", 0, "bronze"),
      fakeRun("b", 1, "none"),
    ]);
    const c = compareRuns(base, head, gate);
    expect(c.base.medalRate).toBe(0.25);
    expect(c.head.medalRate).toBe(0.75);
    expect(c.head.gold).toBe(1);
    expect(c.delta).toBeCloseTo(0.5);
    const a = c.competitions.find((r) => r.competitionId === "a")!;
    expect(a.baseMeanScore).toBeCloseTo(0.56);
    expect(a.headMeanScore).toBeCloseTo(0.9);
    expect(a.deltaScore).toBeCloseTo(0.34);
    expect(c.sameSuite).toBe(true);
  });

  it("leaves infrastructure errors out of both sides", () => {
    const base = fakeSuite("base", [fakeRun("a", 0, "bronze"), fakeRun("a", 1, "bronze")]);
    const head = fakeSuite("head", [
      fakeRun("a", 0, "none", { outcome: "infra_error", grade: null, error: "daemon gone" }),
      fakeRun("a", 1, "bronze"),
    ]);
    const c = compareRuns(base, head, gate);
    expect(c.head.comparable).toBe(1);
    expect(c.head.infraErrors).toBe(1);
    expect(c.head.medalRate).toBe(1);
  });

  it("counts invalid submissions and crashes as the agent's (no medal)", () => {
    const base = fakeSuite("base", [fakeRun("a", 0, "bronze")]);
    const head = fakeSuite("head", [fakeRun("a", 0, "none", { valid: false })]);
    const c = compareRuns(base, head, gate);
    expect(c.head.comparable).toBe(1);
    expect(c.head.medalRate).toBe(0);
    expect(c.head.validRate).toBe(0);
  });

  it("flags suites that are not the same", () => {
    const c = compareRuns(
      fakeSuite("base", [fakeRun("a", 0, "none")], "x"),
      fakeSuite("head", [fakeRun("a", 0, "none")], "y"),
      gate,
    );
    expect(c.sameSuite).toBe(false);
    expect(renderReport(c)).toContain("different suites");
  });
});

describe("renderReport", () => {
  const base = fakeSuite("base", [
    fakeRun("comp-a", 0, "none", { score: 0.4 }),
    fakeRun("comp-a", 1, "none", { score: 0.45 }),
  ]);
  const head = fakeSuite("head", [
    fakeRun("comp-a", 0, "gold", { score: 0.95 }),
    fakeRun("comp-a", 1, "none", { valid: false }),
  ]);
  const text = renderReport(compareRuns(base, head, gate), {
    links: { "runs/comp-a.s0": "https://example.test/run0" },
  });

  it("shows the verdict and the medal rates; one competition has no interval, so no better/worse mark", () => {
    expect(text).toMatch(/^## Medalist · s · /);
    expect(text).toMatch(
      /\| \*\*Medal rate\*\* +\| +0\.0% \(0\/2\) \| \*\*50\.0%\*\* \(1\/2\) \| \*\*\+50\.0 pts\*\* +\|/,
    );
  });

  it("puts a competition that gained medals first, with one mark, seed links and the failure reason", () => {
    expect(text).toContain("### 🟢 Medals gained in 1 competition");
    const row = text.split("\n").find((l) => l.includes("| comp-a"))!;
    expect(row).toMatch(/^\| +🟢 +\| comp-a/);
    expect(row).toMatch(/\| ➖➖ +\| 🥇➖ +\|/);
    expect(row).toContain("43 → 48");
    expect(row).toContain("[0](https://example.test/run0) 1 invalid submission");
  });

  it("includes the statistics, the power table and the environment", () => {
    expect(text).toContain("<summary>Statistics</summary>");
    expect(text).toMatch(/\| Drop +\| 5 pts/);
    expect(text).toContain("suite hash: abc");
  });

  it("renders a single suite without a baseline", () => {
    const single = renderResults(head);
    expect(single).toContain("**Medal rate 50.0%** (1/2: 1 gold, 0 silver, 0 bronze)");
    expect(single).toContain("bad columns");
  });
});

describe("failures and reuse in the report", () => {
  const failure = {
    cause: "/bin/sh: 1: pythn3: not found (exit 127)",
    exitCode: 127,
    signal: null,
    stderrTail: ["/bin/sh: 1: pythn3: not found"],
  };
  const crashed = fakeRun("a", 1, "none", { outcome: "failed", exitCode: 127, failure, valid: false });

  it("the comparison lists the head's runs that did not complete, with their cause; reuse is counted", () => {
    const base = fakeSuite("base", [fakeRun("a", 0, "none"), fakeRun("a", 1, "none")]);
    const head = fakeSuite("head", [fakeRun("a", 0, "none", { reused: true }), crashed]);
    const text = renderReport(compareRuns(base, head, gate));
    expect(text).toContain("Head runs that did not complete (1)");
    expect(text).toContain("- a.s1: failed — /bin/sh: 1: pythn3: not found (exit 127)");
    expect(text).toContain(
      "Runs reused from an earlier invocation with the same identity: head 1 of 2, base 0 of 2.",
    );
  });

  it("the results table uses the progress line's outcome word and shows the cause", () => {
    const text = renderResults(fakeSuite("head", [crashed]));
    expect(text).toMatch(/\| failed +\|.*\/bin\/sh: 1: pythn3: not found \(exit 127\)/);
    expect(text).not.toContain("crashed");
  });
});

describe("the redesigned comment", () => {
  it("stays under GitHub's 65,536 characters at 75 competitions × 5 seeds with a link per run", () => {
    const { cmp, links } = bigComparison(75, 5);
    const text = renderReport(cmp, { links });
    expect(text.length).toBeLessThan(65_536);
    expect(text).toMatch(/```mermaid\n%%{init.*}%%\nxychart-beta horizontal/);
  });

  it("sets losses apart from gains, tier changes included, and collapses the rest", () => {
    const base = fakeSuite("base", [
      fakeRun("up", 0, "bronze"),
      fakeRun("down", 0, "gold"),
      fakeRun("flat", 0, "none"),
    ]);
    const head = fakeSuite("head", [
      fakeRun("up", 0, "gold"),
      fakeRun("down", 0, "none"),
      fakeRun("flat", 0, "none"),
    ]);
    const cmp = compareRuns(base, head, gate);
    expect(cmp.competitions.map(medalChange)).toEqual([-1, 0, 1]); // down, flat, up
    const text = renderReport(cmp);
    const lost = text.indexOf("Medals lost in 1 competition");
    const gained = text.indexOf("Medals gained in 1 competition");
    const rest = text.indexOf("1 competition with unchanged medals");
    expect(lost).toBeGreaterThan(0);
    expect(gained).toBeGreaterThan(lost);
    expect(rest).toBeGreaterThan(gained);
    expect(text.indexOf("| down")).toBeLessThan(gained);
  });

  it("gives one mark per direction, lower cost and time being better", () => {
    expect(mark(0.1)).toBe("🟢 better");
    expect(mark(-0.1)).toBe("🔴 worse");
    expect(mark(5, false)).toBe("🔴 worse");
    expect(mark(0)).toBe("⚪ same");
    expect(mark(null)).toBe("");
  });

  it("draws the default-branch trend with this run last", () => {
    const chart = trendChart([
      { label: "a", medalRate: 0.2, meanPercentile: 0.5, current: false },
      { label: "this run", medalRate: 0.3, meanPercentile: 0.55, current: true },
    ]);
    expect(chart).toContain('x-axis [1, "PR"]');
    expect(chart).toContain("line [20.0, 30.0]");
  });
});
