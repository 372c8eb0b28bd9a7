import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalExecutor } from "../../src/execute/local/executor.js";
import type { RunSpec } from "../../src/execute/types.js";
import { attemptOn } from "../helpers/attempt.js";

const fixtures = join(import.meta.dirname, "..", "fixtures", "agents");

function spec(overrides: Partial<RunSpec> = {}): RunSpec {
  const root = mkdtempSync(join(tmpdir(), "medalist-local-"));
  mkdirSync(join(root, "public"));
  return {
    runId: "r.s0",
    suiteId: "suite",
    competitionId: "toy-churn",
    seed: 1,
    publicDir: join(root, "public"),
    runDir: join(root, "run"),
    timeLimitSecs: 30,
    env: {},
    gpus: [],
    ...overrides,
  };
}

const agent = (name: string, mode?: "none") =>
  new LocalExecutor({
    command: [process.execPath, join(fixtures, name)],
    cwd: fixtures,
    graceSecs: 1,
    ...(mode ? { sandbox: { mode } } : {}),
  });

/** Running (a zombie waiting to be reaped by init does not count). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

describe("local executor", () => {
  it("reports a crash as failed with its exit code and keeps the output in run.log", async () => {
    const s = spec();
    const r = await attemptOn(agent("crash.mjs"), s);
    expect(r.outcome).toBe("failed");
    expect(r.exitCode).toBe(3);
    expect(readFileSync(join(s.runDir, "run.log"), "utf8")).toContain("about to crash");
  });

  it("kills a hanging agent and its children at the time limit", async () => {
    const s = spec({ timeLimitSecs: 1 });
    const t0 = Date.now();
    // The child's pid is read from the host's /proc: no PID namespace (see sandbox.test.ts for bwrap).
    const r = await attemptOn(agent("hang.mjs", "none"), s);
    expect(r.outcome).toBe("timed_out");
    expect(Date.now() - t0).toBeLessThan(10_000);
    const childPid = Number(readFileSync(join(s.runDir, "logs", "child.pid"), "utf8"));
    await new Promise((res) => setTimeout(res, 200));
    expect(alive(childPid)).toBe(false);
    expect(readFileSync(join(s.runDir, "run.log"), "utf8")).toContain("time limit of 1s reached");
  });

  it("passes the contract's variables and not the runner's secrets", async () => {
    process.env.MEDALIST_TEST_SECRET = "do-not-leak";
    const s = spec({ env: { MY_VAR: "x" } });
    const r = await attemptOn(agent("env.mjs"), s);
    delete process.env.MEDALIST_TEST_SECRET;
    expect(r.outcome).toBe("completed");
    const env = JSON.parse(readFileSync(join(s.runDir, "logs", "env.json"), "utf8"));
    expect(env).toMatchObject({
      COMPETITION_ID: "toy-churn",
      SEED: "1",
      TIME_LIMIT_SECS: "30",
      MY_VAR: "x",
      DATA_DIR: s.publicDir,
    });
    expect(env.SUBMISSION_DIR).toBe(join(s.runDir, "submission"));
    expect(env.MEDALIST_TEST_SECRET).toBeUndefined();
  });

  it("stops the agent when the suite is cancelled", async () => {
    const s = spec();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const r = await attemptOn(agent("hang.mjs"), s, ac.signal);
    expect(r.outcome).toBe("infra_error");
    expect(r.error).toBe("cancelled");
  });

  it("a command that cannot start is the agent's failure (exit 127), with the reason in run.log", async () => {
    const s = spec();
    // Spawning fails before anything runs (inside bwrap, bwrap reports it: see sandbox.test.ts).
    const r = await attemptOn(
      new LocalExecutor({
        command: ["/nonexistent/agent"],
        cwd: fixtures,
        sandbox: { mode: "none" },
      }),
      s,
    );
    expect(r).toMatchObject({ outcome: "failed", exitCode: 127 });
    expect(readFileSync(join(s.runDir, "run.log"), "utf8")).toMatch(
      /stderr \/nonexistent\/agent: cannot start: spawn \/nonexistent\/agent ENOENT/,
    );
  });

  it("a shell command typo fails with exit 127 and the shell's message on stderr", async () => {
    const s = spec();
    const r = await attemptOn(new LocalExecutor({ command: "pythn3 agent.py", cwd: fixtures }), s);
    expect(r).toMatchObject({ outcome: "failed", exitCode: 127 });
    expect(readFileSync(join(s.runDir, "run.log"), "utf8")).toMatch(/ stderr .*pythn3: .*not found/);
  });

  it("masks secret values in run.log", async () => {
    const s = spec({ env: { KEY: "sekrit-value" }, secretEnv: ["KEY"] });
    await attemptOn(new LocalExecutor({ command: "echo token=$KEY", cwd: fixtures }), s);
    const log = readFileSync(join(s.runDir, "run.log"), "utf8");
    expect(log).toContain("stdout token=***");
    expect(log).not.toContain("sekrit-value");
  });
});
