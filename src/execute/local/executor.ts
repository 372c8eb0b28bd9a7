import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import type { Executor, ExecResult, RunSpec } from "../types.js";
import { runPaths } from "../types.js";
import { contractEnv, hostPaths, type ContractPaths } from "../contract.js";
import { RunLog } from "../run-log.js";
import { RUN_TOKEN_VAR, RunProcesses, trackRun, untrackRun } from "../procs.js";
import { DEFAULT_QUOTA, describeBreach, watchQuota, type QuotaBreach } from "../quota.js";
import { sanitizeRun } from "../runfiles.js";
import { sandboxLaunch, type SandboxMode } from "./sandbox.js";

/** Runner variables a local agent keeps so that tools like node and python still work. */
const KEEP = ["PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "TZ", "SYSTEMROOT"];

export interface LocalOptions {
  /** The agent command, run by /bin/sh (a string) or directly (an argv array). */
  command: string | string[];
  cwd: string;
  /** Seconds between SIGTERM and SIGKILL at the time limit. */
  graceSecs?: number;
  /** Most bytes of output written to run.log (as with Docker). Default 256 MiB. */
  logMaxBytes?: number;
  /** Milliseconds between process scans and disk-quota checks. Default 1000. */
  pollMs?: number;
  /** Bubblewrap around the agent (see sandbox.ts); default { mode: "auto" }. */
  sandbox?: { mode?: SandboxMode; scratchBytes?: number };
}

/** After the agent's own process ends, how long its output pipes may stay open (held by leftovers). */
const PIPE_WAIT_MS = 2000;

/**
 * Runs the agent as a child process in its own process group, with a run token in its
 * environment. At the time limit (or a disk quota, or a cancel) every process of the run, however
 * it detached, gets SIGTERM, then SIGKILL after the grace period; when the agent's own process
 * ends, whatever it left running is killed. Output goes to run.log, secrets masked, capped.
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
    const token = randomBytes(16).toString("hex");
    const env: Record<string, string> = {};
    for (const k of KEEP) if (process.env[k] !== undefined) env[k] = process.env[k]!;
    Object.assign(env, spec.env, contractEnv(spec, hostPaths(spec)), { [RUN_TOKEN_VAR]: token });
    const secrets = (spec.secretEnv ?? []).map((k) => spec.env[k]).filter((v): v is string => !!v);
    const log = new RunLog(p.logFile, secrets, this.opts.logMaxBytes);
    const started = Date.now();
    const grace = (this.opts.graceSecs ?? 5) * 1000;
    const { command } = this.opts;
    const [file, args] =
      typeof command === "string" ? ["/bin/sh", ["-c", command]] : [command[0], command.slice(1)];

    return new Promise<ExecResult>((resolve) => {
      let why: "timeout" | "cancel" | "quota" | null = null;
      let breach: QuotaBreach | null = null;
      let settled = false;
      let exit: { code: number | null; sig: NodeJS.Signals | null } | null = null;
      const timers: NodeJS.Timeout[] = [];
      const launch = sandboxLaunch({ file, args, env, cwd: this.opts.cwd, spec, ...this.opts.sandbox });
      log.note(launch.note);
      const child = spawn(launch.file, launch.args, {
        cwd: launch.cwd,
        env: launch.env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const procs = child.pid ? new RunProcesses(child.pid, token) : null;
      if (procs) trackRun(procs);
      const decoders = { stdout: new TextDecoder(), stderr: new TextDecoder() };
      child.stdout.on("data", (c: Buffer) =>
        log.output("stdout", decoders.stdout.decode(c, { stream: true })),
      );
      child.stderr.on("data", (c: Buffer) =>
        log.output("stderr", decoders.stderr.decode(c, { stream: true })),
      );
      child.stdout.on("error", () => {});
      child.stderr.on("error", () => {});

      // Remember the run's processes while it runs: one that detaches stays known.
      const scanner = setInterval(() => procs?.scan(), this.opts.pollMs ?? 1000);
      const unwatch = watchQuota(
        spec.runDir,
        spec.quota ?? DEFAULT_QUOTA,
        (b) => {
          breach = b;
          stop("quota");
        },
        this.opts.pollMs,
      );

      const stop = (reason: "timeout" | "cancel" | "quota") => {
        if (why !== null || settled) return;
        why = reason;
        log.note(
          reason === "timeout"
            ? `time limit of ${spec.timeLimitSecs}s reached: stopping the agent`
            : reason === "quota"
              ? describeBreach(breach!)
              : "cancelled: stopping the agent",
        );
        procs?.signal("SIGTERM");
        // After the grace period: kill everything of the run, and stop waiting on held pipes.
        timers.push(setTimeout(() => void finish(), grace));
      };
      const timer = setTimeout(() => stop("timeout"), spec.timeLimitSecs * 1000);
      const onAbort = () => stop("cancel");
      signal?.addEventListener("abort", onAbort, { once: true });
      if (signal?.aborted) onAbort();

      const finish = async (startError?: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearInterval(scanner);
        unwatch();
        for (const t of timers) clearTimeout(t);
        signal?.removeEventListener("abort", onAbort);
        // Nothing of the run survives it: repeat until no process is left (or give up after 5 s).
        for (let i = 0; i < 50 && procs && procs.signal("SIGKILL") > 0; i++) await sleep(100);
        if (procs) untrackRun(procs);
        child.stdout.destroy();
        child.stderr.destroy();
        const cleaned = sanitizeRun(spec.runDir);
        if (cleaned) log.note(cleaned);
        const durationMs = Date.now() - started;
        const code = exit?.code ?? null;
        let r: Omit<ExecResult, "durationMs">;
        if (startError) {
          // A command that cannot start is the agent's failure, as a shell reports it (127, 126).
          const errno = (startError as NodeJS.ErrnoException).code;
          const exitCode = errno === "ENOENT" ? 127 : errno === "EACCES" ? 126 : null;
          log.output("stderr", `${file}: cannot start: ${startError.message}\n`);
          r = {
            outcome: exitCode === null ? "infra_error" : "failed",
            exitCode,
            error: `could not start the agent: ${startError.message}`,
          };
        } else if (why === "timeout")
          r = {
            outcome: "timed_out",
            exitCode: code,
            error: `killed at the ${spec.timeLimitSecs}s time limit`,
          };
        else if (why === "cancel")
          r = { outcome: "infra_error", exitCode: code, error: "cancelled", cancelled: true };
        else if (why === "quota")
          r = {
            outcome: "failed",
            exitCode: code,
            error: describeBreach(breach!),
            details: { quota: breach!.folder },
          };
        else if (code === 0) r = { outcome: "completed", exitCode: 0 };
        else
          r = {
            outcome: "failed",
            exitCode: code,
            ...(exit?.sig ? { signal: exit.sig } : {}),
            error: exit?.sig ? `agent killed by ${exit.sig}` : `agent exited with code ${code}`,
          };
        if (exit)
          log.note(`exited with ${exit.sig ?? `code ${code}`} after ${(durationMs / 1000).toFixed(1)}s`);
        await log.close();
        resolve({ ...r, durationMs });
      };
      child.on("error", (e) => void finish(e));
      child.on("exit", (code, sig) => {
        exit = { code, sig };
        // The agent's own process ended: leftovers are killed; output still in the pipes is read
        // for a moment, but a grandchild holding them open cannot hold the run.
        if (why === null) procs?.signal("SIGKILL");
        const t = setTimeout(() => void finish(), why === null ? PIPE_WAIT_MS : 0);
        timers.push(t);
        child.on("close", () => {
          clearTimeout(t);
          void finish();
        });
      });
    });
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
