// Issue 30: history that is tested before it is trusted. The drift check (stats/drift.ts), what
// session/informed.ts does with a history that drifted, the report's sentence, and a seeded
// simulation of the levels with the history 5 points away from the base's rates today
// (ADAPTIVE_DRIFT_TEST_SUITES sizes it).
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { simulateDrift } from "../../bench/adaptive-drift.js";
import { compareRuns, type HistoryCheck } from "../../src/compare/compare.js";
import { SuiteMonitor } from "../../src/compare/monitor.js";
import { driftCheck } from "../../src/stats/drift.js";
import type { History } from "../../src/history/history.js";
import type { PlannedRun } from "../../src/plan/plan.js";
import { checkSentence, historySentence, pBeside } from "../../src/report/informed.js";
import type { SuiteResults } from "../../src/results/schema.js";
import { historyInformed } from "../../src/session/informed.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";

const gate = { tolerance: 0.05, alpha: 0.05, failOn: "regression" as const, maxNotComparable: 0.1 };
const ids = ["a", "b", "c", "d", "e", "f"];
const plan: PlannedRun[] = ids.flatMap((id) =>
  [0, 1, 2].map((seed) => ({ runId: `${id}.s${seed}`, competitionId: id, seed, expectedSecs: 60, gpus: 0 })),
);
/** Medals of the base now: a, b always; c, d, e never; f seed 1 only. */
const medalNow = (id: string, seed: number) =>
  id === "a" || id === "b" || (id === "f" && seed === 1) ? 1 : 0;
const base: SuiteResults = (() => {
  const s = fakeSuite(
    "base",
    plan.map((p) =>
      fakeRun(p.competitionId, p.seed, medalNow(p.competitionId, p.seed) ? "gold" : "none", {
        identity: `id-${p.competitionId}`,
      }),
    ),
    "h1",
  );
  s.suite.seeds = 3;
  s.suite.competitions = ids;
  s.git = { sha: "b".repeat(40), ref: null };
  return s;
})();
/** `n` earlier suites of 3 executed runs each; `medals(id, k)` medals of suite k in competition id. */
function history(n: number, medals: (id: string, k: number) => number): History {
  return {
    version: 1,
    entries: Array.from({ length: n }, (_, k) => ({
      sha: String(k).repeat(40),
      finishedAt: `2026-11-0${k + 1}T00:00:00.000Z`,
      suiteHash: "h1",
      agent: "base",
      runs: 18,
      comparable: 18,
      medalRate: null,
      meanPercentile: null,
      dollars: null,
      durationMs: 0,
      competitions: Object.fromEntries(
        ids.map((id) => {
          const x = medals(id, k);
          const runKeys = [0, 1, 2].map((seed) => ({
            key: createHash("sha256").update(`${k}/${id}/${seed}`).digest("hex").slice(0, 16),
            medal: seed < x,
          }));
          return [id, { runs: 3, medals: x, meanSecs: 60, identity: `id-${id}`, runKeys }];
        }),
      ),
    })),
  };
}
const same = (id: string, k: number) => (id === "a" || id === "b" ? 3 : id === "f" ? 1 + (k % 2) : 0);
const config = { historyPlan: { minRuns: 20, cover: false }, seeds: 3, gate };

describe("the drift check", () => {
  it("finds a competition whose current runs contradict its history, and a shift shared by all", () => {
    // Never won in 60 earlier runs, won 3 of 3 now: p = 2 · C(60,0)·C(3,3)/C(63,3) ≈ 5e-5.
    const one = driftCheck(
      [
        { id: "x", history: { runs: 60, medals: 0 }, current: { runs: 3, medals: 3 } },
        { id: "y", history: { runs: 60, medals: 30 }, current: { runs: 3, medals: 2 } },
      ],
      0.01,
    );
    expect(one.differing.map((d) => d.id)).toEqual(["x"]);
    expect(one.differing[0].p).toBeCloseTo((2 * 1) / ((63 * 62 * 61) / 6), 12);
    expect(one.passed).toBe(false);
    // 40 competitions at 30% in the history, at 70% in the current runs (2 of 3 each): no single
    // competition shows it at 0.005/40, the overall test does.
    const shared = driftCheck(
      Array.from({ length: 40 }, (_, i) => ({
        id: `c${i}`,
        history: { runs: 30, medals: 9 },
        current: { runs: 3, medals: 2 },
      })),
      0.01,
    );
    expect(shared.differing).toEqual([]);
    expect(shared.overallP).toBeLessThan(0.005);
    expect(shared.passed).toBe(false);
    // The same rates on both sides pass.
    const ok = driftCheck(
      [{ id: "z", history: { runs: 30, medals: 10 }, current: { runs: 3, medals: 1 } }],
      0.01,
    );
    expect(ok.passed).toBe(true);
    expect(ok.overallP).toBe(1);
  });

  it("a history that drifted is not used, and the report says where it differs", () => {
    // c was never won in the history: 27 earlier runs, but the base wins it 3 of 3 now.
    const now = structuredClone(base);
    now.runs = now.runs.map((r) =>
      r.competitionId === "c" ? fakeRun("c", r.seed, "gold", { identity: "id-c" }) : r,
    );
    const out = historyInformed(now, history(9, same), config, { competitions: ids, runs: plan });
    expect("why" in out).toBe(true);
    if (!("why" in out)) return;
    expect(out.why).toBe(
      "the default-branch history differs from the base's current runs on c, so it is not used",
    );
    const check = out.check!;
    expect(check.used).toBe(false);
    const monitor = new SuiteMonitor(now, plan, gate);
    const head = fakeSuite(
      "head",
      plan.map((p) => fakeRun(p.competitionId, p.seed, "none")),
      "h1",
    );
    head.suite.seeds = 3;
    head.suite.competitions = ids;
    for (const r of head.runs) if (monitor.add(r)) break;
    const cmp = { ...monitor.comparison(head), historyCheck: check };
    expect(historySentence(cmp)).toBe(
      `History: 162 earlier runs of the base's current identity in 6 competitions, from 9 default-branch suites, checked against the base's 18 current runs (exact tests of equal medal rates, overall at 0.005 and each competition at 0.005/6): it differs from the current runs on c (history 0.0%, current runs 100.0%; p = ${pBeside(check.differing[0].p, check.perLevel)} ≤ 0.005/6): not used; the head was planned as without a history (every seed, monitored after every run) and compared with the base's current runs.`,
    );
    expect(check.differing[0].p).toBeLessThanOrEqual(0.005 / 6);
  });

  it("a history that agrees plans the head; the comparison's base side is the base's current runs", () => {
    const out = historyInformed(base, history(9, same), config, { competitions: ids, runs: plan });
    if (!("use" in out)) throw new Error(JSON.stringify(out));
    const { check } = out.use;
    expect(check).toMatchObject({ used: true, historyRuns: 162, currentRuns: 18, suites: 9, copies: 0 });
    // a, b, c, d, e steady → 1 head seed; f varies → 3.
    expect(out.use.plan.competitions.map((c) => c.seeds)).toEqual([1, 1, 1, 1, 1, 3]);
    const monitor = new SuiteMonitor(base, plan, gate, undefined, "file", out.use);
    const head = fakeSuite(
      "head",
      ids.map((id) => fakeRun(id, 0, "none")),
      "h1",
    );
    head.suite.seeds = 3;
    head.suite.competitions = ids;
    for (const r of head.runs) monitor.add(r);
    const cmp = monitor.comparison(head);
    expect(cmp.analysis!.medal.baseRuns).toBe(18);
    expect(cmp.history).toBeUndefined();
    // The same head with the plain comparison: the same base side, the same change.
    expect(cmp.delta).toBeCloseTo(compareRuns(base, head, gate).delta!, 12);
  });

  it("suites that only recorded copies add no run and no suite to the check's counts", () => {
    const h = history(9, same);
    // Two later default-branch suites that reused suite 0's runs (same record keys).
    for (const sha of ["x", "y"]) h.entries.push({ ...structuredClone(h.entries[0]), sha: sha.repeat(40) });
    const out = historyInformed(base, h, config, { competitions: ids, runs: plan });
    if (!("use" in out)) throw new Error(JSON.stringify(out));
    expect(out.use.check).toMatchObject({ historyRuns: 162, suites: 9, copies: 36 });
    expect(historySentence({ ...compareRuns(base, base, gate), historyCheck: out.use.check })).toMatch(
      /^History: 162 earlier runs of the base's current identity in 6 competitions, from 9 default-branch suites \(each run counted once: 36 more recorded runs were copies of runs counted already, reused by identity\), checked against the base's 18 current runs/,
    );
  });

  it("the sentence when the history passed, and copies counted once", () => {
    const c: HistoryCheck = {
      competitions: 22,
      historyRuns: 594,
      currentRuns: 66,
      overallP: 0.41,
      overallLevel: 0.005,
      perLevel: 0.005 / 22,
      differing: [],
      minP: 0.031,
      passed: true,
      historyRate: 0.3,
      currentRate: 0.32,
      level: 0.01,
      copies: 1188,
      suites: 27,
      used: true,
    };
    expect(checkSentence(c)).toBe(
      "History: 594 earlier runs of the base's current identity in 22 competitions, from 27 default-branch suites (each run counted once: 1188 more recorded runs were copies of runs counted already, reused by identity), checked against the base's 66 current runs (exact tests of equal medal rates, overall at 0.005 and each competition at 0.005/22): no drift detected (overall p = 0.41 > 0.005; smallest competition p = 0.031 > 0.005/22). Used to plan the head's seeds and their order only: the change, the interval and the verdict compare the head with the base's current runs, so a drift the check cannot see does not bias them.",
    );
    // A p-value just above its level never reads as equal or below it.
    expect(pBeside(0.0050001, 0.005)).toBe("0.0050001");
    expect(pBeside(0.0049999, 0.005)).toBe("0.005");
  });

  it("copies of the base's runs in the history are not earlier runs: too few left, so no plan", () => {
    // Every earlier suite reused the base's runs now (same record keys): 27 recorded, none new.
    const copies: History = {
      version: 1,
      entries: Array.from({ length: 9 }, (_, k) => ({
        ...history(1, same).entries[0],
        sha: String(k + 1).repeat(40),
        competitions: Object.fromEntries(
          ids.map((id) => {
            const runs = base.runs.filter((r) => r.competitionId === id);
            return [
              id,
              {
                runs: 3,
                medals: runs.filter((r) => r.grade?.any_medal).length,
                meanSecs: 1,
                identity: `id-${id}`,
                runKeys: runs.map((r) => ({
                  key: createHash("sha256")
                    .update([r.competitionId, String(r.seed), r.identity, r.startedAt].join("\n"))
                    .digest("hex")
                    .slice(0, 16),
                  medal: r.grade?.any_medal === true,
                })),
              },
            ];
          }),
        ),
      })),
    };
    expect(historyInformed(base, copies, config, { competitions: ids, runs: plan })).toEqual({
      why: "no competition has 20 runs of the base's current identity in the baseline and the default-branch history, each run counted once (most: 3; seeds.historyRuns)",
    });
  });
});

// The levels with drift: P(`regressed`) and P(`no-regression`) at a true drop equal to the tolerance
// stay ≤ α + 2 Monte Carlo standard errors for the history-informed design, with the history 5
// points above or below the base's rates today, and with copies in the history.
const N = Math.max(100, Number(process.env.ADAPTIVE_DRIFT_TEST_SUITES ?? 200));
describe("simulation: the history-informed design keeps its level when the history drifted", () => {
  it("drift ±5 points and copies, at a drop equal to the tolerance", () => {
    const cells = simulateDrift(N, (agent, drop, kind) => agent === 0.35 && drop === 0.05 && kind !== "same");
    expect(cells.map((c) => c.kind)).toEqual(["drift+5", "drift-5", "copies"]);
    const bound = 0.05 + 2 * Math.sqrt((0.05 * 0.95) / N);
    for (const c of cells) {
      expect(c.informed.n).toBe(N);
      expect(c.informed.v.regressed / N).toBeLessThanOrEqual(bound);
      expect(c.informed.v["no-regression"] / N).toBeLessThanOrEqual(bound);
    }
    // The design before issue 30 (the history pooled on the base side, unchecked) does not: a
    // history 5 points better than today flags `regressed`, 5 points worse says `no-regression`.
    const [plus, minus] = cells;
    expect(plus.unchecked.v.regressed / N).toBeGreaterThan(bound);
    expect(minus.unchecked.v["no-regression"] / N).toBeGreaterThan(bound);
  }, 300_000);
});
