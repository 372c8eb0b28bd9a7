import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { validateConfig } from "../../src/config/load.js";
import { evaluate } from "../../src/session/evaluate.js";
import { Cancelled, openSession } from "../../src/session/input.js";
import type { runSuite } from "../../src/suite/run.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";

// Cancelled while the baseline runs: the head never starts, and what the base finished is still
// written (report.md and the viewer), saying plainly that the head did not run.
describe("a cancel while the baseline runs", () => {
  const dir = mkdtempSync(join(tmpdir(), "medalist-cancel-base-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes the base's finished runs and says the head did not run", async () => {
    const config = validateConfig(
      { name: "c", competitions: { include: ["toy-churn"] }, seeds: 2, agent: { command: "x" } },
      join(dir, "medalist.yml"),
    );
    const session = openSession(config, dir);
    const ac = new AbortController();
    const labels: string[] = [];
    const fake = (async (opts) => {
      labels.push(opts.label);
      ac.abort(); // Ctrl-C during the base's second run
      const cancelled = { ...fakeRun("toy-churn", 1, "none"), outcome: "infra_error" as const };
      cancelled.details = { notRun: "true", cancelled: "started" };
      return fakeSuite(opts.label, [fakeRun("toy-churn", 0, "bronze"), cancelled], session.plan.suiteHash);
    }) as typeof runSuite;
    const out = join(dir, "out");
    const err = await evaluate({
      session,
      resultsDir: out,
      baseline: { kind: "run", agent: config.agent, description: "base agent" },
      runSuite: fake,
      signal: ac.signal,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Cancelled);
    expect(labels).toEqual(["base"]);
    const written = (err as Cancelled).written!;
    expect(written.report).toBe(join(out, "report.md"));
    const report = readFileSync(written.report, "utf8");
    expect(report).toMatch(/^> ⚠️ \*\*Cancelled\*\*/);
    expect(report).toContain("The head did not run: the suite was cancelled while the baseline ran.");
    expect(report).toContain("toy-churn");
    expect(existsSync(join(written.viewer!, "index.html"))).toBe(true);
  });
});
