import { chmod, chown, mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import { readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { Masker } from "./mask.js";
import { maskRunFolder } from "./mask-folder.js";
import { WITHHELD_FILE } from "./withheld.js";
import {
  DEFAULT_QUOTA,
  describeBreach,
  describeFinalBreach,
  finalQuotaCheck,
  watchQuota,
  type QuotaBreach,
} from "./quota.js";
import { RunLog } from "./run-log.js";
import { sanitizeRun } from "../util/runfiles.js";
import { runPaths, type ExecResult, type RunSpec } from "./types.js";

/**
 * One attempt at one run, whatever the backend. The wrapper owns every duty an attempt has: the
 * run folder (0700, submission/ emptied on a retry), run.log with secrets masked as they
 * stream, the disk quota while the agent runs and once more after it exits, the time limit and
 * the stop → grace → kill escalation, cancellation, sanitizing and masking what the agent left,
 * and the wording of every outcome. A backend supplies only a driver that starts the agent and
 * reports how it ended.
 */

/** How an agent's process (container, job) ended, as the backend saw it. */
export interface ExitFacts {
  /** The agent's exit code, when known. */
  code: number | null;
  /** The signal that ended it ("SIGKILL", or "signal 9" when only the number is known). */
  signal?: string | null;
  /** The backend saw it run out of memory: the reason in words (limit, node). */
  oom?: string;
  /** The backend's own time limit stopped it (not Medalist's): the reason in words. */
  timedOut?: string;
  /** The agent's command could not start: a shell's 127 (not found) or 126 (not executable). */
  cannotStart?: { code: number | null; reason: string };
  /** The agent's own fault before anything ran (its image did not build), in words. */
  agentFault?: string;
  /** The infrastructure failed (daemon, cluster, lost track): not the agent's result. */
  infra?: { error: string; retryable: boolean };
  /** How long the agent ran, when the backend knows better than the wrapper's clock. */
  durationMs?: number;
  /** A limit the kernel enforces stopped the agent (pids, a sized folder): which, and the cause in words. */
  limit?: { name: string; cause: string };
}

/** What a driver gets for one attempt. */
export interface AttemptContext {
  /** Which attempt (1 first). */
  attempt: number;
  /** The agent's output: written to run.log, masked. */
  output(stream: "stdout" | "stderr", text: string): void;
  /** A line from Medalist into run.log (masked too). */
  note(text: string): void;
  /** Facts for results.json (container, job id, node). */
  details: Record<string, string>;
  /** For drivers with `clock: "when-running"`: the agent started, `elapsedSecs` ago. */
  running(elapsedSecs?: number): void;
}

/** A started agent. */
export interface AgentHandle {
  /** Asks the agent to stop (SIGTERM); the wrapper calls kill() after `graceSecs`. */
  stop(graceSecs: number): void;
  /** Ends the agent and everything it started now; wait() then resolves soon. */
  kill(): void;
  /** Resolves once the agent ended (after kill() and `lostAfterKillSecs`, the wrapper stops waiting). */
  wait(): Promise<ExitFacts>;
  /** Releases what the attempt holds (container, job script); called once, after wait. */
  release?(): Promise<void>;
}

/** A backend's part of an attempt. */
export interface AttemptDriver {
  /** Starts the agent, or says why it could not. */
  start(spec: RunSpec, ctx: AttemptContext): Promise<AgentHandle | { ended: ExitFacts }>;
  /** "on-start": the time limit runs from start(); "when-running": from ctx.running() (queued jobs). */
  readonly clock?: "on-start" | "when-running";
  /** Seconds between SIGTERM and SIGKILL at the time limit or a quota breach. */
  readonly graceSecs: number;
  /** After kill(), how long to wait for the end before giving up on the agent. Default 30. */
  readonly lostAfterKillSecs?: number;
  /** Milliseconds between disk-quota checks. Default 1000. */
  readonly quotaPollMs?: number;
  /** Most bytes of output in run.log. Default 256 MiB. */
  readonly logMaxBytes?: number;
  /** "uid:gid" that owns the writable folders when the runner is root ("" or absent: the runner). */
  readonly agentUser?: string;
}

/** Stop grace when the suite is cancelled: everything must be gone within seconds. */
export const CANCEL_GRACE_SECS = 5;

type Why = "timeout" | "cancel" | "quota";

/** Runs one attempt of `spec` through `driver`. Never throws for the agent's or the backend's faults. */
export async function runAttempt(
  spec: RunSpec,
  signal: AbortSignal | undefined,
  driver: AttemptDriver,
): Promise<ExecResult> {
  const attempt = spec.attempt ?? 1;
  const details: Record<string, string> = {};
  const cancelled = (): ExecResult => ({ ...infra("cancelled", false, details), cancelled: true });
  if (signal?.aborted) return cancelled();
  try {
    await prepareRunFolder(spec, attempt > 1, driver.agentUser ?? "");
  } catch (e) {
    return infra(`preparing the run folder failed: ${(e as Error).message}`, false, details);
  }
  const secrets = secretValues(spec);
  // The one masker of this attempt: run.log as it streams, Medalist's notes, the outcome's words.
  const masker = new Masker(secrets);
  const log = new RunLog(runPaths(spec.runDir).logFile, masker, driver.logMaxBytes);
  let result: ExecResult;
  try {
    result = await supervise(spec, signal, driver, log, details, attempt);
  } finally {
    // Before anything reads the folders: no device nodes, FIFOs, sockets or setuid files remain.
    const cleaned = sanitizeRun(spec.runDir);
    if (cleaned) log.note(cleaned);
    await log.close();
    // What the agent left (and run.log) is masked before grading, storing or uploading reads it;
    // what cannot be masked is listed in withheld.json and stays on the runner.
    maskFolder(spec.runDir, secrets, details);
  }
  if (result.error) result.error = masker.mask(result.error);
  return result;
}

/** Masks the run folder; counts what it masked and withheld into the details. */
function maskFolder(runDir: string, secrets: string[], details: Record<string, string>): void {
  try {
    const r = maskRunFolder(runDir, secrets);
    if (r.masked.length + r.renamed.length > 0) details.masked = String(r.masked.length + r.renamed.length);
    if (r.withheld.length > 0 || r.incomplete)
      details.withheld = r.incomplete ? "all" : String(r.withheld.length);
  } catch {
    // Without its manifest the folder counts as withheld whole (execute/withheld.ts).
    rmSync(path.join(runDir, WITHHELD_FILE), { force: true });
    details.withheld = "all";
  }
}

function infra(error: string, retryable: boolean, details: Record<string, string>): ExecResult {
  return { outcome: "infra_error", exitCode: null, durationMs: 0, error, retryable, details };
}

/** The values of the run's declared secrets. */
export function secretValues(spec: Pick<RunSpec, "env" | "secretEnv">): string[] {
  return (spec.secretEnv ?? []).map((k) => spec.env[k]).filter((v): v is string => !!v);
}

/**
 * submission/, logs/, code/ writable by the agent (owned by `user` when the runner is root) and
 * instructions.txt. The run folder itself is the runner's alone (0700): no other host user can
 * reach what the agent leaves, even before it is sanitized. A retry starts from an empty submission/.
 */
export async function prepareRunFolder(spec: RunSpec, retry: boolean, user: string): Promise<void> {
  const p = runPaths(spec.runDir);
  const info = await stat(spec.publicDir).catch(() => null);
  if (!info?.isDirectory()) throw new Error(`public data folder ${spec.publicDir} does not exist`);
  await mkdir(spec.runDir, { recursive: true });
  await chmod(spec.runDir, 0o700);
  const [uid, gid] = user.split(":").map(Number);
  for (const dir of [p.submissionDir, p.logsDir, p.codeDir]) {
    await mkdir(dir, { recursive: true });
    // A retry is not graded on an earlier attempt's submission (logs/ and code/ stay: the agent may resume).
    if (retry && dir === p.submissionDir)
      for (const f of await readdir(dir)) await rm(path.join(dir, f), { recursive: true, force: true });
    await chmod(dir, 0o777);
    if (process.getuid?.() === 0 && user !== "") await chown(dir, uid, gid ?? uid).catch(() => {});
  }
  await writeFile(p.instructionsFile, "", { flag: "a" });
}

type Breach = QuotaBreach & { final?: boolean };

/** One attempt's watch: the time limit, the quota, the cancel, and the stop → grace → kill escalation. */
class Watch {
  why: Why | null = null;
  breach: Breach | null = null;
  handle: AgentHandle | null = null;
  started = Date.now();
  clockStarted = false;
  readonly gaveUp: Promise<"lost">;
  private giveUp: () => void = () => {};
  private readonly timers: NodeJS.Timeout[] = [];
  private pendingClock: number | null = null;
  private readonly unwatch: () => void;

  constructor(
    private readonly spec: RunSpec,
    private readonly driver: AttemptDriver,
    private readonly log: RunLog,
  ) {
    this.gaveUp = new Promise<"lost">((resolve) => (this.giveUp = () => resolve("lost")));
    this.unwatch = watchQuota(
      spec.runDir,
      spec.quota ?? DEFAULT_QUOTA,
      (b) => {
        this.breach = b;
        this.stop("quota");
      },
      driver.quotaPollMs,
    );
  }

  /** Stops the agent once: SIGTERM now, kill after the grace, stop waiting after that. */
  stop(reason: Why): void {
    const h = this.handle;
    if (this.why !== null || !h) return;
    this.why = reason;
    const { graceSecs } = this.driver;
    const grace = reason === "timeout" ? graceSecs : Math.min(graceSecs, CANCEL_GRACE_SECS);
    this.log.note(`${stopNote(reason, this.spec, this.breach)}: stopping the agent (grace ${grace}s)`);
    h.stop(grace);
    this.timers.push(setTimeout(() => h.kill(), grace * 1000));
    this.timers.push(setTimeout(this.giveUp, (grace + (this.driver.lostAfterKillSecs ?? 30)) * 1000));
  }

  /** The agent runs (since `elapsedSecs`): the time limit starts counting. */
  running(elapsedSecs = 0): void {
    if (!this.handle) {
      this.pendingClock ??= elapsedSecs;
      return;
    }
    if (this.clockStarted) return;
    this.clockStarted = true;
    this.started = Date.now() - elapsedSecs * 1000;
    this.log.note(`started; time limit ${this.spec.timeLimitSecs}s`);
    const left = Math.max(0, this.spec.timeLimitSecs - elapsedSecs);
    this.timers.push(setTimeout(() => this.stop("timeout"), left * 1000));
  }

  /** The driver started the agent. */
  attach(handle: AgentHandle): void {
    this.handle = handle;
    if (this.driver.clock !== "when-running" || this.pendingClock !== null)
      this.running(this.pendingClock ?? 0);
  }

  dispose(): void {
    this.unwatch();
    for (const t of this.timers) clearTimeout(t);
  }
}

/** Starts the agent and watches it: time limit, quota, cancel; then words how it ended. */
async function supervise(
  spec: RunSpec,
  signal: AbortSignal | undefined,
  driver: AttemptDriver,
  log: RunLog,
  details: Record<string, string>,
  attempt: number,
): Promise<ExecResult> {
  const w = new Watch(spec, driver, log);
  let spoke = false;
  const ctx: AttemptContext = {
    attempt,
    output: (s, t) => {
      if (t.trim() !== "") spoke = true;
      log.output(s, t);
    },
    note: (t) => log.note(t),
    details,
    running: (elapsed) => w.running(elapsed),
  };
  const onAbort = () => w.stop("cancel");
  signal?.addEventListener("abort", onAbort, { once: true });
  let exit: ExitFacts | "lost";
  try {
    const s = await driver.start(spec, ctx);
    if ("ended" in s) return word(s.ended, null, null, spec, details, 0);
    w.attach(s);
    if (signal?.aborted) onAbort();
    exit = await Promise.race([s.wait(), w.gaveUp]);
  } finally {
    w.dispose();
    signal?.removeEventListener("abort", onAbort);
    await w.handle?.release?.().catch(() => {});
  }
  const facts: ExitFacts =
    exit === "lost"
      ? { code: null, infra: { error: "the agent did not end after it was killed", retryable: false } }
      : exit;
  const durationMs = facts.durationMs ?? (w.clockStarted ? Date.now() - w.started : 0);
  if (exit !== "lost") log.note(exitNote(facts, durationMs));
  // The final quota check (allocated and apparent bytes): a file written just before exit, or a
  // sparse one, counts as much as one the watch saw. Before anything grades or stores the run.
  if (w.why === null && !facts.infra) {
    const late = finalQuotaCheck(spec.runDir, spec.quota ?? DEFAULT_QUOTA);
    if (late) {
      w.breach = { ...late, final: true };
      w.why = "quota";
      log.note(describeFinalBreach(late));
    }
  }
  const result = word(facts, w.why, w.breach, spec, details, durationMs);
  if (w.why === null && !spoke && neverRan(result, facts, spec)) {
    details.neverRan = "true";
    log.note(NEVER_RAN);
  }
  return result;
}

/** Shorter than this, with no output and no submission, the run is marked (its cause says what is known). */
export const NEVER_RAN_MS = 1000;

const NEVER_RAN =
  "no output, no submission, and an exit within a second (with Docker, an image ENTRYPOINT that ignores the command ends runs this way)";

/** Whether a run that ended on its own looks like its command never ran (no submission, under a second). */
function neverRan(r: ExecResult, f: ExitFacts, spec: RunSpec): boolean {
  if (r.outcome !== "completed" && r.outcome !== "failed") return false;
  if (f.cannotStart || f.agentFault || r.durationMs >= NEVER_RAN_MS) return false;
  try {
    return readdirSync(runPaths(spec.runDir).submissionDir).length === 0;
  } catch {
    return true;
  }
}

function stopNote(why: Why, spec: RunSpec, breach: QuotaBreach | null): string {
  if (why === "timeout") return `time limit of ${spec.timeLimitSecs}s reached`;
  if (why === "quota") return describeBreach(breach!);
  return "cancelled";
}

function exitNote(f: ExitFacts, durationMs: number): string {
  const how = f.signal ? `signal ${f.signal}` : f.code !== null ? `code ${f.code}` : "unknown status";
  return `exited with ${how}${f.oom ? " (out of memory)" : ""} after ${(durationMs / 1000).toFixed(1)}s`;
}

/** The outcome in words, the same for every executor. */
export function word(
  f: ExitFacts,
  why: Why | null,
  breach: Breach | null,
  spec: RunSpec,
  details: Record<string, string>,
  durationMs: number,
): ExecResult {
  const base = { durationMs, details, exitCode: f.code };
  const oom = f.oom !== undefined ? { oomKilled: true } : {};
  if (f.oom !== undefined) details.oomKilled = "true";
  if (why === "cancel") {
    details.cancelled = "true";
    return { ...base, outcome: "infra_error", error: "cancelled", cancelled: true, retryable: false };
  }
  if (why === "timeout") {
    const lost = f.infra ? ` (${f.infra.error})` : "";
    const error = `time limit of ${spec.timeLimitSecs}s reached: the agent was stopped${lost}`;
    return { ...base, ...oom, outcome: "timed_out", error };
  }
  if (why === "quota") {
    details.quota = breach!.folder;
    const error = breach!.final ? describeFinalBreach(breach!) : describeBreach(breach!);
    return { ...base, ...oom, outcome: "failed", error };
  }
  if (f.infra) return { ...base, outcome: "infra_error", error: f.infra.error, retryable: f.infra.retryable };
  if (f.oom !== undefined) return { ...base, ...oom, outcome: "oom", error: f.oom };
  if (f.limit !== undefined) {
    details.limit = f.limit.name;
    return { ...base, outcome: "failed", error: f.limit.cause };
  }
  if (f.timedOut !== undefined) return { ...base, outcome: "timed_out", error: f.timedOut };
  if (f.agentFault !== undefined) return { ...base, outcome: "failed", error: f.agentFault };
  if (f.cannotStart) {
    const error = `the command cannot start: ${f.cannotStart.reason}`;
    return { ...base, outcome: "failed", exitCode: f.cannotStart.code, error };
  }
  if (f.code === 0 && !f.signal) return { ...base, outcome: "completed", exitCode: 0 };
  const error = f.signal ? `agent killed by ${f.signal}` : `agent exited with code ${f.code}`;
  return { ...base, outcome: "failed", ...(f.signal ? { signal: f.signal } : {}), error };
}
