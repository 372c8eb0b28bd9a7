// The run key never reaches the agent: in bubblewrap, neither the tool cache's medalist/ folder
// (where the key lives on a runner) nor the runner's home (~/.medalist/run-key) is visible.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LocalExecutor } from "../../src/execute/local/executor.js";
import { bwrapAvailable } from "../../src/execute/local/sandbox.js";
import type { RunSpec } from "../../src/execute/types.js";
import { defaultRunKeyFile, loadRunKey } from "../../src/suite/seal.js";
import { attemptOn } from "../helpers/attempt.js";

const available = process.platform === "linux" && bwrapAvailable();

describe.skipIf(!available)("the run key in the local sandbox", () => {
  const root = mkdtempSync(join(tmpdir(), "medalist-runkey-"));
  const saved = process.env.RUNNER_TOOL_CACHE;
  afterAll(() => {
    if (saved === undefined) delete process.env.RUNNER_TOOL_CACHE;
    else process.env.RUNNER_TOOL_CACHE = saved;
    rmSync(root, { recursive: true, force: true });
  });

  it("is not readable by the agent, whether in the tool cache or the home folder", async () => {
    const tools = join(root, "toolcache");
    mkdirSync(join(tools, "python"), { recursive: true });
    writeFileSync(join(tools, "python", "marker"), "TOOL-VISIBLE\n");
    process.env.RUNNER_TOOL_CACHE = tools;
    // The key as the runner makes it before any agent starts (runSuite loads it first).
    const key = loadRunKey({ RUNNER_TOOL_CACHE: tools }).key.toString("utf8");
    expect(defaultRunKeyFile({ RUNNER_TOOL_CACHE: tools })).toBe(join(tools, "medalist", "run-key"));
    const homeKey = loadRunKey({ HOME: homedir() }).key.toString("utf8");
    const pub = join(root, "data", "toy", "prepared", "public");
    mkdirSync(pub, { recursive: true });
    const runDir = join(root, "results", "runs", "toy.s0");
    for (const d of ["submission", "logs", "code"]) mkdirSync(join(runDir, d), { recursive: true });
    const cwd = join(root, "agent");
    mkdirSync(cwd);
    const spec: RunSpec = {
      runId: "toy.s0",
      suiteId: "suite",
      competitionId: "toy",
      seed: 0,
      publicDir: pub,
      runDir,
      timeLimitSecs: 30,
      env: { TOOLS: tools, RUNNER_HOME: homedir() },
      gpus: [],
    };
    const script = [
      'out="$LOGS_DIR/probe.txt"',
      'cat "$TOOLS/python/marker" >> "$out" 2>&1',
      'cat "$TOOLS/medalist/run-key" >> "$out" 2>&1',
      'ls -la "$TOOLS/medalist" >> "$out" 2>&1',
      'cat "$RUNNER_HOME/.medalist/run-key" >> "$out" 2>&1',
      'grep -rs . "$TOOLS" >> "$out" 2>&1',
      'echo "id,y" > "$SUBMISSION_DIR/submission.csv"',
    ].join("\n");
    const r = await attemptOn(
      new LocalExecutor({
        command: script,
        cwd,
        graceSecs: 1,
        pollMs: 200,
        sandbox: { mode: "bwrap" },
      }),
      spec,
    );
    expect(r.outcome).toBe("completed");
    const probe = readFileSync(join(runDir, "logs", "probe.txt"), "utf8");
    // The tool cache is there (the agent may use installed tools); the key is not.
    expect(probe).toContain("TOOL-VISIBLE");
    expect(probe).not.toContain(key);
    expect(probe).not.toContain(homeKey);
  }, 60_000);
});
