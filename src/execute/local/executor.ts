import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import type { Executor, ExecResult, RunSpec } from "../types.js";
import { runPaths } from "../types.js";
import { contractEnv } from "../contract.js";

/** Runner variables a local agent keeps so that tools like node and python still work. */
const KEEP = ["PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "TZ", "SYSTEMROOT"];

export interface LocalOptions {
  /** The agent command, run by /bin/sh (a string) or directly (an argv array). */
  command: string | string[];
  cwd: string;
  /** Seconds between SIGTERM and SIGKILL at the time limit. */
  graceSecs?: number;
}

/**
 * Runs the agent as a child process in its own process group. At the time limit the whole group
 * gets SIGTERM, then SIGKILL after the grace period. Output goes to the run's log file.
 */
export class LocalExecutor implements Executor {
  readonly name = "local";
  constructor(private readonly opts: LocalOptions) {}

  execute(spec: RunSpec, signal?: AbortSignal): Promise<ExecResult> {
    const p = runPaths(spec.runDir);
    for (const d of [p.submissionDir, p.logsDir, p.codeDir]) mkdirSync(d, { recursive: true });
    const env: Record<string, string> = {};
    for (const k of KEEP) if (process.env[k] !== undefined) env[k] = process.env[k]!;
    Object.assign(
      env,
      spec.env,
      contractEnv(spec, {
        data: spec.publicDir,
        submission: p.submissionDir,
        logs: p.logsDir,
        code: p.codeDir,
        instructions: p.instructionsFile,
      }),
    );
    const log = createWriteStream(p.logFile, { flags: "a" });
    const started = Date.now();
    const { command } = this.opts;
    const [file, args] =
      typeof command === "string" ? ["/bin/sh", ["-c", command]] : [command[0], command.slice(1)];

    return new Promise<ExecResult>((resolve) => {
      let timedOut = false;
      let cancelled = false;
      let settled = false;
      const child = spawn(file, args, {
        cwd: this.opts.cwd,
        env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const stamp = (chunk: Buffer) => log.write(chunk);
      child.stdout.on("data", stamp);
      child.stderr.on("data", stamp);

      const killGroup = (sig: NodeJS.Signals) => {
        try {
          if (child.pid) process.kill(-child.pid, sig);
        } catch {
          /* already gone */
        }
      };
      const stop = () => {
        killGroup("SIGTERM");
        setTimeout(() => killGroup("SIGKILL"), (this.opts.graceSecs ?? 5) * 1000).unref();
      };
      const timer = setTimeout(() => {
        timedOut = true;
        log.write(`\n[medalist] time limit of ${spec.timeLimitSecs}s reached: stopping the agent\n`);
        stop();
      }, spec.timeLimitSecs * 1000);
      const onAbort = () => {
        cancelled = true;
        stop();
      };
      signal?.addEventListener("abort", onAbort, { once: true });

      const finish = (r: Omit<ExecResult, "durationMs">) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        // Kill anything the agent left behind in its group.
        killGroup("SIGKILL");
        log.end(() => resolve({ ...r, durationMs: Date.now() - started }));
      };
      child.on("error", (e) =>
        finish({ outcome: "infra_error", exitCode: null, error: `could not start the agent: ${e.message}` }),
      );
      child.on("close", (code, sig) => {
        if (timedOut)
          return finish({
            outcome: "timed_out",
            exitCode: code,
            error: `killed at the ${spec.timeLimitSecs}s time limit`,
          });
        if (cancelled)
          return finish({ outcome: "infra_error", exitCode: code, error: "cancelled", cancelled: true });
        if (code === 0) return finish({ outcome: "completed", exitCode: 0 });
        return finish({
          outcome: "failed",
          exitCode: code,
          error: sig ? `agent killed by ${sig}` : `agent exited with code ${code}`,
        });
      });
    });
  }
}
