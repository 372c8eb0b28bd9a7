import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { appendEntry, emptyHistory, entryOf } from "../../src/history/history.js";
import { openSession } from "../../src/session/input.js";
import { HISTORY_OFF, suitesToGo } from "../../src/session/plan-cost.js";
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
      "seeds: { max: 3, adaptive: true, history: true }",
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
    // Issue 30: how long until a pull request's head can use the history-informed plan.
    expect(bare.out).toContain(
      "History: the history-informed plan needs 20 runs of the current identity in a competition (seeds.historyRuns), each run counted once: 7 more default-branch suites of 3 seeds before it starts (the most a competition has: 0). Only runs a default-branch suite executes count: runs reused by identity add none, and a change to the agent, its command, environment, limits, data or grader starts a new identity from 0.",
    );

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
    const three = await cli(
      ...["plan", "--config", config, "--shards", "1", "--simulations", "20"],
      "--history",
      join(ws, "history.json"),
    );
    expect(three.out).toContain(
      "6 more default-branch suites of 3 seeds before it starts (the most a competition has: 3)",
    );
    // Seven suites that reused the same runs (copies): still 3 runs, still 6 suites to go.
    let copies = emptyHistory();
    for (let k = 0; k < 7; k++)
      copies = appendEntry(copies, {
        ...entryOf(fakeSuite("base", runs, session.plan.suiteHash)),
        sha: String(k).repeat(40),
      });
    writeFileSync(join(ws, "copies.json"), JSON.stringify(copies));
    const copied = await cli(
      ...["plan", "--config", config, "--shards", "1", "--simulations", "20"],
      "--history",
      join(ws, "copies.json"),
    );
    expect(copied.out).toContain(
      "6 more default-branch suites of 3 seeds before it starts (the most a competition has: 3)",
    );
    // Seven default-branch suites of the same identity (21 runs each): what a pull request runs.
    let seven = emptyHistory();
    for (let k = 0; k < 7; k++) {
      // Each suite executed its runs (its own start times): a reused run would count once.
      const own = runs.map((r) => ({ ...r, startedAt: `2026-11-0${k + 1}T00:00:00.000Z` }));
      const e = entryOf(fakeSuite("base", own, session.plan.suiteHash));
      seven = appendEntry(seven, { ...e, sha: String(k).repeat(40) });
    }
    writeFileSync(join(ws, "history7.json"), JSON.stringify(seven));
    const args = ["plan", "--config", config, "--shards", "1", "--simulations", "20"];
    const informed = await cli(...args, "--history", join(ws, "history7.json"));
    expect(informed.code, informed.out).toBe(0);
    // 7 of 21 runs won a medal in every competition: p̃ ≈ 0.34, so 3 seeds each (no fewer runs).
    expect(informed.out).toMatch(
      /- History-informed plan \(what a pull request runs with this history: \d+ of \d+ head runs planned, the history planning the seeds and their order, the base's current runs as the base side, monitored\), no change: [\d.]+/,
    );
    // 21 runs each: every competition can be planned now.
    expect(informed.out).toContain(
      "History: every competition has at least 20 runs of the current identity (seeds.historyRuns; each run counted once): a pull request's head uses the history-informed plan when the history passes its drift check against the base's current runs.",
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

describe("medalist plan with the default seeds", () => {
  it("prices the monitored design and says the history-informed plan is off (issue 30)", async () => {
    const config = join(ws, "default-seeds.yml");
    writeFileSync(
      config,
      [
        "name: dflt",
        "competitions: { split: toy }",
        "agent: { command: 'true' }",
        "limits: { time: 1h }",
        "",
      ].join("\n"),
    );
    const r = await cli("plan", "--config", config, "--shards", "1", "--simulations", "20");
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(
      /Monitored after every run \(seeds: \{ max: 3, adaptive: true \}[^)]*\), no change: /,
    );
    expect(r.out).toContain(HISTORY_OFF);
    writeFileSync(
      config,
      ["name: fixed", "competitions: { split: toy }", "seeds: 3", "agent: { command: 'true' }", ""].join(
        "\n",
      ),
    );
    expect((await cli("plan", "--config", config, "--shards", "1", "--simulations", "20")).out).not.toContain(
      "History:",
    );
  });
});

describe("suitesToGo", () => {
  it("counts the suites until the first competition and until every competition has enough runs", () => {
    expect(suitesToGo([9, 3, 0], 20, 3)).toBe(
      "History: the history-informed plan needs 20 runs of the current identity in a competition (seeds.historyRuns), each run counted once: 4 more default-branch suites of 3 seeds before it starts (the most a competition has: 9), and 7 more default-branch suites before it plans every competition (the fewest: 0). Only runs a default-branch suite executes count: runs reused by identity add none, and a change to the agent, its command, environment, limits, data or grader starts a new identity from 0.",
    );
    expect(suitesToGo([20, 19], 20, 3)).toMatch(
      /: it can start now \(a competition has 20\), and 1 more default-branch suite before it plans every competition \(the fewest: 19\)\./,
    );
    expect(suitesToGo([3], undefined, 3)).toBeNull();
    expect(suitesToGo([3], 20, 1)).toBeNull();
  });
});
