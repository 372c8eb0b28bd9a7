// The history-informed plan's parts: the monitor's reserves, the base side's earlier runs, and
// when session/informed.ts uses the history (and says why not).
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { compareRuns } from "../../src/compare/compare.js";
import { SuiteMonitor } from "../../src/compare/monitor.js";
import { competitionRecords, type History } from "../../src/history/history.js";
import type { PlannedRun } from "../../src/plan/plan.js";
import type { SuiteResults } from "../../src/results/schema.js";
import { historyInformed } from "../../src/session/informed.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";

const gate = { tolerance: 0.05, alpha: 0.05, failOn: "regression" as const, maxNotComparable: 0.1 };
const ids = ["a", "b", "c", "d"];
const plan: PlannedRun[] = ids.flatMap((id) =>
  [0, 1, 2].map((seed) => ({ runId: `${id}.s${seed}`, competitionId: id, seed, expectedSecs: 60, gpus: 0 })),
);
const suite = (label: string, runs: SuiteResults["runs"]): SuiteResults => {
  const s = fakeSuite(label, runs, "h1");
  s.suite.seeds = 3;
  s.suite.competitions = ids;
  return s;
};
// a, b always won; c never; d half the time. Each run carries its competition's identity.
const medal = (id: string, seed: number) =>
  id === "a" || id === "b" || (id === "d" && seed === 1) ? "gold" : "none";
const base = suite(
  "base",
  plan.map((p) =>
    fakeRun(p.competitionId, p.seed, medal(p.competitionId, p.seed), { identity: `id-${p.competitionId}` }),
  ),
);
base.git = { sha: "b".repeat(40), ref: null };
/** Distinct record keys for the runs of one entry (each earlier run executed once). */
const keysOf = (sha: string, id: string, medals: number) =>
  [0, 1, 2].map((seed) => ({
    key: createHash("sha256").update(`${sha}/${id}/${seed}`).digest("hex").slice(0, 16),
    medal: seed < medals,
  }));
const entry = (sha: string, medals: (id: string) => number, identity = (id: string) => `id-${id}`) => ({
  sha,
  finishedAt: "2026-11-01T00:00:00.000Z",
  suiteHash: "h1",
  agent: "base",
  runs: 12,
  comparable: 12,
  medalRate: null,
  meanPercentile: null,
  dollars: null,
  durationMs: 0,
  competitions: Object.fromEntries(
    ids.map((id) => [
      id,
      {
        runs: 3,
        medals: medals(id),
        meanSecs: 60,
        identity: identity(id),
        runKeys: keysOf(sha, id, medals(id)),
      },
    ]),
  ),
});
const steady = (id: string) => (id === "a" || id === "b" ? 3 : id === "c" ? 0 : 1 + (id.length % 2));
const history = (n: number, extra: History["entries"] = []): History => ({
  version: 1,
  entries: [...Array.from({ length: n }, (_, k) => entry(String(k).repeat(40), steady)), ...extra],
});
const config = { historyPlan: { minRuns: 20, cover: false }, seeds: 3, gate };

describe("historyInformed", () => {
  it("plans from earlier runs of the base's identity, leaving out the base's own entry", () => {
    // The base's own commit is in the history too: it must not count twice.
    const own = entry("b".repeat(40), () => 3);
    const out = historyInformed(base, history(7, [own]), config, { competitions: ids, runs: plan });
    expect("use" in out).toBe(true);
    if (!("use" in out)) return;
    expect(out.use.check.suites).toBe(7);
    expect(out.use.check.historyRuns).toBe(4 * 21);
    expect(out.use.plan.competitions[0].history).toEqual({ runs: 21, medals: 21 });
    // The history plans; the comparison's base side is the base's runs now.
    expect(out.use.history).toBeUndefined();
    // 21 earlier runs each (24 with the 3 now): a, b, c steady → 1 seed; d varies → 3.
    expect(out.use.plan.competitions.map((c) => c.seeds)).toEqual([1, 1, 1, 3]);
    expect(out.use.plan.headRuns).toBe(6);
  });

  it("leaves out runs of another identity (the agent changed since)", () => {
    const old = Array.from({ length: 7 }, (_, k) =>
      entry(String(k + 1).repeat(40), steady, (id) => `old-${id}`),
    );
    const out = historyInformed(base, { version: 1, entries: old }, config, {
      competitions: ids,
      runs: plan,
    });
    expect(out).toEqual({
      why: "no competition has 20 runs of the base's current identity in the baseline and the default-branch history, each run counted once (most: 3; seeds.historyRuns)",
    });
  });

  it("says why when the baseline has no commit or the config turns it off", () => {
    const noSha = { ...base, git: { sha: null, ref: null } };
    expect(historyInformed(noSha, history(7), config, { competitions: ids, runs: plan })).toEqual({
      why: "the baseline records no commit, so its runs cannot be told apart from the history's",
    });
    expect(
      historyInformed(base, history(7), { ...config, historyPlan: null }, { competitions: ids, runs: plan }),
    ).toEqual({ why: "off in the config (seeds.history: false)" });
  });
});

describe("the monitor with a history-informed plan", () => {
  const out = historyInformed(base, history(7), config, { competitions: ids, runs: plan });
  if (!("use" in out)) throw new Error("no plan");
  const use = out.use;
  const run = (id: string, seed: number) => plan.find((p) => p.runId === `${id}.s${seed}`)!;

  it("a run lost to an infrastructure error admits the competition's next seed; an unneeded reserve is skipped", () => {
    const m = new SuiteMonitor(base, plan, gate, undefined, "file", use);
    expect(m.admit(run("a", 0))).toBe("start");
    expect(m.admit(run("a", 1))).toBe("wait");
    m.add(fakeRun("a", 0, "none", { outcome: "infra_error", grade: null }));
    expect(m.admit(run("a", 1))).toBe("start");
    expect(m.admit(run("a", 2))).toBe("wait");
    m.add(fakeRun("a", 1, "gold"));
    expect(m.admit(run("a", 2))).toBe("skip");
    // b's one seed finished comparable: its reserves are never needed.
    m.add(fakeRun("b", 0, "gold"));
    expect(m.admit(run("b", 1))).toBe("skip");
  });

  it("looks once every competition has a comparable run; the base side is the base's runs now", () => {
    const m = new SuiteMonitor(base, plan, gate, undefined, "file", use);
    for (const id of ["a", "b", "c"]) m.add(fakeRun(id, 0, medal(id, 0)));
    expect(m.look()).toBeNull();
    m.add(fakeRun("d", 0, "none"));
    const look = m.look()!;
    expect(look.counts.map((c) => c.nb)).toEqual([3, 3, 3, 3]);
    expect(look.t).toBeCloseTo(4 / 6);
    const rec = m.record();
    expect(rec).toMatchObject({ plannedRuns: 6, fixedRuns: 12 });
  });

  it("compareRuns counts the earlier runs on the base side of the medal analysis only", () => {
    const head = suite(
      "head",
      ids.map((id) => fakeRun(id, 0, "none")),
    );
    const plain = compareRuns(base, head, gate);
    const earlier = {
      competitions: Object.fromEntries(ids.map((id) => [id, { runs: 21, medals: 7 }])),
      suites: 7,
    };
    const pooled = compareRuns(base, head, gate, "file", { history: earlier });
    expect(plain.analysis!.medal.baseRuns).toBe(12);
    expect(pooled.analysis!.medal.baseRuns).toBe(12 + 4 * 21);
    expect(pooled.history).toEqual(earlier);
    // The infra-error summary and the per-competition cells stay the base's runs now.
    expect(pooled.base.runs).toBe(12);
    expect(pooled.competitions[0].base).toHaveLength(3);
  });
});

it("competitionRecords keys each competition on its runs' identity", () => {
  expect(competitionRecords(base).a.identity).toBe("id-a");
});
