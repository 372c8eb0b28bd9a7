import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { RunSpec } from "../types.js";
import { contractEnv, hostPaths } from "../contract.js";
import type { ContractPaths } from "../types.js";
import { type AgentHandle, type AttemptDriver, type ExitFacts } from "../attempt.js";
import { RUN_TOKEN_VAR, RunProcesses, trackRun, untrackRun } from "../procs.js";
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
 * The agent as a child process in its own process group, with a run token in its environment.
 * stop() sends SIGTERM to every process of the run, however it detached; kill() and the agent's
 * own exit SIGKILL whatever is left. Everything else an attempt does is runAttempt's.
 */
export class LocalExecutor {
  readonly name = "local";
  constructor(private readonly opts: LocalOptions) {}

  /** The agent works on the host: its instructions name the run's real folders. */
  agentPaths(spec: RunSpec): ContractPaths {
    return hostPaths(spec);
  }

  driver(): AttemptDriver {
    return {
      graceSecs: this.opts.graceSecs ?? 5,
      lostAfterKillSecs: 10,
      quotaPollMs: this.opts.pollMs,
      logMaxBytes: this.opts.logMaxBytes,
      start: async (spec, ctx) => this.start(spec, ctx.output, ctx.note),
    };
  }

  private start(
    spec: RunSpec,
    output: (s: "stdout" | "stderr", t: string) => void,
    note: (t: string) => void,
  ): AgentHandle {
    const token = randomBytes(16).toString("hex");
    const env: Record<string, string> = {};
    for (const k of KEEP) if (process.env[k] !== undefined) env[k] = process.env[k]!;
    Object.assign(env, spec.env, contractEnv(spec, hostPaths(spec)), { [RUN_TOKEN_VAR]: token });
    const { command } = this.opts;
    const [file, args] =
      typeof command === "string" ? ["/bin/sh", ["-c", command]] : [command[0], command.slice(1)];
    const launch = sandboxLaunch({ file, args, env, cwd: this.opts.cwd, spec, ...this.opts.sandbox });
    note(launch.note);
    const child = spawn(launch.file, launch.args, {
      cwd: launch.cwd,
      env: launch.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const procs = child.pid ? new RunProcesses(child.pid, token) : null;
    if (procs) trackRun(procs);
    for (const s of ["stdout", "stderr"] as const) {
      const decoder = new TextDecoder();
      child[s].on("data", (c: Buffer) => output(s, decoder.decode(c, { stream: true })));
      child[s].on("error", () => {});
    }
    // Remember the run's processes while it runs: one that detaches stays known.
    const scanner = setInterval(() => procs?.scan(), this.opts.pollMs ?? 1000);
    let stopping = false;
    let end: (facts: ExitFacts) => void = () => {};
    const ended = new Promise<ExitFacts>((resolve) => (end = resolve));
    let facts: ExitFacts | null = null;
    let settled = false;
    const finish = async () => {
      if (settled) return;
      settled = true;
      clearInterval(scanner);
      // Nothing of the run survives it: repeat until no process is left (or give up after 5 s).
      for (let i = 0; i < 50 && procs && procs.signal("SIGKILL") > 0; i++) await sleep(100);
      if (procs) untrackRun(procs);
      child.stdout.destroy();
      child.stderr.destroy();
      end(facts ?? { code: null, signal: "SIGKILL" });
    };
    child.on("error", (e) => {
      // A command that cannot start is the agent's failure, as a shell reports it (127, 126).
      const errno = (e as NodeJS.ErrnoException).code;
      output("stderr", `${file}: cannot start: ${e.message}\n`);
      facts =
        errno === "ENOENT" || errno === "EACCES"
          ? { code: null, cannotStart: { code: errno === "ENOENT" ? 127 : 126, reason: e.message } }
          : { code: null, infra: { error: `could not start the agent: ${e.message}`, retryable: false } };
      void finish();
    });
    child.on("exit", (code, sig) => {
      facts = { code, signal: sig };
      // The agent's own process ended: leftovers are killed; output still in the pipes is read
      // for a moment, but a grandchild holding them open cannot hold the run.
      if (!stopping) procs?.signal("SIGKILL");
      const t = setTimeout(() => void finish(), stopping ? 0 : PIPE_WAIT_MS);
      child.on("close", () => {
        clearTimeout(t);
        void finish();
      });
    });
    return {
      stop: () => {
        stopping = true;
        procs?.signal("SIGTERM");
      },
      kill: () => void finish(),
      wait: () => ended,
    };
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
