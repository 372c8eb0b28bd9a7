import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { appendEntry, emptyHistory, entryOf } from "../../src/history/history.js";
import { openSession } from "../../src/session/evaluate.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";
import { runCli } from "../helpers/cli.js";

const ws = mkdtempSync(join(tmpdir(), "medalist-plan-cost-"));
afterAll(() => rmSync(ws, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const cli = async (...argv: string[]) => {
  const r = await runCli(...argv);
  return { code: r.code, out: r.all };
};

describe("medalist plan: expected cost, fixed vs monitored", () => {
  const config = join(ws, "medalist.yml");
  writeFileSync(
    config,
    [
      "name: cost",
      "competitions: { split: toy }",
      "seeds: { max: 3, adaptive: true }",
      "agent: { command: 'true' }",
      "limits: { time: 2h, gpus: 1 }",
      "concurrency: 4",
      "",
    ].join("\n"),
  );

  it("states the assumption without a history, and uses the history's runs of the base's identity", async () => {
    const bare = await cli("plan", "--config", config, "--shards", "1", "--simulations", "20");
    expect(bare.code, bare.out).toBe(0);
    expect(bare.out).toMatch(/Expected cost of the head's \d+ planned runs \(20 simulated suites per case/);
    expect(bare.out).toMatch(
      /Fixed 3 seeds, no change: [\d.]+ GPU-hours, [\d.]+ (s|min|h) wall time with 4 runs at once/,
    );
    expect(bare.out).toMatch(/Monitored after every run, a drop equal to the tolerance \(5 points\): /);
    expect(bare.out).toMatch(/Base medal rates are assumed to spread like MLE-bench's lite leaderboard/);

    const { config: c, baseDir } = loadConfig(config);
    const session = openSession(c, baseDir);
    const runs = session.plan.competitions.flatMap((id) =>
      [0, 1, 2].map((s) =>
        fakeRun(id, s, s === 0 ? "gold" : "none", { identity: `${id}-v1`, durationMs: 1_800_000 }),
      ),
    );
    const hist = appendEntry(emptyHistory(), entryOf(fakeSuite("base", runs, session.plan.suiteHash)));
    writeFileSync(join(ws, "history.json"), JSON.stringify(hist));
    const r = await cli(
      "plan",
      "--config",
      config,
      "--shards",
      "1",
      "--simulations",
      "20",
      "--history",
      join(ws, "history.json"),
      "--json",
    );
    expect(r.code, r.out).toBe(0);
    const json = JSON.parse(r.out);
    expect(json.cost.fromHistory).toBe(session.plan.competitions.length);
    expect(json.cost.historyRuns).toBe(runs.length);
    // Run times from the history: 30 min per run, 1 GPU.
    expect(json.cost.fixed.noChange.hours).toBeCloseTo(runs.length * 0.5, 6);

    // Three runs per competition are too few for the history-informed plan.
    expect(json.cost.informed).toBeNull();
    // Seven default-branch suites of the same identity (21 runs each): what a pull request runs.
    let seven = emptyHistory();
    for (let k = 0; k < 7; k++) {
      const e = entryOf(fakeSuite("base", runs, session.plan.suiteHash));
      seven = appendEntry(seven, { ...e, sha: String(k).repeat(40) });
    }
    writeFileSync(join(ws, "history7.json"), JSON.stringify(seven));
    const args = ["plan", "--config", config, "--shards", "1", "--simulations", "20"];
    const informed = await cli(...args, "--history", join(ws, "history7.json"));
    expect(informed.code, informed.out).toBe(0);
    // 7 of 21 runs won a medal in every competition: p̃ ≈ 0.34, so 3 seeds each (no fewer runs).
    expect(informed.out).toMatch(
      /- History-informed plan \(what a pull request runs with this history: \d+ of \d+ head runs planned, the history as the base side, monitored\), no change: [\d.]+/,
    );
    const ij = JSON.parse((await cli(...args, "--history", join(ws, "history7.json"), "--json")).out);
    expect(ij.cost.informed.headRuns).toBeLessThanOrEqual(ij.cost.headRuns);
    expect(ij.cost.informed.noChange.decisive).toBeGreaterThanOrEqual(0);

    const none = await cli("plan", "--config", config, "--shards", "1", "--simulations", "0", "--json");
    expect(none.code, none.out).toBe(0);
    expect(JSON.parse(none.out).cost).toBeUndefined();

    writeFileSync(join(ws, "bad.json"), "{}");
    const bad = await cli("plan", "--config", config, "--shards", "1", "--history", join(ws, "bad.json"));
    expect(bad.code).toBe(2);
    expect(bad.out).toMatch(/--history .*bad\.json: history version/);
  });
});
