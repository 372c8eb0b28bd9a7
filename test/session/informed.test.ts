import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runFromConfig } from "../../src/cli/commands/run-suite.js";
import { loadConfig } from "../../src/config/load.js";
import { competitionRecords, type History } from "../../src/history/history.js";
import type { SuiteResults } from "../../src/results/schema.js";
import { coinSuite, readRun } from "../helpers/coin-suite.js";
import { runCli } from "../helpers/cli.js";

// The history-informed plan through `medalist run --baseline --history` (issue 21): a base that
// always wins 4 competitions, never wins 4 and wins half of 4 more; 9 earlier default-branch suites
// of the same identity in the history. The steady competitions get 1 head seed, the coin flips 3.
describe("medalist run with the history-informed plan", () => {
  const dir = mkdtempSync(join(tmpdir(), "medalist-informed-e2e-"));
  afterAll(() => (process.env.KEEP ? undefined : rmSync(dir, { recursive: true, force: true })));
  const M = 12;
  const { ids, yml } = coinSuite(dir, M, "seeds: { max: 3, adaptive: true, history: true }");
  const p = (i: number) => (i < 4 ? 1 : i < 8 ? 0 : 0.5);
  const baseEnv: Record<string, string> = { SALT: "b" };
  ids.forEach((id, i) => (baseEnv[`MEDAL_P_${id.replace(/-/g, "_")}`] = String(p(i))));
  const baseFile = join(dir, "base.json");
  const historyFile = join(dir, "history.json");

  beforeAll(async () => {
    // The default branch's run of the base (as the action would have cached it, with its commit).
    const out = join(dir, "base-run");
    expect(await runFromConfig(loadConfig(yml("base", baseEnv)), out)).toBe(0);
    const base = JSON.parse(readFileSync(join(out, "head", "results.json"), "utf8")) as SuiteResults;
    base.git = { sha: "b".repeat(40), ref: "refs/heads/main" };
    writeFileSync(baseFile, JSON.stringify(base));
    // Nine earlier suites of the same identity: 3 runs per competition, medals as the rates say.
    const records = competitionRecords(base);
    const history: History = {
      version: 1,
      entries: Array.from({ length: 9 }, (_, k) => ({
        sha: String(k).repeat(40),
        finishedAt: `2026-11-0${k + 1}T00:00:00.000Z`,
        suiteHash: base.suite.hash,
        agent: base.agent.description,
        runs: 3 * M,
        comparable: 3 * M,
        medalRate: null,
        meanPercentile: null,
        dollars: null,
        durationMs: 0,
        competitions: Object.fromEntries(
          ids.map((id, i) => {
            const medals = p(i) === 0.5 ? 1 + (k % 2) : 3 * p(i);
            // Three runs executed by this earlier suite: their own record keys.
            const runKeys = [0, 1, 2].map((seed) => ({
              key: createHash("sha256").update(`${k}/${id}/${seed}`).digest("hex").slice(0, 16),
              medal: seed < medals,
            }));
            return [id, { ...records[id], runs: 3, medals, runKeys }];
          }),
        ),
      })),
    };
    writeFileSync(historyFile, JSON.stringify(history));
  }, 300_000);

  const read = readRun;

  it(
    "plans fewer head runs where the outcome never varies, stops at the verdict and says what it saved",
    { timeout: 300_000 },
    async () => {
      const out = join(dir, "out-informed");
      const cfg = yml("informed", { MEDAL_P: "0", SALT: "h" });
      const res = await runCli(
        ...["run", "--config", cfg, "--out", out, "--baseline", baseFile, "--history", historyFile],
      );
      const { head, cmp, report } = read(out);
      expect(res.code).toBe(1);
      expect(cmp.verdict).toBe("regressed");
      // 8 steady competitions × 1 seed + 4 coin flips × 3 seeds.
      expect(cmp.informed!.headRuns).toBe(20);
      expect(cmp.informed!.competitions.map((c) => c.seeds)).toEqual(ids.map((_, i) => (i < 8 ? 1 : 3)));
      expect(cmp.historyCheck!.suites).toBe(9);
      expect(cmp.historyCheck!.used).toBe(true);
      // No steady competition ran a second seed (no infrastructure error needed a replacement).
      for (const r of head.runs) if (ids.indexOf(r.competitionId) < 8) expect(r.seed).toBe(0);
      expect(head.runs.length).toBeLessThanOrEqual(20);
      const n = cmp.monitor!.usedRuns;
      expect(report).toContain(
        `stopped after ${n} of 20 planned head runs (the history-informed plan's; the fixed design has 36)`,
      );
      expect(report).toContain(`${36 - head.runs.length} of the fixed design's 36 runs were not started`);
      expect(report).toContain("History-informed plan: 20 of 36 head runs planned");
      // The history was checked against the base's 36 current runs and planned the head only.
      expect(report).toMatch(
        /History: 324 earlier runs of the base's current identity in 12 competitions, from 9 default-branch suites, checked against the base's 36 current runs \(exact tests of equal medal rates, overall at 0\.005 and each competition at 0\.005\/12\): no drift detected \(overall p = [\d.e-]+ > 0\.005; smallest competition p = [\d.e-]+ > 0\.005\/12\)\. Used to plan the head's seeds and their order only/,
      );
      expect(res.all).toContain("[head] history-informed plan: 20 of 36 head runs planned");
      // The comparison's base side is the base's current runs.
      expect(cmp.analysis!.medal.baseRuns).toBe(3 * cmp.analysis!.medal.competitions);
    },
  );

  it(
    "without enough history it says why and runs the plain monitored design",
    { timeout: 300_000 },
    async () => {
      const out = join(dir, "out-short");
      const short = join(dir, "short.json");
      const h = JSON.parse(readFileSync(historyFile, "utf8")) as History;
      writeFileSync(short, JSON.stringify({ ...h, entries: h.entries.slice(0, 2) }));
      const cfg = yml("short", { MEDAL_P: "0", SALT: "h" });
      const res = await runCli(
        ...["run", "--config", cfg, "--out", out, "--baseline", baseFile, "--history", short],
      );
      const { cmp, report } = read(out);
      expect(res.all).toContain(
        "history-informed plan not used: no competition has 20 runs of the base's current identity in the baseline and the default-branch history, each run counted once (most: 9; seeds.historyRuns)",
      );
      expect(cmp.informed).toBeUndefined();
      expect(cmp.history).toBeUndefined();
      expect(cmp.historyCheck).toBeUndefined();
      expect(report).not.toContain("History-informed plan");
      expect(report).toContain("of 36 planned head runs because `regressed` was reached");
    },
  );

  it(
    "seeds.cover: never-won competitions covered by a history bound are not run, and the report says how they count",
    { timeout: 300_000 },
    async () => {
      const out = join(dir, "out-cover");
      // A 25-point tolerance over 12 competitions leaves room for two bounds (plan/informed.ts).
      const headEnv: Record<string, string> = { ...baseEnv, SALT: "c" };
      const cfg = yml("cover", headEnv, undefined, [
        "seeds: { max: 3, adaptive: true, history: true, cover: true }",
        "gate: { tolerance: 0.25 }",
      ]);
      const res = await runCli(
        ...["run", "--config", cfg, "--out", out, "--baseline", baseFile, "--history", historyFile],
      );
      const { head, cmp, report } = read(out);
      expect(res.code).toBe(0);
      const covered = cmp.informed!.competitions.filter((c) => c.covered);
      expect(covered.map((c) => c.id)).toEqual([ids[4], ids[5]]);
      expect(cmp.informed!.alphaHistory).toBeCloseTo(0.01, 12);
      // Never run, never "not comparable": they count by their bound.
      for (const c of covered) {
        expect(head.runs.some((r) => r.competitionId === c.id)).toBe(false);
        expect(cmp.competitions.find((r) => r.competitionId === c.id)!.covered).toBe(true);
      }
      expect(cmp.dropped).toEqual([]);
      expect(cmp.analysis!.medal.competitions).toBe(10);
      const claims = cmp.analysis!.medal.claimTolerances!;
      // The suite's 25-point tolerance over 12, less the bounds, spread over the 10 that ran.
      const upper = covered.reduce((a, c) => a + c.covered!.upper, 0);
      expect(claims.noRegression!).toBeCloseTo((0.25 * 12 - upper) / 10, 12);
      expect(claims.regressed).toBeCloseTo((0.25 * 12 + 2) / 10, 12);
      expect(cmp.monitor!.alphaRuns).toBeCloseTo(0.04, 12);
      expect(cmp.verdict).toBe("no-regression");
      expect(report).toContain(
        "2 competitions were covered by a bound from the base's history instead of head runs (listed in the details): the medal rates, the percentiles, the change, the interval and the power above are over the 10 competitions compared",
      );
      expect(report).toMatch(
        /rules out a drop larger than \d+\.\d points, what the competitions the head ran must rule out for the 25\.0 points tolerance with the covered ones counted against the head/,
      );
      expect(report).toMatch(
        /toy-coin-04: base 0 medals in 27 runs of its current identity; its possible drop ≤ \d+\.\d points at 99\.9\d* % \(one-sided\), counted against the head/,
      );
      expect(report).toContain("| covered by a history bound |");
      expect(res.all).toContain("[head] history-informed plan: ");
    },
  );

  it("--history with --shard is refused in one sentence", async () => {
    const res = await runCli(
      ...["run", "--config", yml("refused", { MEDAL_P: "0" }), "--shard", "1/2", "--history", historyFile],
    );
    expect(res.code).toBe(2);
    expect(res.stderr.trim()).toBe(
      "medalist run: --history goes with a whole run, not with --shard (a shard is never monitored)",
    );
  });
});
