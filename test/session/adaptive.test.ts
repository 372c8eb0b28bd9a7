import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { validateConfig } from "../../src/config/load.js";
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
});
