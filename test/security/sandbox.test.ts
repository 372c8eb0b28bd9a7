import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LocalExecutor } from "../../src/execute/local/executor.js";
import {
  bwrapAvailable,
  resolveSandbox,
  sandboxLaunch,
  sandboxProblem,
} from "../../src/execute/local/sandbox.js";
import type { RunSpec } from "../../src/execute/types.js";
import { attemptOn } from "../helpers/attempt.js";

/**
 * The local agent inside bubblewrap. Skipped where bwrap cannot start a sandbox, unless
 * MEDALIST_REQUIRE_BWRAP=1 (then a missing bwrap fails).
 */
const available = process.platform === "linux" && bwrapAvailable();
if (!available) {
  if (process.env.MEDALIST_REQUIRE_BWRAP === "1")
    throw new Error("MEDALIST_REQUIRE_BWRAP=1 but bwrap cannot run");
  console.warn("[test/security/sandbox] skipping: bwrap cannot start a sandbox here");
}

/** A checkout-like folder: the agent's code, the data folder (public + private) and results inside it. */
function layout(over: Partial<RunSpec> = {}) {
  const root = mkdtempSync(join(tmpdir(), "medalist-sandbox-"));
  const data = join(root, ".medalist", "data", "toy", "prepared");
  for (const d of ["public", "private"]) mkdirSync(join(data, d), { recursive: true });
  writeFileSync(join(data, "public", "train.csv"), "id,x\n1,2\n");
  writeFileSync(join(data, "private", "answers.csv"), "id,y\n1,GOLD-ANSWER\n");
  mkdirSync(join(root, ".git"));
  writeFileSync(join(root, ".git", "config"), "extraheader = AUTHORIZATION: basic GIT-TOKEN\n");
  const runs = join(root, ".medalist", "results", "runs");
  mkdirSync(join(runs, "other.s0", "submission"), { recursive: true });
  writeFileSync(join(runs, "other.s0", "submission", "submission.csv"), "OTHER-RUN\n");
  const spec: RunSpec = {
    runId: "toy.s0",
    suiteId: "suite",
    competitionId: "toy",
    seed: 0,
    publicDir: join(data, "public"),
    runDir: join(runs, "toy.s0"),
    timeLimitSecs: 30,
    env: { MY_VAR: "mine" },
    gpus: [],
    ...over,
  };
  return { root, spec };
}

const run = (
  cwd: string,
  script: string,
  over: Partial<ConstructorParameters<typeof LocalExecutor>[0]> = {},
) =>
  new LocalExecutor({ command: script, cwd, graceSecs: 1, pollMs: 200, sandbox: { mode: "bwrap" }, ...over });

describe.skipIf(!available)("the local agent inside bubblewrap", () => {
  it("cannot read the runner's environment, its home, the private answers, .git or other runs", async () => {
    process.env.MEDALIST_RUNNER_CANARY = "runner-canary-value";
    const { root, spec } = layout({ env: { MY_VAR: "mine", RUNNER_HOME: homedir() } });
    const r = await attemptOn(
      run(
        root,
        [
          'out="$LOGS_DIR/probe.txt"',
          'cat /proc/1/environ /proc/$PPID/environ >> "$out" 2>&1',
          'for f in /proc/[0-9]*/environ; do cat "$f"; done >> "$out" 2>&1',
          'ls -la "$RUNNER_HOME" >> "$out" 2>&1',
          'cat "$DATA_DIR/../private/answers.csv" >> "$out" 2>&1',
          'ls -laR "$DATA_DIR/../.." >> "$out" 2>&1',
          'cat .git/config >> "$out" 2>&1; ls -la .git >> "$out" 2>&1',
          'cat .medalist/results/runs/other.s0/submission/submission.csv >> "$out" 2>&1',
          'grep -r . . >> "$out" 2>&1',
          'env > "$LOGS_DIR/env.txt"',
          'ls /proc | tr "\\n" " " > "$LOGS_DIR/procs.txt"',
          'echo "id,y" > "$SUBMISSION_DIR/submission.csv"',
          'echo written > "$CODE_DIR/code.txt"',
          'touch ./in-cwd 2>> "$out"; echo home > "$HOME/h.txt" && echo home-ok >> "$out"',
        ].join("\n"),
      ),
      spec,
    );
    delete process.env.MEDALIST_RUNNER_CANARY;
    expect(r.outcome).toBe("completed");
    const probe = readFileSync(join(spec.runDir, "logs", "probe.txt"), "utf8");
    for (const leak of ["runner-canary-value", "GOLD-ANSWER", "GIT-TOKEN", "OTHER-RUN"])
      expect(probe).not.toContain(leak);
    expect(probe).toContain("Read-only file system");
    expect(probe).toContain("home-ok");
    // Its own namespace: a handful of processes, none of the runner's.
    const pids = readFileSync(join(spec.runDir, "logs", "procs.txt"), "utf8").match(/\b\d+\b/g) ?? [];
    expect(pids.length).toBeLessThan(10);
    const env = readFileSync(join(spec.runDir, "logs", "env.txt"), "utf8");
    expect(env).toContain("MY_VAR=mine");
    expect(env).toContain(`HOME=${join(spec.runDir, "home")}`);
    expect(env).not.toContain("runner-canary-value");
    // What it was given to write, it wrote; HOME lived in memory only.
    expect(readFileSync(join(spec.runDir, "submission", "submission.csv"), "utf8")).toBe("id,y\n");
    expect(readFileSync(join(spec.runDir, "code", "code.txt"), "utf8")).toBe("written\n");
    expect(readdirSync(join(spec.runDir, "home"))).toEqual([]);
    expect(existsSync(join(root, "in-cwd"))).toBe(false);
    expect(readFileSync(join(spec.runDir, "run.log"), "utf8")).toMatch(/medalist sandbox: bwrap \(/);
  }, 60_000);

  it("sees the public data and its instructions, and writes nothing else of the run", async () => {
    const { root, spec } = layout();
    writeFileSync(join(spec.runDir, "..", "..", "results.json"), "{}");
    mkdirSync(spec.runDir, { recursive: true });
    writeFileSync(join(spec.runDir, "instructions.txt"), "do your best\n");
    const r = await attemptOn(
      run(
        root,
        'cat "$DATA_DIR/train.csv" "$INSTRUCTIONS_FILE" > "$LOGS_DIR/seen.txt"; echo x > "$INSTRUCTIONS_FILE" || echo ro >> "$LOGS_DIR/seen.txt"; ls "$LOGS_DIR/.." >> "$LOGS_DIR/seen.txt"',
      ),
      spec,
    );
    expect(r.outcome).toBe("completed");
    const seen = readFileSync(join(spec.runDir, "logs", "seen.txt"), "utf8");
    expect(seen).toContain("id,x\n1,2\ndo your best\nro\n");
    expect(seen).not.toContain("run.log");
    expect(readFileSync(join(spec.runDir, "instructions.txt"), "utf8")).toBe("do your best\n");
  }, 60_000);

  it("covers a worktree's .git file and the private folder reached through a link", async () => {
    const { root, spec } = layout();
    rmSync(join(root, ".git"), { recursive: true });
    writeFileSync(join(root, ".git"), "gitdir: GIT-TOKEN-PATH\n");
    symlinkSync(join(root, ".medalist", "data", "toy", "prepared", "private"), join(root, "answers-link"));
    const r = await attemptOn(
      run(root, 'cat .git answers-link/answers.csv > "$LOGS_DIR/seen.txt" 2>&1; true'),
      spec,
    );
    expect(r.outcome).toBe("completed");
    const seen = readFileSync(join(spec.runDir, "logs", "seen.txt"), "utf8");
    expect(seen).not.toContain("GIT-TOKEN-PATH");
    expect(seen).not.toContain("GOLD-ANSWER");
    expect(seen).toContain("answers-link/answers.csv: No such file or directory");
  }, 60_000);

  it("ends every process of the run at the time limit", async () => {
    const { root, spec } = layout({ timeLimitSecs: 2 });
    const nap = `1000.${process.pid}7`;
    const r = await attemptOn(
      run(
        root,
        `setsid sh -c 'trap "" TERM; exec sleep ${nap}' & trap "" TERM; while true; do sleep 1; done`,
      ),
      spec,
    );
    expect(r.outcome).toBe("timed_out");
    const left = readdirSync("/proc").filter((p) => {
      try {
        return /^\d+$/.test(p) && readFileSync(`/proc/${p}/cmdline`, "latin1").includes(`sleep\0${nap}`);
      } catch {
        return false;
      }
    });
    expect(left).toEqual([]);
  }, 60_000);

  it("a program that does not exist fails the run, with bwrap's reason in run.log", async () => {
    const { root, spec } = layout();
    const r = await attemptOn(
      new LocalExecutor({
        command: ["/nonexistent/agent"],
        cwd: root,
        sandbox: { mode: "bwrap" },
      }),
      spec,
    );
    expect(r.outcome).toBe("failed");
    expect(r.exitCode).not.toBe(0);
    expect(readFileSync(join(spec.runDir, "run.log"), "utf8")).toMatch(
      /\/nonexistent\/agent: No such file or directory/,
    );
  }, 60_000);
});

describe("choosing the sandbox", () => {
  it("none is none; auto is bwrap exactly where bwrap runs; the launch says which", () => {
    expect(resolveSandbox("none")).toBe("none");
    expect(resolveSandbox("auto")).toBe(available ? "bwrap" : "none");
    expect(resolveSandbox("bwrap")).toBe(available ? "bwrap" : null);
    const { root, spec } = layout();
    const none = sandboxLaunch({
      file: "/bin/sh",
      args: ["-c", "true"],
      env: { A: "1" },
      cwd: root,
      spec,
      mode: "none",
    });
    expect(none).toMatchObject({ file: "/bin/sh", kind: "none", env: { A: "1" } });
    expect(none.note).toBe("sandbox: none (local.sandbox: none): the agent runs as the runner's user");
  });

  it("refuses a working folder that holds the runner's home", () => {
    expect(sandboxProblem("/")).toMatch(/holds the runner's home/);
    expect(sandboxProblem(homedir())).toMatch(/holds the runner's home/);
    expect(sandboxProblem(join(tmpdir(), "x"))).toBeNull();
  });
});
