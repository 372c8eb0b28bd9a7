import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import type { Executor, ExecResult, RunSpec } from "../types.js";
import { runPaths } from "../types.js";
import { RunLog } from "../run-log.js";
import { contractEnv, hostPaths, type ContractPaths } from "../contract.js";

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

  /** The agent works on the host: its instructions name the run's real folders. */
  agentPaths(spec: RunSpec): ContractPaths {
    return hostPaths(spec);
  }

  execute(spec: RunSpec, signal?: AbortSignal): Promise<ExecResult> {
    const p = runPaths(spec.runDir);
    for (const d of [p.submissionDir, p.logsDir, p.codeDir]) mkdirSync(d, { recursive: true });
    const env: Record<string, string> = {};
    for (const k of KEEP) if (process.env[k] !== undefined) env[k] = process.env[k]!;
    Object.assign(env, spec.env, contractEnv(spec, hostPaths(spec)));
    const secrets = (spec.secretEnv ?? []).map((k) => spec.env[k]).filter((v): v is string => !!v);
    const log = new RunLog(p.logFile, secrets);
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
      child.stdout.setEncoding("utf8").on("data", (t: string) => log.output("stdout", t));
      child.stderr.setEncoding("utf8").on("data", (t: string) => log.output("stderr", t));

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
        log.note(`time limit of ${spec.timeLimitSecs}s reached: stopping the agent`);
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
        void log.close().then(() => resolve({ ...r, durationMs: Date.now() - started }));
      };
      // A command that cannot start is the agent's failure, as a shell reports it (127, 126).
      child.on("error", (e) => {
        const code = (e as NodeJS.ErrnoException).code;
        const exitCode = code === "ENOENT" ? 127 : code === "EACCES" ? 126 : null;
        log.output("stderr", `${file}: cannot start: ${e.message}\n`);
        finish(
          exitCode === null
            ? { outcome: "infra_error", exitCode, error: `could not start the agent: ${e.message}` }
            : { outcome: "failed", exitCode, error: `could not start the agent: ${e.message}` },
        );
      });
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
          ...(sig ? { signal: sig } : {}),
          error: sig ? `agent killed by ${sig}` : `agent exited with code ${code}`,
        });
      });
    });
  }
}
