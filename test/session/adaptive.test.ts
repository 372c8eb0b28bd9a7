import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runFromConfig } from "../../src/cli/commands/run.js";
import { loadConfig, validateConfig } from "../../src/config/load.js";
import type { SuiteResults } from "../../src/results/schema.js";
import { evaluate, openSession } from "../../src/session/evaluate.js";
import type { runSuite } from "../../src/suite/run.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";

// evaluate() with `seeds: { max: 3, adaptive: true }`: the head runs seed 0 everywhere, then
// further seeds only while the verdict is open; the base keeps all its seeds.
describe("adaptive seeds in evaluate()", () => {
  const dir = mkdtempSync(join(tmpdir(), "medalist-adaptive-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const config = validateConfig(
    { competitions: { split: "lite" }, seeds: { max: 3, adaptive: true }, agent: { command: "x" } },
    join(dir, "medalist.yml"),
  );
  const session = openSession(config, dir);
  const ids = session.plan.competitions;
  const like = (label: string, runs: SuiteResults["runs"]): SuiteResults => {
    const s = fakeSuite(label, runs, session.plan.suiteHash);
    s.suite = { name: config.name, hash: session.plan.suiteHash, competitions: ids, seeds: 3 };
    s.environment.timeLimitSecs = config.limits.time;
    return s;
  };
  const base = like(
    "base",
    ids.flatMap((id, i) => [0, 1, 2].map((s) => fakeRun(id, s, (i + s) % 3 === 0 ? "gold" : "none"))),
  );

  it("stops after seed 0 when the verdict is settled, and writes every head run to results.json", async () => {
    const calls: string[][] = [];
    const fake = (async (opts) => {
      const runIds = opts.shard?.runIds ?? [];
      calls.push(runIds);
      const runs = session.plan.runs
        .filter((r) => runIds.includes(r.runId))
        .map((r) => fakeRun(r.competitionId, r.seed, "gold"));
      return like("head", runs);
    }) as typeof runSuite;
    const out = join(dir, "results");
    mkdirSync(out, { recursive: true });
    const ev = await evaluate({
      session,
      resultsDir: out,
      baseline: { kind: "results", results: base, description: "test" },
      runSuite: fake,
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toHaveLength(ids.length);
    expect(ev.head.runs).toHaveLength(ids.length);
    // Every head run medals: a drop beyond the tolerance is ruled out even at the interim level.
    expect(ev.comparison!.looks!.map((l) => l.decision)).toEqual(["no-regression"]);
    expect(ev.comparison!.verdict).toBe("no-regression");
    const written = JSON.parse(readFileSync(join(out, "head", "results.json"), "utf8")) as SuiteResults;
    expect(written.runs).toHaveLength(ids.length);
    expect(readFileSync(join(out, "report.md"), "utf8")).toContain("Adaptive seeds:");
  });

  it(
    "with the real suite runner and the local executor: one look, the head's results hold its runs",
    { timeout: 120_000 },
    async () => {
      const ws = join(dir, "real");
      const root = join(import.meta.dirname, "..", "..");
      for (const id of ["toy-churn", "toy-house-prices", "toy-species"])
        cpSync(join(root, "competitions", id), join(ws, "registry", id), { recursive: true });
      const yml = (seeds: string, baseline: string) =>
        [
          "name: adapt",
          "competitions: { split: toy }",
          `seeds: ${seeds}`,
          "executor: local",
          // The agent's code (with its ../lib) is its working folder: the only one its sandbox shows.
          `agent: { command: node ${join(root, "examples/agents/strong/agent.mjs")}, cwd: ${join(root, "examples/agents")} }`,
          "limits: { time: 60s }",
          "dataDir: data",
          "registryDir: registry",
          `baseline: ${baseline}`,
          "",
        ].join("\n");
      writeFileSync(join(ws, "base.yml"), yml("3", "{ source: none }"));
      writeFileSync(
        join(ws, "medalist.yml"),
        yml("{ max: 3, adaptive: true }", "{ source: file, path: base.json }"),
      );
      expect(await runFromConfig(loadConfig(join(ws, "base.yml")), join(ws, "base-out"))).toBe(0);
      const baseDoc = JSON.parse(
        readFileSync(join(ws, "base-out/head/results.json"), "utf8"),
      ) as SuiteResults;
      writeFileSync(join(ws, "base.json"), JSON.stringify({ ...baseDoc, label: "base" }));
      expect(await runFromConfig(loadConfig(join(ws, "medalist.yml")), join(ws, "out"))).toBe(0);
      const headDoc = JSON.parse(readFileSync(join(ws, "out/head/results.json"), "utf8")) as SuiteResults;
      // The same agent: not behind the base after seed 0, so the head stops there.
      expect(headDoc.runs.map((r) => r.seed)).toEqual([0, 0, 0]);
      expect(headDoc).not.toHaveProperty("shard");
      expect(readFileSync(join(ws, "out/report.md"), "utf8")).toContain("Look 1 (1 head seed, 3 runs");
    },
  );
});
