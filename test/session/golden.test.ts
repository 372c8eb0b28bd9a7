// The CLI and the action over the toy suite, compared with golden copies made before the doors were
// refactored (issue 19): the same results, report, summary, outputs, comment and artifacts.
// MEDALIST_UPDATE_GOLDEN=1 rewrites the copies (only when a change of output is intended).
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ArtifactApi } from "../../src/action/artifacts.js";
import { runFromConfig } from "../../src/cli/commands/run-suite.js";
import { runShardFromConfig } from "../../src/cli/commands/run-shard.js";
import { loadConfig } from "../../src/config/load.js";
import { FakeGitHub } from "../fixtures/github/server.js";
import { fakeCache } from "../action/fake-cache.js";
import { ROOT, runInProcess } from "../action/harness.js";

const GOLDEN = join(ROOT, "test/fixtures/golden/doors");
const update = process.env.MEDALIST_UPDATE_GOLDEN === "1";

/** Artifacts kept in memory: what was uploaded (name → files relative to its root), and read back. */
class RecordingArtifacts implements ArtifactApi {
  uploads: { id: number; name: string; root: string; files: string[] }[] = [];
  upload = async (name: string, files: string[], root: string) => {
    // An id from the name: links stay the same whatever order the uploads run in.
    let id = 7;
    for (const c of name) id = (id * 31 + c.charCodeAt(0)) % 1_000_003;
    this.uploads.push({ id, name, root, files: files.map((f) => relative(root, f)).sort() });
    return { id };
  };
  list = async () => this.uploads.map((u) => ({ id: u.id, name: u.name }));
  download = async (id: number, path: string) => {
    const u = this.uploads.find((x) => x.id === id)!;
    for (const f of u.files) {
      mkdirSync(dirname(join(path, f)), { recursive: true });
      cpSync(join(u.root, f), join(path, f));
    }
  };
  /** The uploads as text, for the golden copy. */
  text(): string {
    return [...this.uploads]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((u) => `${u.name}\n${u.files.map((f) => `  ${f}`).join("\n")}`)
      .join("\n");
  }
}

describe("golden: the CLI and the action give the same results and report as before the refactor", () => {
  let ws: string;
  const gh = new FakeGitHub();
  const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;

  /** Times, durations, ids, paths and the version out; what stays is what the doors decide. */
  const normalize = (s: string) =>
    s
      .replace(/^> ⚠️ \*\*`trust-pr-config: true`\*\*.*\n\n/gm, "")
      .split(ws)
      .join("<WS>")
      .split(ROOT)
      .join("<ROOT>")
      .replace(ISO, "<TIME>")
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<UUID>")
      .replace(/medalist: `[^`]*`/g, "medalist: `VERSION`")
      .replace(/medalist: [^\s<`]+(?=<\/sub>)/g, "medalist: `VERSION`")
      .replace(/\b\d+(\.\d+)?\s?(ms|s|min|h)\b/g, "<DUR>")
      .replace(/\b\d+m \d+s\b/g, "<DUR>")
      .replace(/[+−±]<DUR> (🔴 worse|⚪ same|🟢 better)/g, "<DUR CHANGE>")
      .replace(/issuecomment-\d+/g, "issuecomment-<ID>")
      .replace(/"(durationMs|wallMs|startedAtMs|cpuSecs|maxRssBytes|diskBytes)":\s*[\d.]+/g, '"$1":<N>')
      // Table columns are padded to the widest cell, which a duration can change.
      .replace(/-{3,}/g, "---")
      .replace(/ {2,}/g, " ");

  /** A results document without what varies between two runs of the same agent. */
  const results = (path: string) => {
    const doc = JSON.parse(readFileSync(path, "utf8"));
    const runs = doc.runs.map((r: Record<string, unknown>) => ({
      runId: r.runId,
      outcome: r.outcome,
      exitCode: r.exitCode,
      attempts: r.attempts,
      runDir: r.runDir,
      error: r.error,
      grade: r.grade,
      details: r.details,
    }));
    return normalize(
      JSON.stringify(
        { label: doc.label, suite: doc.suite, agent: doc.agent.description, shard: doc.shard, runs },
        null,
        1,
      ),
    );
  };

  const golden = (name: string, actual: string) => {
    const file = join(GOLDEN, name);
    if (update || !existsSync(file)) {
      mkdirSync(GOLDEN, { recursive: true });
      writeFileSync(file, actual);
      if (!update) throw new Error(`golden copy ${name} was missing and is now written: check and commit it`);
      return;
    }
    expect(actual, name).toBe(readFileSync(file, "utf8"));
  };

  const config = (name: string, lines: string[]) =>
    writeFileSync(
      join(ws, name),
      [
        "name: golden",
        "competitions:",
        "  split: toy",
        "seeds: 2",
        "executor: local",
        "agent:",
        `  command: node ${join(ROOT, "examples/agents/strong/agent.mjs")}`,
        `  cwd: ${join(ROOT, "examples/agents")}`,
        "limits:",
        "  time: 60s",
        "dataDir: data",
        "registryDir: registry",
        ...lines,
        "",
      ].join("\n"),
    );

  /** The CLI in this process: exit code, the report on stdout, the gate's line on stderr. */
  const cli = async (file: string, out: string, opts: { baselineFile?: string } = {}) => {
    const stdout: string[] = [];
    const stderr: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation((s: string) => void stdout.push(s));
    const err = vi.spyOn(console, "error").mockImplementation((s: string) => void stderr.push(s));
    let code: number;
    try {
      code = await runFromConfig(loadConfig(join(ws, file)), join(ws, out), opts);
    } finally {
      log.mockRestore();
      err.mockRestore();
    }
    const gate = stderr.filter((l) => /exit code/i.test(l));
    return normalize(
      `exit ${code}\n--- stdout\n${stdout
        .join("\n")
        .split("\n")
        // The time it took is the one line that differs from run to run.
        .filter((l) => !/^took \d/.test(l))
        .join("\n")}\n--- gate\n${gate.join("\n")}\n--- report.md\n` +
        readFileSync(join(ws, out, "report.md"), "utf8"),
    );
  };

  /** The action in this process with a loopback GitHub and recorded artifacts. */
  const action = async (inputs: Record<string, string>, artifacts = new RecordingArtifacts()) => {
    gh.comments.clear();
    const listeners = () => [process.listenerCount("SIGINT"), process.listenerCount("SIGTERM")];
    const before = listeners();
    const r = await runInProcess({
      workspace: ws,
      inputs: {
        "github-token": "ghs_goldenToken",
        comment: "always",
        "allow-fork-prs": "false",
        // No git checkout here: the pull request's own config judges it (its notice is left out below).
        "trust-pr-config": "true",
        "allow-unsandboxed-agent": "true",
        "data-dir": "",
        "runs-dir": "none",
        ...inputs,
      },
      env: { GITHUB_API_URL: gh.url, ACTIONS_RUNTIME_TOKEN: "fake" },
      deps: {
        cache: fakeCache(),
        artifacts: () => artifacts,
        checkoutBase: async () => ({ baseDir: ws, dispose: () => {} }),
      },
    });
    // The action's cancellation listeners are gone once it is done.
    expect(listeners()).toEqual(before);
    const outputs = Object.entries(r.outputs)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}=${v}`)
      .join("\n");
    const problems = r.stdout.split("\n").filter((l) => /^::(error|warning)::/.test(l));
    const dir = join(ws, inputs["results-dir"]);
    const report = existsSync(join(dir, "report.md")) ? readFileSync(join(dir, "report.md"), "utf8") : "";
    const comments = gh.thread("acme", "agent", 7).map((c) => c.body);
    return normalize(
      `exit ${r.code}\n--- outputs\n${outputs}\n--- errors and warnings\n${problems.join("\n")}\n` +
        `--- artifacts\n${artifacts.text()}\n--- comment\n${comments.join("\n---\n")}\n` +
        `--- summary\n${r.summary}\n--- report.md\n${report}`,
    );
  };

  beforeAll(async () => {
    ws = mkdtempSync(join(tmpdir(), "medalist-golden-"));
    for (const id of ["toy-churn", "toy-house-prices", "toy-species"])
      cpSync(join(ROOT, "competitions", id), join(ws, "registry", id), { recursive: true });
    config("none.yml", ["baseline: { source: none }"]);
    config("strict.yml", ["baseline: { source: none }", "gate: { missingBaseline: fail }"]);
    config("file.yml", ["baseline: { source: file, path: base.json }"]);
    config("run.yml", [
      "baseline:",
      "  source: run",
      "  agent:",
      `    command: node ${join(ROOT, "examples/agents/weak/agent.mjs")}`,
      `    cwd: ${join(ROOT, "examples/agents")}`,
    ]);
    await gh.start();
  });
  afterAll(async () => {
    await gh.stop();
    if (ws) rmSync(ws, { recursive: true, force: true });
  });

  it("no baseline, then a baseline file with a medal on every run", { timeout: 300_000 }, async () => {
    golden("cli-none.txt", await cli("none.yml", "out"));
    golden("cli-none-results.txt", results(join(ws, "out/head/results.json")));
    const head = JSON.parse(readFileSync(join(ws, "out/head/results.json"), "utf8"));
    const medals = head.runs.map((r: { grade: object }) => ({
      ...r,
      grade: { ...r.grade, any_medal: true, gold_medal: true },
    }));
    writeFileSync(join(ws, "base.json"), JSON.stringify({ ...head, label: "base", runs: medals }));

    golden("cli-strict.txt", await cli("strict.yml", "out"));
    golden("cli-file.txt", await cli("file.yml", "out"));
    golden("action-none.txt", await action({ config: "none.yml", "results-dir": "out" }));
    golden("action-strict.txt", await action({ config: "strict.yml", "results-dir": "out" }));
    golden(
      "action-file.txt",
      await action({ config: "file.yml", "results-dir": "out", "fail-on": "regression" }),
    );
    golden("action-file-results.txt", results(join(ws, "out/head/results.json")));
  });

  it("the baseline run in the same job by both doors", { timeout: 300_000 }, async () => {
    golden("cli-run.txt", await cli("run.yml", "run-out"));
    golden("cli-run-base-results.txt", results(join(ws, "run-out/base/results.json")));
    golden("action-run.txt", await action({ config: "run.yml", "results-dir": "run-out" }));
  });

  it("sharded: two shard runs and one report, by both doors", { timeout: 300_000 }, async () => {
    const artifacts = new RecordingArtifacts();
    const shardLog: string[] = [];
    for (const i of [1, 2]) {
      const code = await runShardFromConfig(
        loadConfig(join(ws, "none.yml")),
        join(ws, `cli-shard-${i}`),
        `${i}/2`,
      );
      shardLog.push(`cli shard ${i}/2: exit ${code}`);
      shardLog.push(results(join(ws, `cli-shard-${i}/head/results.json`)));
      const r = await action(
        { config: "none.yml", step: "run", shard: `${i}/2`, "results-dir": `shard-${i}` },
        artifacts,
      );
      shardLog.push(`action shard ${i}/2:\n${r}`);
    }
    golden("shards-run.txt", shardLog.join("\n"));
    golden(
      "action-shards-report.txt",
      await action({ config: "none.yml", step: "report", shards: "2", "results-dir": "report" }, artifacts),
    );
  });
});
