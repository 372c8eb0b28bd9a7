// Issue 30, item 4: sentences the report printed that were not literally true, one test each. Each
// asserts the new sentence and the absence of the old one.
import { describe, expect, it } from "vitest";
import { compareRuns, type Comparison } from "../../src/compare/compare.js";
import { SuiteMonitor, seedMajorKey } from "../../src/compare/monitor.js";
import type { PlannedRun } from "../../src/plan/plan.js";
import { renderReport } from "../../src/report/markdown.js";
import { startLine } from "../../src/suite/progress.js";
import { probabilityText } from "../../src/report/verdict.js";
import { renderIndex } from "../../src/view/index-page.js";
import type { RunResult } from "../../src/results/schema.js";
import { competitionIds, fakeRun, fakeSuite, sideOf } from "../helpers/results.js";

const gate = { tolerance: 0.05, alpha: 0.05, failOn: "regression" as const };
const infra = (id: string, seed: number): RunResult =>
  fakeRun(id, seed, "none", { outcome: "infra_error", grade: null, error: "runner lost" });
const line = (text: string, has: string) => text.split("\n").find((l) => l.includes(has)) ?? "";

/**
 * A monitored head over 22 competitions × 3 seeds (every run takes 1 s). By default the base always
 * won and the head loses every medal: it stops `regressed` at the first look, after 22 of 66 runs.
 */
function stoppedEarly(
  baseMedal: (i: number) => string = () => "gold",
  headMedal: (i: number) => string = () => "none",
  tolerance = gate.tolerance,
): Comparison {
  const ids = competitionIds(22);
  const plan: PlannedRun[] = [0, 1, 2].flatMap((seed) =>
    ids.map((id) => ({ runId: `${id}.s${seed}`, competitionId: id, seed, expectedSecs: 3600, gpus: 1 })),
  );
  const base = fakeSuite(
    "base",
    ids.flatMap((id, i) => [0, 1, 2].map((s) => fakeRun(id, s, baseMedal(i)))),
  );
  const monitor = new SuiteMonitor(base, plan, { ...gate, tolerance, maxNotComparable: 0.1 });
  const runs: RunResult[] = [];
  for (const p of [...plan].sort((a, b) => seedMajorKey(b, 3) - seedMajorKey(a, 3))) {
    const r = fakeRun(p.competitionId, p.seed, headMedal(ids.indexOf(p.competitionId)));
    runs.push(r);
    if (monitor.add(r)) break;
  }
  const head = fakeSuite("head", runs);
  head.suite = { ...base.suite };
  return monitor.comparison(head);
}

describe("sentences that were not literally true (issue 30)", () => {
  it("a head with only infrastructure errors has no unchanged competitions", () => {
    // Base 🥉🥉🥉, head ⚠⚠⚠ in all 22 competitions.
    const base = sideOf("base", 22, 3, (id, _i, s) => fakeRun(id, s, "bronze"));
    const head = sideOf("head", 22, 3, (id, _i, s) => infra(id, s));
    const text = renderReport(compareRuns(base, head, gate));
    expect(text).not.toContain("No competition's medal count changed");
    expect(text).not.toContain("unchanged medals");
    expect(text).toContain("No competition has comparable runs on both sides, so no medal change is shown.");
    expect(text).toContain(
      "<details><summary>22 competitions not compared (no comparable run on one side)</summary>",
    );
  });

  it("competitions without comparable head runs are counted apart from the unchanged ones", () => {
    const base = sideOf("base", 4, 2, (id, _i, s) => fakeRun(id, s, "none"));
    const head = sideOf("head", 4, 2, (id, i, s) => (i === 0 ? infra(id, s) : fakeRun(id, s, "none")));
    const text = renderReport(compareRuns(base, head, { ...gate, maxNotComparable: 0.5 }));
    expect(text).toContain("No competition's medal count changed.");
    expect(text).toContain("<summary>3 competitions with unchanged medals</summary>");
    expect(text).toContain("<summary>1 competition not compared (no comparable run on one side)</summary>");
    expect(text).not.toContain("4 competitions with unchanged medals");
  });

  it("a base below every drop of the power table does not read 'Power was not computed'", () => {
    // 2 medals in 66 base runs (3.0%): every drop in the table (5, 10, 20 points) is impossible.
    const runs = (label: string) =>
      sideOf(label, 22, 3, (id, i, s) => fakeRun(id, s, i < 2 && s === 0 ? "gold" : "none"));
    const c = compareRuns(runs("base"), runs("head"), gate, "file", { simulations: 200 });
    const m = c.analysis!.medal;
    expect(m.power.every((p) => p.power === null)).toBe(true);
    expect(m.mde).toBeNull();
    const text = renderReport(c);
    expect(text).not.toContain("Power was not computed");
    expect(text).toContain(
      "Every drop in the power table is larger than the base's medal rate (3.0%), so none of them can happen; even losing every medal (3.0 points) would be flagged `regressed` less than 80% of the time with these runs.",
    );
  });

  it("power that was skipped is still said to be skipped", () => {
    const runs = (label: string) =>
      sideOf(label, 6, 2, (id, i, s) => fakeRun(id, s, (i + s) % 2 ? "gold" : "none"));
    const text = renderReport(compareRuns(runs("base"), runs("head"), gate, "file", { simulations: 0 }));
    expect(text).toContain("Power was not computed.");
  });

  it("after an early stop the agent time compares only the runs both sides ran", () => {
    const cmp = stoppedEarly();
    expect(cmp.verdict).toBe("regressed");
    expect(cmp.monitor!.usedRuns).toBe(22);
    const text = renderReport(cmp);
    const row = line(text, "| Agent time");
    // Today: 66 base runs (1m 6s) against 22 head runs (22s) read "−44s 🟢 better".
    expect(row).not.toContain("−44s");
    expect(row).not.toContain("better");
    expect(row).toMatch(
      /\| +1m 6s \(66 runs\) \| +22s \(22 runs\) \| ±0s ⚪ same on the 22 runs both sides ran/,
    );
  });

  it("the cost change, too, is over the runs both sides ran", () => {
    const usage = { dollars: 1, tokensIn: null, tokensOut: null };
    const base = sideOf("base", 2, 3, (id, _i, s) => fakeRun(id, s, "none", { usage }));
    const head = fakeSuite(
      "head",
      base.runs.filter((r) => r.seed === 0).map((r) => fakeRun(r.competitionId, 0, "none", { usage })),
    );
    head.suite = { ...base.suite };
    const row = line(renderReport(compareRuns(base, head, gate)), "| Cost (self-reported)");
    expect(row).not.toContain("−$4.00");
    expect(row).toContain("+$0.00 unverified, on the 2 runs both sides ran");
  });

  it("after a `regressed` stop the p-value and the level are compared as numbers of one kind", () => {
    const cmp = stoppedEarly();
    const text = renderReport(cmp);
    expect(text).not.toMatch(/p = <0\.001 ≤/);
    const m = text.match(
      /\(p = ([0-9.]+) × 10⁻([⁰¹²³⁴⁵⁶⁷⁸⁹]+) ≤ ([0-9.]+) × 10⁻([⁰¹²³⁴⁵⁶⁷⁸⁹]+), the one-sided level\)/,
    );
    expect(m).not.toBeNull();
    const sup = (s: string) => Number([...s].map((c) => "⁰¹²³⁴⁵⁶⁷⁸⁹".indexOf(c)).join(""));
    const p = Number(m![1]) * 10 ** -sup(m![2]);
    const level = Number(m![3]) * 10 ** -sup(m![4]);
    expect(p).toBeLessThanOrEqual(level);
    expect(level).toBeCloseTo(cmp.monitor!.level, 7);
    expect(m![3]).toBe("1.99");
  });

  it("a `regressed` verdict is not followed by a power sentence that says it is unlikely", () => {
    // 5 competitions × 3 base seeds at 2/3 medals each; one head run each, none won.
    const base = sideOf("base", 5, 3, (id, i, s) => fakeRun(id, s, (i + s) % 3 === 0 ? "none" : "gold"));
    const head = sideOf("head", 5, 1, (id, _i, s) => fakeRun(id, s, "none"));
    head.suite = { ...base.suite };
    const c = compareRuns(base, head, gate, "file", { simulations: 200 });
    expect(c.verdict).toBe("regressed");
    expect(c.analysis!.medal.mde).toBeNull();
    const text = renderReport(c);
    expect(text).not.toContain("Even losing every medal");
    expect(text).not.toContain("would be flagged `regressed` less than");
    expect(text).toContain("the permutation test agrees (p = 0.0156 ≤ 0.05, the one-sided level)");
  });

  it("an early stop says that the change shown is biased towards the boundary it crossed", () => {
    const text = renderReport(stoppedEarly());
    expect(text).toContain(
      "Stopped early: an estimate taken when it first crosses a boundary tends to lie beyond it, so the change shown (−100.0 pts) tends to overstate the drop; the verdict's level already allows for stopping early.",
    );
    // Every competition always won on both sides, with a 20-point tolerance: `no-regression` before
    // the last look (at 5 points no look before the last can rule the drop out: 0.95^44 > α).
    const cmp = stoppedEarly(
      () => "gold",
      () => "gold",
      0.2,
    );
    expect(cmp.monitor).toMatchObject({ decision: "no-regression" });
    expect(cmp.monitor!.usedRuns).toBeLessThan(cmp.monitor!.plannedRuns);
    expect(renderReport(cmp)).toContain(
      "Stopped early: an estimate taken when it first crosses a boundary tends to lie beyond it, so the change shown (±0.0 pts) tends to favour the head more than the true change does; the verdict's level already allows for stopping early.",
    );
  });

  it("a suite that ran to its last look says nothing about an early stop", () => {
    const base = sideOf("base", 22, 3, (id, i, s) => fakeRun(id, s, (i + s) % 2 ? "gold" : "none"));
    const c = compareRuns(base, base, gate);
    expect(renderReport(c)).not.toContain("Stopped early");
  });

  it("the headline does not mark an inconclusive change better", () => {
    // Base 1/4, head 4/4 over two competitions: +75 points, inconclusive.
    const base = fakeSuite("base", [
      fakeRun("a", 0, "none"),
      fakeRun("a", 1, "none"),
      fakeRun("b", 0, "none"),
      fakeRun("b", 1, "gold"),
    ]);
    const head = fakeSuite(
      "head",
      [0, 1].flatMap((s) => [fakeRun("a", s, "gold"), fakeRun("b", s, "gold")]),
    );
    const c = compareRuns(base, head, gate);
    expect(c.verdict).toBe("inconclusive");
    const text = renderReport(c);
    const row = line(text, "**Medal rate**");
    expect(row).not.toContain("🟢 better");
    expect(row).toContain("**+75.0 pts** not significant (90%:");
    // The reason says what the runs measured, not that the head is better.
    expect(text).not.toContain("The head is 75.0 points better");
    expect(text).toContain("The medal rate is 75.0 points higher, but the lower bound");
  });

  it("the headline marks a change better only when its interval excludes no change", () => {
    const base = sideOf("base", 10, 3, (id, _i, s) => fakeRun(id, s, "none"));
    const head = sideOf("head", 10, 3, (id, _i, s) => fakeRun(id, s, "gold"));
    const row = line(renderReport(compareRuns(base, head, gate)), "**Medal rate**");
    expect(row).toMatch(/\*\*\+100\.0 pts\*\* 🟢 better \(90%: \+\d/);
  });

  it("the viewer's headline follows the same rules: agent time over the runs both sides ran, marks by the interval", () => {
    const cmp = stoppedEarly();
    const base = fakeSuite("base", []);
    const html = renderIndex({
      head: fakeSuite("head", []),
      base,
      runs: [],
      leaderboards: {},
      history: [],
      comparison: cmp,
    });
    const row = html.match(/<tr><th>Agent time<\/th>.*?<\/tr>/)![0];
    expect(row).not.toContain("better");
    expect(row).toContain("1m 6s (66 runs)");
    expect(row).toContain("on the 22 runs both sides ran");
    const inconclusive = compareRuns(
      fakeSuite("base", [
        fakeRun("a", 0, "none"),
        fakeRun("a", 1, "none"),
        fakeRun("b", 0, "none"),
        fakeRun("b", 1, "gold"),
      ]),
      fakeSuite(
        "head",
        [0, 1].flatMap((s) => [fakeRun("a", s, "gold"), fakeRun("b", s, "gold")]),
      ),
      gate,
    );
    const page = renderIndex({
      head: fakeSuite("head", []),
      base,
      runs: [],
      leaderboards: {},
      history: [],
      comparison: inconclusive,
    });
    const rate = page.match(/<tr><th>Medal rate<\/th>.*?<\/tr>/)![0];
    expect(rate).not.toContain("better");
    expect(rate).toContain("not significant");
  });

  it("the suite's first log line counts one run, competition and seed in the singular", () => {
    expect(startLine("head", 1, 1, 1, "a")).toBe("[head] 1 run: 1 competition × 1 seed, agent: a");
    expect(startLine("base", 66, 22, 3, "a")).toBe("[base] 66 runs: 22 competitions × 3 seeds, agent: a");
    // Part of the suite (a shard, a stage, a paired round): of how many.
    expect(startLine("base", 12, 12, 3, "a")).toBe(
      "[base] 12 of 36 runs: 12 competitions × 3 seeds, agent: a",
    );
    expect(startLine("head", 1, 3, 1, "a")).toBe("[head] 1 of 3 runs: 3 competitions × 1 seed, agent: a");
  });

  it("probabilities are written with the digits they need, and rounding keeps their order", () => {
    expect(probabilityText(0.05)).toBe("0.05");
    expect(probabilityText(0.015625)).toBe("0.0156");
    expect(probabilityText(1.99e-5)).toBe("1.99 × 10⁻⁵");
    expect(probabilityText(4.77e-29)).toBe("4.77 × 10⁻²⁹");
    const read = (t: string) => {
      const m = t.match(/^([0-9.]+) × 10⁻([⁰¹²³⁴⁵⁶⁷⁸⁹]+)$/);
      return m
        ? Number(m[1]) * 10 ** -Number([...m[2]].map((c) => "⁰¹²³⁴⁵⁶⁷⁸⁹".indexOf(c)).join(""))
        : Number(t);
    };
    const xs = [9.9996e-5, 1e-4, 1.0004e-4, 0.049, 0.04904, 0.049049, 7.4049e-6, 7.405e-6];
    for (const x of xs)
      for (const y of xs)
        if (x <= y)
          expect(read(probabilityText(x))).toBeLessThanOrEqual(read(probabilityText(y)) * (1 + 1e-12));
  });
});
