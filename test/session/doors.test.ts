import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runFromConfig } from "../../src/cli/commands/run-suite.js";
import { loadConfig } from "../../src/config/load.js";
import { assertDist, ROOT, runAction } from "../action/harness.js";

// The CLI and the action are two doors over one evaluate(): the same inputs give the same report.
describe("one evaluation core behind both front doors", () => {
  const ws = mkdtempSync(join(tmpdir(), "medalist-doors-"));
  // Outside the workspace (the checkout): on a pull request the action reuses no record found there.
  const results = mkdtempSync(join(tmpdir(), "medalist-doors-results-"));
  afterAll(() => {
    rmSync(ws, { recursive: true, force: true });
    rmSync(results, { recursive: true, force: true });
  });

  it("the CLI and the action write the same report for the same inputs", { timeout: 120_000 }, async () => {
    assertDist();
    const config = (baseline: string) =>
      [
        "name: doors",
        "competitions:",
        "  split: toy",
        "seeds: 2",
        "executor: local",
        "agent:",
        `  command: node ${join(ROOT, "examples/agents/strong/agent.mjs")}`,
        // The agent's files (its identity) are its own folder, not the workspace the runner writes to.
        `  cwd: ${join(ROOT, "examples/agents")}`,
        "limits:",
        "  time: 60s",
        "dataDir: data",
        "registryDir: registry",
        baseline,
        "",
      ].join("\n");
    for (const id of ["toy-churn", "toy-house-prices", "toy-species"])
      cpSync(join(ROOT, "competitions", id), join(ws, "registry", id), { recursive: true });
    writeFileSync(join(ws, "head-only.yml"), config("baseline: { source: none }"));
    writeFileSync(join(ws, "medalist.yml"), config("baseline: { source: file, path: base.json }"));
    const out = join(results, "results");

    // A baseline with a medal on every run: the comparison has something to say.
    expect(await runFromConfig(loadConfig(join(ws, "head-only.yml")), out)).toBe(0);
    const head = JSON.parse(readFileSync(join(out, "head/results.json"), "utf8"));
    const medals = head.runs.map((r: { grade: object }) => ({
      ...r,
      grade: { ...r.grade, any_medal: true, gold_medal: true },
    }));
    writeFileSync(join(ws, "base.json"), JSON.stringify({ ...head, label: "base", runs: medals }));

    // Both doors reuse the same finished runs, so timings agree too.
    const cliCode = await runFromConfig(loadConfig(join(ws, "medalist.yml")), out);
    const cliReport = readFileSync(join(out, "report.md"), "utf8");
    const action = await runAction({
      workspace: ws,
      inputs: {
        config: "medalist.yml",
        baseline: "file:base.json",
        comment: "never",
        "fail-on": "regression",
        "allow-fork-prs": "false",
        // No git checkout here: the pull request's own config judges it, and the report says so first.
        "trust-pr-config": "true",
        "allow-unsandboxed-agent": "true",
        "data-dir": "",
        "results-dir": out,
      },
    });
    const actionReport = readFileSync(join(out, "report.md"), "utf8");
    // The action adds the link to its job; the bundle carries the released version number.
    const version = (s: string) => s.replace(/medalist: [^<\s]*/, "medalist: VERSION");
    const withoutLink = (s: string) =>
      version(
        s
          .replace(/\n\n\[Full report\]\([^)]*\)\n$/, "\n")
          .replace(/^> ⚠️ \*\*`trust-pr-config: true`\*\*.*\n\n/, ""),
      );

    expect(cliReport).toContain("Baseline: results file base.json");
    // The CLI links its viewer folder; the action links the viewer artifact when it could upload it.
    const withoutViewer = (s: string) =>
      s.replace(/ \*\*\[Open the trajectory viewer\]\([^)]*\)\*\* \(runs, logs, code diff\)\./, "");
    expect(cliReport).toContain("[Open the trajectory viewer](viewer/index.html)");
    expect(withoutLink(actionReport)).toBe(version(withoutViewer(cliReport)));
    expect(actionReport).toContain("[Full report](https://github.com/acme/agent/actions/runs/4242)");
    // The same verdict and the same gate decision.
    expect(cliReport).toContain("inconclusive");
    expect(action.outputs.verdict).toBe("inconclusive");
    expect(action.code).toBe(cliCode);
    expect(action.outputs["medal-rate"]).toBe("0.6667");
  });
});
