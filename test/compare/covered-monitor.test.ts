// Covered competitions (seeds.cover) in the monitor and in compareRuns: never run, never "not
// comparable", and each claim judged at its own tolerance on the competitions that ran.
import { describe, expect, it } from "vitest";
import { compareRuns } from "../../src/compare/compare.js";
import { decideLook, monitorDesign, SuiteMonitor } from "../../src/compare/monitor.js";
import { informedPlan, coveredTolerances } from "../../src/plan/informed.js";
import type { PlannedRun } from "../../src/plan/plan.js";
import type { SuiteResults } from "../../src/results/schema.js";
import { renderReport } from "../../src/report/markdown.js";
import { renderIndex } from "../../src/view/index-page.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";

const M = 20;
const ids = Array.from({ length: M }, (_, i) => `c${String(i).padStart(2, "0")}`);
const gate = { tolerance: 0.2, alpha: 0.05, failOn: "regression" as const, maxNotComparable: 0.1 };
const plan: PlannedRun[] = ids.flatMap((id) =>
  [0, 1, 2].map((seed) => ({
    runId: `${id}.s${seed}`,
    competitionId: id,
    seed,
    expectedSecs: 3600,
    gpus: 1,
  })),
);
const suite = (label: string, runs: SuiteResults["runs"]): SuiteResults => {
  const s = fakeSuite(label, runs, "h1");
  s.suite.seeds = 3;
  s.suite.competitions = ids;
  return s;
};
// c00–c03 never won (400 runs each); the rest won half the time.
const won = (i: number) => i >= 4;
const base = suite(
  "base",
  plan.map((p) =>
    fakeRun(p.competitionId, p.seed, won(ids.indexOf(p.competitionId)) && p.seed !== 1 ? "gold" : "none"),
  ),
);
const informed = informedPlan({
  competitions: ids.map((id, i) => ({ id, secs: 3600, history: { runs: 400, medals: won(i) ? 200 : 0 } })),
  seeds: 3,
  alpha: 0.05,
  tolerance: 0.2,
  cover: true,
});
const history = {
  competitions: Object.fromEntries(ids.map((id, i) => [id, { runs: 397, medals: won(i) ? 198 : 0 }])),
  suites: 132,
};
const covered = informed.competitions.filter((c) => c.covered).map((c) => c.id);

describe("covered competitions", () => {
  it("the plan covers two never-won competitions, within both claims' limits", () => {
    expect(covered).toEqual(["c00", "c01"]);
    const t = coveredTolerances(informed, 0.2);
    expect(t.regressed).toBeLessThanOrEqual(0.4);
    expect(t.noRegression!).toBeGreaterThan(0);
    expect(informed.alphaRuns).toBeCloseTo(0.04, 12);
  });

  it("the monitor never starts them, looks without them and spends only the runs' α", () => {
    const m = new SuiteMonitor(base, plan, gate, undefined, "file", { history, plan: informed });
    expect(m.design.alpha).toBeCloseTo(0.04, 12);
    for (const id of covered) expect(m.admit(plan.find((p) => p.runId === `${id}.s0`)!)).toBe("skip");
    // Every competition that runs has its first run: the first look is taken.
    for (const id of ids.slice(2, M - 1)) m.add(fakeRun(id, 0, won(ids.indexOf(id)) ? "gold" : "none"));
    expect(m.look()).toBeNull();
    m.add(fakeRun(ids[M - 1], 0, "gold"));
    const look = m.look()!;
    expect(look.counts).toHaveLength(M - 2);
    expect(look.notComparable).toBe(0);
    expect(m.record().plannedRuns).toBe(informed.headRuns);
    expect(m.record().alphaRuns).toBeCloseTo(0.04, 12);
  });

  it("each claim uses its own tolerance at a look: a drop the plain tolerance would call `regressed` is not", () => {
    const d = monitorDesign(0.04);
    // 18 competitions, base 200/400, head 3 runs with 0 medals: a 50-point drop on the runs.
    const counts = Array.from({ length: 18 }, () => ({ nb: 400, xb: 200, nh: 3, xh: 0 }));
    const look = {
      counts,
      notComparable: 0,
      competitions: 20,
      infra: { base: 0, baseRuns: 60, head: 0, headRuns: 54 },
      t: 1,
      last: true,
    };
    const plain = decideLook(d, look, { tolerance: 0.2, maxNotComparable: 0.1 });
    expect(plain.decision).toBe("regressed");
    const claims = { regressed: 0.6, noRegression: 0.1 };
    expect(decideLook(d, look, { tolerance: 0.2, maxNotComparable: 0.1, claims }).decision).toBe("final");
  });

  it("compareRuns marks them covered (not left out), and the report and viewer say so", () => {
    const head = suite(
      "head",
      ids
        .filter((id) => !covered.includes(id))
        .map((id) => fakeRun(id, 0, won(ids.indexOf(id)) ? "gold" : "none")),
    );
    const cmp = compareRuns(base, head, gate, "file", { history, informed });
    expect(cmp.dropped).toEqual([]);
    expect(cmp.errors).toEqual([]);
    expect(cmp.competitions.filter((r) => r.covered).map((r) => r.competitionId)).toEqual(covered);
    expect(cmp.analysis!.medal.competitions).toBe(M - 2);
    expect(cmp.analysis!.medal.claimTolerances).toEqual(coveredTolerances(informed, 0.2));
    const report = renderReport({ ...cmp, informed });
    expect(report).toContain(
      "2 competitions were covered by a bound from the base's history instead of head runs",
    );
    expect(report).toContain("| c00 | 0 of 400 runs | 0 (covered) |");
    expect(report).toMatch(/\| c00 +\| ➖➖➖ +\| — +\| +\S+ → — \| covered by a history bound \|/);
    expect(report).not.toContain("Left out of the comparison");
    const html = renderIndex({
      base,
      head,
      runs: [],
      leaderboards: {},
      history: [],
      comparison: { ...cmp, informed },
    });
    expect(html).toContain("Covered by a history bound (not run)");
    expect(html).toMatch(/data-group="covered"/);
    // Covered means covered: a head run of a covered competition (never admitted by the monitor)
    // would not enter the analysis, which already counts the competition by its bound.
    const stray = suite("head", [...head.runs, fakeRun("c00", 0, "gold")]);
    const withStray = compareRuns(base, stray, gate, "file", { history, informed });
    expect(withStray.analysis!.medal.competitions).toBe(M - 2);
    expect(withStray.competitions.find((r) => r.competitionId === "c00")!.covered).toBe(true);
    // No competition compared: no sentence qualifies figures that do not exist.
    const none = compareRuns(base, suite("head", []), gate, "file", { history, informed });
    expect(none.analysis).toBeNull();
    expect(renderReport({ ...none, informed })).not.toContain("were covered by a bound");
    // Without covered competitions the viewer shows no such group.
    const plain = compareRuns(
      base,
      suite(
        "head",
        plan.map((p) => fakeRun(p.competitionId, p.seed, "none")),
      ),
      gate,
    );
    expect(
      renderIndex({ base, head, runs: [], leaderboards: {}, history: [], comparison: plain }),
    ).not.toContain("Covered by a history bound");
  });
});
