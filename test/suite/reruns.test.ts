// Run identity, reruns and failure causes through runSuite with the local executor.
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSuite, type SuiteOptions } from "../../src/suite/run.js";
import { validateConfig } from "../../src/config/load.js";
import { renderResults } from "../../src/report/markdown.js";
import { runStoreDir } from "../../src/action/inputs.js";

const dataDir = mkdtempSync(join(tmpdir(), "medalist-data-"));

/** A local agent in its own folder: copies the sample submission. */
function agentDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "medalist-agent-"));
  writeFileSync(
    join(dir, "agent.mjs"),
    `import { copyFileSync } from "node:fs";
copyFileSync(process.env.DATA_DIR + "/sample_submission.csv", process.env.SUBMISSION_DIR + "/submission.csv");
`,
  );
  return dir;
}

function setup(agent: Record<string, unknown>, seeds = 2) {
  const dir = typeof agent.cwd === "string" ? agent.cwd : agentDir();
  const outDir = mkdtempSync(join(tmpdir(), "medalist-out-"));
  const config = (over: Record<string, unknown> = {}) =>
    validateConfig(
      {
        name: "t",
        competitions: { include: ["toy-churn"] },
        seeds,
        agent: { command: "node agent.mjs", cwd: dir, ...agent, ...over },
        limits: { time: 30 },
        dataDir,
      },
      "test",
    );
  const go = async (over: Record<string, unknown> = {}, extra: Partial<SuiteOptions> = {}) => {
    const lines: string[] = [];
    const results = await runSuite({
      config: config(over),
      baseDir: dir,
      outDir,
      label: "head",
      log: (l) => lines.push(l),
      heartbeatSecs: 0,
      ...extra,
    });
    const started = lines.filter((l) => / started/.test(l)).map((l) => /(toy-churn\.s\d)/.exec(l)![1]);
    return { results, lines, started };
  };
  return { dir, outDir, go };
}

describe("run identity decides what is reused", () => {
  it("editing the agent's file re-executes its runs and says why", { timeout: 120_000 }, async () => {
    const s = setup({});
    expect((await s.go()).started).toEqual(["toy-churn.s0", "toy-churn.s1"]);
    const again = await s.go();
    expect(again.started).toEqual([]);
    expect(again.results.runs.every((r) => r.reused)).toBe(true);
    writeFileSync(join(s.dir, "agent.mjs"), readFileSync(join(s.dir, "agent.mjs"), "utf8") + "// tweak\n");
    const edited = await s.go();
    expect(edited.started).toEqual(["toy-churn.s0", "toy-churn.s1"]);
    expect(edited.lines.some((l) => l.includes("started (the agent's code changed)"))).toBe(true);
    expect(edited.results.runs.some((r) => r.reused)).toBe(false);
    // A file the config leaves out of the agent's code does not count.
    writeFileSync(join(s.dir, "notes.md"), "x");
    expect((await s.go({ files: { ignore: ["*.md"] } })).started).toEqual([]);
  });

  it(
    "changing env re-executes; a secret's value does not count, its name does",
    { timeout: 120_000 },
    async () => {
      const s = setup({ env: { MODEL: "small" } }, 1);
      await s.go();
      expect((await s.go()).started).toEqual([]);
      const changed = await s.go({ env: { MODEL: "large" } });
      expect(changed.started).toEqual(["toy-churn.s0"]);
      expect(changed.lines.some((l) => l.includes("(the environment changed)"))).toBe(true);
      process.env.MEDALIST_TEST_SECRET = "one";
      await s.go({ env: { MODEL: "large" }, secrets: ["MEDALIST_TEST_SECRET"] });
      process.env.MEDALIST_TEST_SECRET = "two";
      expect((await s.go({ env: { MODEL: "large" }, secrets: ["MEDALIST_TEST_SECRET"] })).started).toEqual(
        [],
      );
      delete process.env.MEDALIST_TEST_SECRET;
    },
  );

  it("--fresh, --rerun and --only do exactly that", { timeout: 120_000 }, async () => {
    const s = setup({ command: "node agent.mjs; test $SEED = 0" }, 2);
    const first = await s.go();
    expect(first.results.runs.map((r) => r.outcome)).toEqual(["completed", "failed"]);
    expect((await s.go({}, { selection: { rerun: ["failed"] } })).started).toEqual(["toy-churn.s1"]);
    expect((await s.go({}, { selection: { rerun: ["timed_out", "infra_error"] } })).started).toEqual([]);
    expect((await s.go({}, { selection: { fresh: true } })).started).toEqual([
      "toy-churn.s0",
      "toy-churn.s1",
    ]);
    const only = await s.go({}, { selection: { fresh: true, only: "toy-churn.s1" } });
    expect(only.started).toEqual(["toy-churn.s1"]);
    expect(only.results.runs.map((r) => [r.runId, r.reused ?? false])).toEqual([
      ["toy-churn.s0", true],
      ["toy-churn.s1", false],
    ]);
    // Selected and not finished with this identity: only the selected run executes, the other is left out.
    const narrowed = await s.go({ env: { X: "1" } }, { selection: { only: "toy-churn.s0" } });
    expect(narrowed.started).toEqual(["toy-churn.s0"]);
    expect(narrowed.results.runs.map((r) => r.runId)).toEqual(["toy-churn.s0"]);
    expect(narrowed.lines.at(-1)).toBe(
      "[head] 1 finished, 0 reused (same identity as a finished run), 1 left out (--only)",
    );
    await expect(s.go({}, { selection: { only: "toy-chrun" } })).rejects.toThrow(
      /"toy-chrun" is not in this suite/,
    );
  });
});

describe("the runner's run store", () => {
  it("a cleaned results folder resumes from the store, keyed by identity", { timeout: 120_000 }, async () => {
    const s = setup({ command: 'node agent.mjs; ln -s /etc/passwd "$LOGS_DIR/link"' }, 1);
    const storeDir = mkdtempSync(join(tmpdir(), "medalist-store-"));
    const first = await s.go({}, { storeDir });
    expect(first.started).toEqual(["toy-churn.s0"]);
    rmSync(s.outDir, { recursive: true, force: true }); // actions/checkout cleaned the workspace
    const resumed = await s.go({}, { storeDir });
    expect(resumed.started).toEqual([]);
    expect(resumed.results.runs[0]).toMatchObject({ reused: true, outcome: "completed" });
    // Links come back as links, never followed.
    expect(readlinkSync(join(s.outDir, resumed.results.runs[0].runDir, "logs", "link"))).toBe("/etc/passwd");
    // Another identity is not in the store: it executes.
    rmSync(s.outDir, { recursive: true, force: true });
    expect((await s.go({ env: { MODEL: "x" } }, { storeDir })).started).toEqual(["toy-churn.s0"]);
  });

  it("is on by default on self-hosted runners only, outside the checkout", () => {
    expect(runStoreDir("", { RUNNER_ENVIRONMENT: "github-hosted" })).toBeNull();
    expect(runStoreDir("", { RUNNER_ENVIRONMENT: "self-hosted", RUNNER_TOOL_CACHE: "/opt/tool" })).toBe(
      "/opt/tool/medalist/runs",
    );
    expect(runStoreDir("none", { RUNNER_ENVIRONMENT: "self-hosted", RUNNER_TOOL_CACHE: "/t" })).toBeNull();
    expect(runStoreDir("/data/runs", {})).toBe("/data/runs");
  });
});

describe("failures speak", () => {
  it("a command typo: exit 127 and the shell's line in the console, results.json and the report", async () => {
    const s = setup({ command: "pythn3 agent.py" }, 1);
    const { results, lines } = await s.go();
    const run = results.runs[0];
    expect(run).toMatchObject({ outcome: "failed", exitCode: 127 });
    expect(run.failure?.cause).toMatch(/^\/bin\/sh: .*pythn3: .*not found \(exit 127\)$/);
    expect(run.failure?.stderrTail.at(-1)).toMatch(/pythn3: .*not found/);
    expect(
      lines.some((l) =>
        /toy-churn\.s0: failed in [\d.]+s: \/bin\/sh: .*pythn3: .*not found \(exit 127\)/.test(l),
      ),
    ).toBe(true);
    const saved = JSON.parse(readFileSync(join(s.outDir, "results.json"), "utf8"));
    expect(saved.runs[0].failure.cause).toBe(run.failure?.cause);
    const report = renderResults(results);
    expect(report).toContain("| failed ");
    expect(report).toMatch(/pythn3: .*not found \(exit 127\)/);
  });

  it("local instructions.txt names the real host paths the agent gets", async () => {
    const s = setup({ command: 'cp "$INSTRUCTIONS_FILE" "$LOGS_DIR/seen.txt"' }, 1);
    const { results } = await s.go();
    const runDir = join(s.outDir, results.runs[0].runDir);
    const text = readFileSync(join(runDir, "logs", "seen.txt"), "utf8");
    expect(text).toContain(`${join(dataDir, "toy-churn", "prepared", "public")} (read-only)`);
    expect(text).toContain(`${join(runDir, "submission")}/submission.csv`);
    expect(text).not.toContain("/home/");
  });
});
