// The first hour of a new user, followed literally: README's quick start (its commands read from
// README.md), then check, plan, run, export and import with the default paths, and each message a
// newcomer's mistake gets. Every line the user reads is asserted, the exit codes, and that the
// verdict is the last line. Runs in a folder of its own (the working folder is the user's).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runCli } from "../helpers/cli.js";
import { bwrapProblem } from "../../src/execute/local/sandbox.js";
import { causeLine, describeFailure } from "../../src/execute/failure.js";
import { toJson } from "../../src/suite/store.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";

const ROOT = resolve(import.meta.dirname, "..", "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const AGENTS = join(ROOT, "examples", "agents");

/** A bubblewrap sandbox starts here (required where the CI says so). */
const bwrap = bwrapProblem() === null;
if (!bwrap && process.env.MEDALIST_REQUIRE_BWRAP === "1")
  throw new Error(`MEDALIST_REQUIRE_BWRAP=1 but bwrap cannot run: ${bwrapProblem()}`);

let home: string;
let before: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), "medalist-first-hour-"));
  before = process.cwd();
  process.chdir(home);
});
afterAll(() => process.chdir(before));

/** Lines as printed, empty ones dropped. */
const lines = (text: string) => text.split("\n").filter((l) => l.trim() !== "");

/** A config in the user's folder; the toy agents of examples/ run from their own folder. */
function config(file: string, body: string[]): string {
  writeFileSync(join(home, file), [...body, `dataDir: ${join(home, "data")}`, ""].join("\n"));
  return file;
}

describe("README's quick start, followed literally", () => {
  // The quick start's one code block: `npm ci && npm run demo` and `npm test`.
  const block = /## Quick start[\s\S]*?```sh\n([\s\S]*?)```/.exec(README)![1];
  const commands = lines(block).map((l) => l.replace(/\s+#.*$/, "").trim());

  it("names the two commands, and package.json runs them", () => {
    expect(commands).toEqual(["npm ci && npm run demo", "npm test"]);
    const scripts = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts;
    // `npm run demo` is the CLI's demo; `npm test` the test suite (not run from inside itself).
    expect(scripts.demo).toBe("tsx src/cli.ts demo");
    expect(scripts.test).toMatch(/^vitest run/);
  });

  it("npm run demo: a summary of at most 15 lines, the verdict on the last one, the full comment in report.md", async () => {
    const demo = commands[0].split("&&")[1].trim();
    expect(demo).toBe("npm run demo");
    const argv = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"))
      .scripts.demo.split(" ")
      .slice(2);
    const r = await runCli(...argv);
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(out.length).toBeLessThanOrEqual(15);
    expect(out).toEqual([
      "Medalist · toy-demo · 🟡 inconclusive",
      "inconclusive: the runs neither show nor rule out a drop larger than the tolerance.",
      expect.stringMatching(
        /^Medal rate: 0\.0% \(0\/6\) → 66\.7% \(4\/6\); \+66\.7 pts, not significant \(90% interval: −\d+\.\d pts to \+\d+\.\d pts\)$/,
      ),
      expect.stringMatching(
        /^Mean percentile: \d+\.\d% → \d+\.\d%; \+\d+\.\d pts, 🟢 better \(90% interval: \+\d+\.\d pts to \+\d+\.\d pts\) \(not gated: the verdict is the medal rate's\)$/,
      ),
      expect.stringMatching(/^Gate: passed — verdict inconclusive; /),
      "report:  .medalist/demo/report.md (the full comment)",
      "viewer:  .medalist/demo/viewer/index.html",
      "results: .medalist/demo/head/results.json, .medalist/demo/base/results.json",
      expect.stringMatching(/^took \d+\.\ds$/),
      "Verdict: 🟡 inconclusive; gate passed; exit code 0.",
    ]);
    // No "🟢 better" beside the medal rate while the interval allows a drop: the mark follows the interval.
    expect(out[2]).not.toContain("🟢");
    // What README shows is what it prints, the bounds included (timings aside).
    for (const line of out.filter((l) =>
      /^(Medalist|inconclusive|Medal rate|Mean percentile|report|viewer|results|Verdict)/.test(l),
    ))
      expect(README).toContain(line);
    // The full comment is on disk, where the summary says.
    expect(readFileSync(join(home, ".medalist/demo/report.md"), "utf8")).toMatch(
      /^## Medalist · toy-demo · 🟡 inconclusive/m,
    );
    expect(existsSync(join(home, ".medalist/demo/viewer/index.html"))).toBe(true);
  });
});

describe("then a config of one's own: check, plan, run, export, import", () => {
  it("check: one line per thing, exit 0 when every check passes; plan and run use the same folder names", async () => {
    const cfg = config("medalist.yml", [
      "name: my-agent",
      "competitions: {include: [toy-species]}",
      "seeds: 1",
      `agent: {command: node strong/agent.mjs, cwd: ${AGENTS}}`,
      ...(bwrap ? [] : ["local: {sandbox: none}"]),
    ]);
    const c = await runCli("check", "--config", cfg);
    expect(lines(c.stdout)).toEqual([
      `✓ config: ${join(home, cfg)}: suite my-agent, 1 run (1 competition × 1 seed), executor local`,
      `✓ agent: command node strong/agent.mjs in ${AGENTS}`,
      `✓ data: 1 competition ready in ${join(home, "data")} (toy competitions are generated on the first run)`,
      "✓ executor: local: the agent runs as a process on this machine",
      bwrap
        ? "✓ sandbox: bubblewrap starts a sandbox on this machine"
        : "✓ sandbox: none (local.sandbox: none): the agent runs as this machine's user",
      "medalist check: every check passed; exit code 0.",
    ]);
    expect(c.code).toBe(0);

    const p = await runCli("plan", "--config", cfg, "--shards", "1", "--simulations", "0");
    expect(p.code).toBe(0);
    expect(lines(p.stdout)[0]).toMatch(/^Suite my-agent \([0-9a-f]+\): 1 run; /);

    const r = await runCli("run", "--config", cfg);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("[head] 1 run: 1 competition × 1 seed, agent: node strong/agent.mjs");
    const out = lines(r.stdout);
    expect(out).toEqual([
      "Medalist · my-agent · no verdict (no baseline to compare with)",
      expect.stringMatching(
        /^Head medal rate: \d+\.\d% \([01]\/1\); no baseline: baseline: none; only the head was evaluated$/,
      ),
      "Gate: passed — no baseline to compare with (gate.missingBaseline: pass).",
      "report:  .medalist/my-agent/report.md (the full comment)",
      "viewer:  .medalist/my-agent/viewer/index.html",
      "results: .medalist/my-agent/head/results.json",
      expect.stringMatching(/^took \d+\.\ds$/),
      "Verdict: no verdict (no baseline to compare with); gate passed; exit code 0.",
    ]);

    // run --json: the comparison (none here), the gate and the paths, as JSON.
    const j = await runCli("run", "--config", cfg, "--json");
    expect(j.code).toBe(0);
    const doc = JSON.parse(j.stdout);
    expect(doc).toMatchObject({
      verdict: null,
      comparison: null,
      exitCode: 0,
      gate: { decision: "passed" },
      paths: { report: ".medalist/my-agent/report.md" },
    });
    expect(lines(j.stderr).at(-1)).toBe(
      "Verdict: no verdict (no baseline to compare with); gate passed; exit code 0.",
    );

    // export reads what run wrote: .medalist/<name>/head, not .medalist/out/head.
    const ex = await runCli("export", "--mlebench", "group", "--config", cfg);
    expect(ex.code).toBe(0);
    expect(lines(ex.stderr)[0]).toBe(`wrote 1 run as an MLE-bench run group in ${join(home, "group")}`);
    expect(existsSync(join(home, "group", "metadata.json"))).toBe(true);
    // Two suites here now (demo and my-agent): without a name, one sentence says which exist.
    const two = await runCli("export", "--mlebench", "group2");
    expect(two.code).toBe(2);
    expect(lines(two.stderr)).toEqual([
      "medalist export: several results under .medalist/ (.medalist/demo/head, .medalist/my-agent/head): name one, or give --config FILE for its suite's",
    ]);
    const imp = await runCli("import", "--help");
    expect(imp.stdout).toContain("medalist compare imported.json .medalist/NAME/head/results.json");
    expect(imp.stdout).not.toContain(".medalist/out");
  });

  it("check: a missing agent folder, data not prepared and a sandbox path are ✗ lines, exit 2", async () => {
    mkdirSync(join(home, "elsewhere"), { recursive: true });
    writeFileSync(join(home, "elsewhere", "agent.mjs"), "");
    const cfg = config("bad.yml", [
      "name: bad",
      "competitions: {include: [aerial-cactus-identification]}",
      "seeds: 1",
      `agent: {command: node ${join(home, "elsewhere", "agent.mjs")}, cwd: ${AGENTS}}`,
      ...(bwrap ? [] : ["local: {sandbox: none}"]),
    ]);
    const c = await runCli("check", "--config", cfg);
    expect(c.code).toBe(2);
    const out = lines(c.stdout);
    expect(out.at(-1)).toMatch(/^medalist check: \d problems?; exit code 2\.$/);
    expect(out).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^✗ data: 1 competition not prepared in ${join(home, "data")} \\(aerial-cactus-identification\\): run medalist prepare --competition aerial-cactus-identification --data-dir `,
        ),
      ),
    );
    if (!bwrap) return;
    // Before a run too: one sentence, exit 2, no run started.
    const hidden = config("hidden.yml", [
      "competitions: {include: [toy-species]}",
      `agent: {command: node ${join(home, "elsewhere", "agent.mjs")}, cwd: ${AGENTS}}`,
    ]);
    const run = await runCli("run", "--config", hidden);
    expect(run.code).toBe(2);
    expect(lines(run.stderr)).toEqual([
      expect.stringMatching(
        /^medalist run: agent\.command names .*agent\.mjs, which the local sandbox \(bubblewrap\) does not show: /,
      ),
    ]);
    expect(out[1]).toBe(
      `✗ agent: agent.command names ${join(home, "elsewhere", "agent.mjs")}, which the local sandbox (bubblewrap) does not show: it mounts agent.cwd (${AGENTS}), the system folders and the run's own folders only; set agent.cwd to a folder that holds agent.mjs (e.g. ${join(home, "elsewhere")}) and name it relative to that, or move it under ${AGENTS}`,
    );
  });
});

describe("each message of the first hour", () => {
  it("an unknown command: did you mean", async () => {
    const r = await runCli("compre", "a.json", "b.json");
    expect(r.code).toBe(2);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^medalist: unknown command "compre"; did you mean "compare"\? Commands: check, plan, run/,
    );
  });

  it("an unknown competition id on the command line: did you mean", async () => {
    const r = await runCli("rank", "--competition", "toy-specie", "--score", "1");
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'medalist rank: unknown competition "toy-specie" in --competition (did you mean "toy-species"?); run `medalist competitions` to list them',
    );
    const cfg = config("only.yml", ["competitions: {include: [toy-species]}", "agent: {command: x}"]);
    const o = await runCli("run", "--config", cfg, "--only", "toy-specie");
    expect(o.code).toBe(2);
    expect(o.stderr).toBe(
      'medalist run: --only: "toy-specie" is not in this suite (did you mean "toy-species"?) (competitions: toy-species)',
    );
  });

  it("executor: dockr is one sentence with the field and did you mean, not zod's words", async () => {
    const cfg = config("dockr.yml", ["competitions: {split: toy}", "executor: dockr", "agent: {command: x}"]);
    const r = await runCli("plan", "--config", cfg, "--shards", "1");
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `medalist plan: ${cfg}: executor: expected one of "local", "docker", "slurm", got the string "dockr" (did you mean "docker"?)`,
    );
    expect(r.stderr).not.toContain("Invalid option");
  });

  it("plan: an agent.mlebench.id that is not there is exit 2 with did you mean", async () => {
    const dir = join(home, "agents", "dummy");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "config.yaml"),
      "dummy:\n  start: dummy/start.sh\n  dockerfile: dummy/Dockerfile\n",
    );
    writeFileSync(join(dir, "start.sh"), "#!/bin/bash\n");
    writeFileSync(join(dir, "Dockerfile"), "FROM mlebench-env\n");
    const cfg = config("mle.yml", [
      "competitions: {include: [toy-species]}",
      "executor: docker",
      "agent: {mlebench: {agentsDir: agents, id: dumy}}",
    ]);
    const r = await runCli("plan", "--config", cfg, "--shards", "1");
    expect(r.code).toBe(2);
    expect(lines(r.stderr)).toEqual([
      `medalist plan: agent.mlebench.id: no config.yaml under ${join(home, "agents")} has an entry dumy (did you mean "dummy"?)`,
    ]);
  });

  it("a suite whose every run failed exits 1 without a baseline", async () => {
    const cfg = config("fails.yml", [
      "name: fails",
      "competitions: {include: [toy-species]}",
      "seeds: 2",
      `agent: {command: "exit 3", cwd: ${AGENTS}}`,
      ...(bwrap ? [] : ["local: {sandbox: none}"]),
    ]);
    const r = await runCli("run", "--config", cfg);
    expect(r.code).toBe(1);
    const out = lines(r.stdout);
    expect(out).toContain("Gate: failed — none of the head's 2 runs completed (failed): nothing worked.");
    expect(out).toContain("Not completed: 2 failed of 2 head runs (the report says why)");
    expect(out.at(-1)).toBe("Verdict: no verdict (no baseline to compare with); gate failed; exit code 1.");
    expect(readFileSync(join(home, ".medalist/fails/report.md"), "utf8").split("\n")[0]).toContain(
      "The gate fails: none of the head's 2 runs completed (failed): nothing worked.",
    );
  });

  it("compare exits 1 on ⛔ error without --fail-on; --fail-on never exits 0", async () => {
    const files = ["abc", "other"].map((hash, i) => {
      const s = fakeSuite(i ? "head" : "base", [fakeRun("toy-species", 0, "bronze")]);
      s.suite.hash = hash;
      const f = join(home, `${hash}.json`);
      writeFileSync(f, toJson(s));
      return f;
    });
    const r = await runCli("compare", ...files);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("⛔ error");
    expect(lines(r.stderr)).toEqual([
      "medalist compare: verdict error: the two results could not be compared (see the report); exit code 1 (--fail-on never exits 0)",
    ]);
    expect((await runCli("compare", ...files, "--fail-on", "never")).code).toBe(0);
  });

  it("a Node failure's cause is its error line, not the stack's closing brace", () => {
    const stderr = [
      "node:internal/modules/cjs/loader:1228",
      "  throw err;",
      "  ^",
      "",
      "Error: Cannot find module '/path/to/agent.mjs'",
      "    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)",
      "    at node:internal/main/run_main_module:28:49 {",
      "  code: 'MODULE_NOT_FOUND',",
      "  requireStack: []",
      "}",
      "",
      "Node.js v20.19.2",
    ];
    expect(causeLine(stderr)).toBe("Error: Cannot find module '/path/to/agent.mjs'");
    const f = describeFailure({ outcome: "failed", exitCode: 1, durationMs: 300 }, stderr.join("\n"));
    expect(f?.cause).toBe("Error: Cannot find module '/path/to/agent.mjs' (exit 1)");
    // A fast agent that wrote nothing is told what is known, never that its command "most likely never ran".
    const quiet = describeFailure(
      { outcome: "completed", exitCode: 0, durationMs: 300, details: { neverRan: "true" } },
      "",
    );
    expect(quiet?.cause).not.toMatch(/never ran/);
    expect(quiet?.cause).toMatch(
      /^the agent wrote no output and no submission and exited \(exit 0\) in 0\.3 s; /,
    );
  });

  it("README's command table names check and decide", () => {
    const table = README.slice(README.indexOf("## Commands"), README.indexOf("Every command has `--help`"));
    expect(table).toContain("| `medalist check --config FILE`");
    expect(table).toContain("| `medalist decide --config FILE");
    expect(table).toContain("[--json]`");
  });
});
