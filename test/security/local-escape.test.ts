import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LocalExecutor } from "../../src/execute/local/executor.js";
import { bwrapAvailable, type SandboxMode } from "../../src/execute/local/sandbox.js";
import type { RunSpec } from "../../src/execute/types.js";
import { attemptOn } from "../helpers/attempt.js";

function spec(over: Partial<RunSpec> = {}): RunSpec {
  const root = mkdtempSync(join(tmpdir(), "medalist-escape-"));
  mkdirSync(join(root, "public"));
  return {
    runId: "r.s0",
    suiteId: "suite",
    competitionId: "toy",
    seed: 0,
    publicDir: join(root, "public"),
    runDir: join(root, "run"),
    timeLimitSecs: 30,
    env: {},
    gpus: [],
    ...over,
  };
}

const sh = (script: string, over: Partial<ConstructorParameters<typeof LocalExecutor>[0]> = {}) =>
  new LocalExecutor({ command: script, cwd: tmpdir(), graceSecs: 1, pollMs: 200, ...over });

/** Running (a zombie waiting to be reaped does not count). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** Every live process whose environment holds this text. */
function withEnv(text: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, "latin1").includes(text) && alive(Number(name)))
        out.push(Number(name));
    } catch {
      /* gone */
    }
  }
  return out;
}

const onLinux = process.platform === "linux";

/** Every live process whose command line holds this text. */
function withCmdline(text: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "latin1").includes(text) && alive(Number(name)))
        out.push(Number(name));
    } catch {
      /* gone */
    }
  }
  return out;
}

// Without a sandbox the runner's tracker must find every process; inside bwrap the PID namespace
// ends them all (and a pid the agent writes down is its namespace's, so processes are found by
// their environment or command line instead).
const modes = (["none", ...(onLinux && bwrapAvailable() ? ["bwrap"] : [])] as SandboxMode[]).map((mode) => ({
  mode,
  sandbox: { mode },
}));

describe.skipIf(!onLinux)("local executor: a run's processes cannot outlive it", () => {
  for (const { mode, sandbox } of modes) {
    it(`a setsid grandchild that ignores SIGTERM and keeps stdout open: ends within limit + grace + 5 s, nothing left (sandbox ${mode})`, async () => {
      const mark = `escape-${process.pid}-a-${mode}`;
      const s = spec({ timeLimitSecs: 3, env: { MARK: mark } });
      const t0 = Date.now();
      const r = await attemptOn(
        sh(
          `trap "" TERM; setsid sh -c 'trap "" TERM; echo $$ > "$LOGS_DIR/gc.pid"; while true; do sleep 1; done' & ` +
            "echo started; while true; do sleep 1; done",
          { sandbox },
        ),
        s,
      );
      const took = Date.now() - t0;
      expect(r.outcome).toBe("timed_out");
      expect(took).toBeLessThan((3 + 1 + 5) * 1000);
      const gc = Number(readFileSync(join(s.runDir, "logs", "gc.pid"), "utf8"));
      expect(gc).toBeGreaterThan(0);
      if (mode === "none") expect(alive(gc)).toBe(false);
      expect(withEnv(`MARK=${mark}`)).toEqual([]);
    }, 60_000);

    it(`a detached grandchild with a cleared environment and output to /dev/null does not survive the run (sandbox ${mode})`, async () => {
      const s = spec({ timeLimitSecs: 60 });
      const nap = `1000.${process.pid}${mode === "none" ? 1 : 2}`;
      const r = await attemptOn(
        sh(
          `setsid env -i sh -c 'echo $$ > "${"$"}0"; exec sleep ${nap}' "$LOGS_DIR/gc.pid" >/dev/null 2>&1 < /dev/null & sleep 1; exit 0`,
          { sandbox },
        ),
        s,
      );
      expect(r.outcome).toBe("completed");
      const gc = Number(readFileSync(join(s.runDir, "logs", "gc.pid"), "utf8"));
      expect(gc).toBeGreaterThan(0);
      if (mode === "none") expect(alive(gc)).toBe(false);
      expect(withCmdline(`sleep\0${nap}`)).toEqual([]);
    }, 60_000);
  }

  it("a cancel ends a run that ignores SIGTERM", async () => {
    const s = spec({ timeLimitSecs: 600 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 1000);
    const t0 = Date.now();
    const r = await attemptOn(sh('trap "" TERM; while true; do sleep 1; done'), s, ac.signal);
    expect(r.outcome).toBe("infra_error");
    expect(r.error).toBe("cancelled");
    expect(Date.now() - t0).toBeLessThan(10_000);
  }, 60_000);

  it("masks declared secrets in run.log and caps it like Docker", async () => {
    const s = spec({ env: { API_KEY: "sk-very-secret-123" }, secretEnv: ["API_KEY"] });
    const r = await attemptOn(
      sh('echo "key is $API_KEY"; i=0; while [ $i -lt 2000 ]; do echo "line $i of noise"; i=$((i+1)); done', {
        logMaxBytes: 10_000,
      }),
      s,
    );
    expect(r.outcome).toBe("completed");
    const log = readFileSync(join(s.runDir, "run.log"), "utf8");
    expect(log).toContain("key is ***");
    expect(log).not.toContain("sk-very-secret-123");
    expect(log).toContain("run.log truncated at 10000 bytes");
    expect(statSync(join(s.runDir, "run.log")).size).toBeLessThan(11_000);
  }, 60_000);
});
