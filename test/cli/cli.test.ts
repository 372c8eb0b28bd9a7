import { describe, expect, it, vi, afterEach } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { toJson } from "../../src/suite/store.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";
import { runCli } from "../helpers/cli.js";

const root = resolve(import.meta.dirname, "..", "..");

const cli = runCli;

afterEach(() => vi.restoreAllMocks());

describe("medalist CLI", () => {
  it("lists commands and has --help everywhere", async () => {
    const r = await cli("--help");
    expect(r.code).toBe(0);
    for (const name of ["run", "demo", "compare", "report", "grade", "rank", "schema"]) {
      expect(r.stdout).toContain(`  ${name}`);
      const h = await cli(name, "--help");
      expect(h.code).toBe(0);
      expect(h.stdout).toMatch(/^Usage: medalist /);
    }
  });

  it("rejects an unknown command or option in one line with exit code 2", async () => {
    expect((await cli("frobnicate")).code).toBe(2);
    const r = await cli("run", "--config", "x.yml", "--bogus");
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("--bogus");
  });

  it("reports a bad config by field path, exit code 2, no stack trace", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-cli-"));
    const cfg = join(dir, "medalist.yml");
    writeFileSync(cfg, "competitions: {split: toy}\nseeds: many\nagent: {command: x}\n");
    const r = await cli("run", "--config", cfg, "--out", dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('seeds: expected a number or a mapping (key: value), got the string "many"');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("runs a suite from a config and compares with a results file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-cli-"));
    const cfg = join(dir, "medalist.yml");
    writeFileSync(
      cfg,
      [
        "competitions: {include: [toy-species]}",
        "seeds: 2",
        `agent: {command: node examples/agents/weak/agent.mjs, cwd: ${root}}`,
        `dataDir: ${join(dir, "data")}`,
        "baseline: {source: run, agent: {command: node examples/agents/weak/agent.mjs, cwd: " + root + "}}",
      ].join("\n"),
    );
    const r = await cli("run", "--config", cfg, "--out", join(dir, "out"));
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("[base] 2/2 toy-species.s1: completed");
    expect(readFileSync(join(dir, "out", "report.md"), "utf8")).toMatch(/\| toy-species +\|/);
    // The terminal gets the summary; its last line is the verdict.
    expect(r.stdout.split("\n").at(-1)).toMatch(/^Verdict: .*; exit code 0\.$/);
    const cmp = JSON.parse(readFileSync(join(dir, "out", "comparison.json"), "utf8"));
    expect(cmp.base.runs).toBe(2);
    expect(cmp.head.runs).toBe(2);
  });

  it("baseline: cache on the CLI: a clear hint, or --baseline FILE stands in for the cache", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-cli-"));
    const lines = [
      "competitions: {include: [toy-species]}",
      "seeds: 1",
      `agent: {command: node weak/agent.mjs, cwd: ${root}/examples/agents}`,
      `dataDir: ${join(dir, "data")}`,
    ];
    writeFileSync(join(dir, "ci.yml"), [...lines, "baseline: {source: cache}"].join("\n"));
    const refused = await cli("run", "--config", join(dir, "ci.yml"), "--out", join(dir, "out"));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/cannot read.*medalist run --config FILE --baseline results\.json/);

    const head = await cli(
      "run",
      "--config",
      join(dir, "ci.yml"),
      "--out",
      join(dir, "a"),
      "--baseline",
      "/nonexistent.json",
    );
    expect(head.code).toBe(2);
    expect(head.stderr).toContain("results file not found: /nonexistent.json");
    writeFileSync(join(dir, "plain.yml"), lines.join("\n"));
    expect((await cli("run", "--config", join(dir, "plain.yml"), "--out", join(dir, "base"))).code).toBe(0);
    const base = join(dir, "base", "head", "results.json");
    const r = await cli(
      "run",
      "--config",
      join(dir, "ci.yml"),
      "--out",
      join(dir, "out"),
      "--baseline",
      base,
    );
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, "out", "report.md"), "utf8")).toContain(`Baseline: results file ${base}`);
  });

  it("without a baseline the report's first line says so; gate.missingBaseline decides the gate", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-cli-"));
    const lines = [
      "competitions: {include: [toy-species]}",
      "seeds: 1",
      `agent: {command: node weak/agent.mjs, cwd: ${root}/examples/agents}`,
      `dataDir: ${join(dir, "data")}`,
    ];
    writeFileSync(join(dir, "pass.yml"), lines.join("\n"));
    const pass = await cli("run", "--config", join(dir, "pass.yml"), "--out", join(dir, "out"));
    expect(pass.code).toBe(0);
    expect(readFileSync(join(dir, "out", "report.md"), "utf8").split("\n")[0]).toBe(
      "> ⚠️ **No baseline**: baseline: none; only the head was evaluated. Nothing was compared, so the gate passes (gate.missingBaseline: pass).",
    );
    writeFileSync(join(dir, "fail.yml"), [...lines, "gate: {missingBaseline: fail}"].join("\n"));
    const fail = await cli("run", "--config", join(dir, "fail.yml"), "--out", join(dir, "out"));
    expect(fail.code).toBe(1);
    expect(readFileSync(join(dir, "out", "report.md"), "utf8").split("\n")[0]).toContain(
      "The gate fails (gate.missingBaseline: fail).",
    );
    expect(fail.stdout.split("\n").slice(-2)).toEqual([
      expect.stringMatching(/^took /),
      "Verdict: no verdict (no baseline to compare with); gate failed; exit code 1.",
    ]);
    expect(fail.stdout).toContain(
      "Gate: failed — no baseline to compare with, and gate.missingBaseline is fail.",
    );
  });

  it("run checks --rerun and --only up front", async () => {
    const bad = await cli("run", "--config", "x.yml", "--rerun", "crashed");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--rerun: unknown outcome "crashed"');
  });

  it("compare prints Markdown or JSON and can gate on a regression", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-cli-"));
    const ids = Array.from({ length: 12 }, (_, i) => `c${i}`);
    const base = fakeSuite(
      "base",
      ids.flatMap((id) => [0, 1, 2].map((s) => fakeRun(id, s, "gold"))),
    );
    const head = fakeSuite(
      "head",
      ids.flatMap((id) => [0, 1, 2].map((s) => fakeRun(id, s, "none"))),
    );
    writeFileSync(join(dir, "base.json"), toJson(base));
    writeFileSync(join(dir, "head.json"), toJson(head));
    const md = await cli("compare", join(dir, "base.json"), join(dir, "head.json"));
    expect(md.code).toBe(0);
    expect(md.stdout).toContain("❌ regressed");
    const json = await cli("compare", join(dir, "base.json"), join(dir, "head.json"), "--json");
    expect(JSON.parse(json.stdout).verdict).toBe("regressed");
    const gated = await cli(
      "compare",
      join(dir, "base.json"),
      join(dir, "head.json"),
      "--fail-on",
      "regression",
    );
    expect(gated.code).toBe(1);
    const bad = await cli("compare", join(dir, "base.json"), join(dir, "head.json"), "--tolerance", "2");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--tolerance");
    const badPct = await cli(
      "compare",
      join(dir, "base.json"),
      join(dir, "head.json"),
      "--percentile-tolerance",
      "2",
    );
    expect(badPct.stderr).toContain("--percentile-tolerance");
    // A duplicate (competition, seed) run is an input error: exit 2, one line, no stack trace.
    writeFileSync(join(dir, "dup.json"), toJson({ ...head, runs: [...head.runs, head.runs[0]] }));
    const dup = await cli("compare", join(dir, "base.json"), join(dir, "dup.json"));
    expect(dup.code).toBe(2);
    expect(dup.stderr).toContain("two runs of c0 seed 0");
    expect(dup.stderr).not.toMatch(/\n\s+at /);
    // Different suites: verdict error, the gate fails, unless allowed.
    writeFileSync(join(dir, "other.json"), toJson({ ...head, suite: { ...head.suite, hash: "other" } }));
    const other = await cli(
      "compare",
      join(dir, "base.json"),
      join(dir, "other.json"),
      "--fail-on",
      "regression",
    );
    expect(other.code).toBe(1);
    expect(other.stdout).toContain("suite hash: base abc, head other");
    const allowed = await cli(
      "compare",
      join(dir, "base.json"),
      join(dir, "other.json"),
      "--allow-suite-mismatch",
    );
    expect(allowed.stdout).toContain("❌ regressed");
  });

  it("report renders a results file; a broken one is one clear line", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-cli-"));
    writeFileSync(join(dir, "r.json"), toJson(fakeSuite("head", [fakeRun("a", 0, "silver")])));
    const r = await cli("report", join(dir, "r.json"));
    expect(r.stdout).toContain("🥈");
    writeFileSync(join(dir, "bad.json"), JSON.stringify({ schemaVersion: 1, runs: "no" }));
    const bad = await cli("report", join(dir, "bad.json"));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("bad.json");
  });

  it("schema writes JSON Schemas that match the committed ones", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-cli-"));
    await cli("schema", "--out", dir);
    for (const f of ["medalist.schema.json", "results.schema.json"]) {
      expect(readFileSync(join(dir, f), "utf8")).toBe(readFileSync(join(root, "schema", f), "utf8"));
    }
  });
});

describe("bundled entry points", () => {
  it("dist/index.js outside GitHub Actions fails with one readable line", () => {
    const env = { ...process.env };
    delete env.GITHUB_ACTIONS;
    const r = spawnSync(process.execPath, [join(root, "dist", "index.js")], { env, encoding: "utf8" });
    expect(r.status).not.toBe(0);
    const lines = (r.stdout + r.stderr).trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("GitHub Action");
    expect(lines[0]).not.toMatch(/\bat .*:\d+:\d+/);
  });

  it("dist/cli.js runs", () => {
    const r = spawnSync(process.execPath, [join(root, "dist", "cli.js"), "--version"], { encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
