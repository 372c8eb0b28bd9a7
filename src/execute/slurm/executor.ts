import {
  chownSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  closeSync,
  readdirSync,
  realpathSync,
  rmSync,
} from "node:fs";
import { writeFile, unlink } from "node:fs/promises";
import os from "node:os";
import { relative, resolve, isAbsolute } from "node:path";
import { UserError } from "../../errors.js";
import type { EnvironmentFacts, ExecutorBackend, OpenExecutor, SuiteContext } from "../lifecycle.js";
import { sanitizeRun } from "../runfiles.js";
import { runPaths, type ExecResult, type RunSpec } from "../types.js";
import { sweepOrphans } from "./cleanup.js";
import { FACTS_FILE, planJob } from "./job.js";
import { spawnRunner, type CommandRunner } from "./runner.js";
import { classify, parseFacts, parseJobId, phaseOf, type JobRecord, type NodeFacts } from "./sacct.js";
import { slurmSettings, type SlurmSettings } from "./settings.js";
import { JobTracker } from "./tracker.js";

/** Seconds a cancelled job may keep its processes before it is killed outright. */
const CANCEL_GRACE_SECS = 5;

function inside(child: string, parent: string): boolean {
  let c: string;
  let p: string;
  try {
    c = realpathSync(child);
    p = realpathSync(parent);
  } catch {
    return false;
  }
  const rel = relative(p, c);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function firstLine(s: string): string {
  return s.trim().split("\n")[0] ?? "";
}

/** sbatch errors that another attempt cannot fix (bad partition, account, request). */
const FIXED_SUBMIT_ERROR =
  /invalid|not available|unrecognized|unknown|not allowed|denied|does not exist|exceeds|too many/i;

/** Reads the node facts without following a link, bounded. */
function readFacts(runDir: string): NodeFacts | null {
  const path = `${runDir}/${FACTS_FILE}`;
  try {
    if (!lstatSync(path).isFile()) return null;
    const fd = openSync(path, "r");
    try {
      const buf = Buffer.alloc(8192);
      const n = readSync(fd, buf, 0, buf.length, 0);
      return parseFacts(buf.subarray(0, n).toString("utf8"));
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}

export interface SlurmOpenOptions {
  runner?: CommandRunner;
  /** Owner written into job comments; default "<host>:<pid>". */
  owner?: string;
}

/** An open Slurm backend: submits one job per run attempt and follows all of them with sacct. */
export class SlurmExecutor implements OpenExecutor {
  readonly name = "slurm";
  readonly resources;
  readonly perRun = { gpus: 0 };
  readonly facts: EnvironmentFacts;
  private readonly tracker: JobTracker;
  /** Jobs submitted and not yet seen ended. */
  private readonly live = new Set<string>();
  private closed = false;

  constructor(
    readonly settings: SlurmSettings,
    private readonly runner: CommandRunner,
    private readonly ctx: Pick<SuiteContext, "suiteId" | "log">,
  ) {
    // Slurm places GPUs and CPUs; the runner only bounds how many jobs are in the queue at once.
    this.resources = { gpuIds: [], maxParallel: settings.maxConcurrent };
    this.facts = { image: settings.image ?? null, imageDigest: null, gpuModel: null };
    this.tracker = new JobTracker(runner, settings.poll, ctx.log);
  }

  /** Cancels every job of the suite still known to be queued or running (one scancel). */
  async cancelAll(): Promise<void> {
    const ids = [...this.live];
    if (ids.length === 0) return;
    await this.runner.run("scancel", ids);
    this.tracker.nudge();
  }

  async execute(spec: RunSpec, signal?: AbortSignal): Promise<ExecResult> {
    const began = Date.now();
    const details: Record<string, string> = {};
    const infra = (error: string, retryable: boolean): ExecResult => ({
      outcome: "infra_error",
      exitCode: null,
      durationMs: Date.now() - began,
      error,
      retryable,
      details,
    });
    const cancelled = (): ExecResult => ({
      ...infra("cancelled", false),
      cancelled: true,
      details: { ...details, cancelled: "true" },
    });
    if (signal?.aborted || this.closed) return cancelled();
    const s = this.settings;
    for (const [what, path] of [
      ["run folder", spec.runDir],
      ["public data folder", spec.publicDir],
    ]) {
      if (!inside(path, s.sharedDir)) {
        return infra(
          `the ${what} ${path} is not inside slurm.sharedDir (${s.sharedDir}); the nodes could not see it`,
          false,
        );
      }
    }
    const p = runPaths(spec.runDir);
    try {
      for (const d of [p.submissionDir, p.logsDir, p.codeDir]) {
        mkdirSync(d, { recursive: true, mode: 0o777 });
        // docker mode runs the agent as nobody when the runner is root: its folders must be its own.
        if (s.mode === "docker" && process.getuid?.() === 0) chownSync(d, 65534, 65534);
      }
      // A retried run must not be graded on an earlier attempt's submission or facts.
      for (const f of readdirSync(p.submissionDir))
        rmSync(`${p.submissionDir}/${f}`, { recursive: true, force: true });
      rmSync(`${spec.runDir}/${FACTS_FILE}`, { force: true });
    } catch (e) {
      return infra(`preparing the run folder failed: ${(e as Error).message}`, false);
    }

    const plan = planJob(spec, s);
    try {
      await writeFile(plan.scriptPath, plan.script, { mode: 0o755 });
    } catch (e) {
      return infra(`writing the job script failed: ${(e as Error).message}`, false);
    }
    const sub = await this.runner.run("sbatch", plan.args, { env: plan.env });
    const jobId = sub.code === 0 ? parseJobId(sub.stdout) : null;
    if (jobId === null) {
      const why = firstLine(sub.stderr) || firstLine(sub.stdout) || `exit code ${sub.code}`;
      return infra(`sbatch failed: ${why}`, !FIXED_SUBMIT_ERROR.test(why));
    }
    Object.assign(details, { slurmJobId: jobId, slurmJobName: plan.name });
    this.live.add(jobId);
    const ended = await this.follow(jobId, plan.name, spec, signal);
    this.live.delete(jobId);

    // Before anything reads the folder: no setuid bits, device nodes, FIFOs or sockets left.
    const cleaned = sanitizeRun(spec.runDir);
    if (cleaned) details.sanitized = cleaned;
    const facts = readFacts(spec.runDir);
    if (facts?.node) details.node = facts.node;
    if (facts?.cuda_visible_devices) details.cudaVisibleDevices = facts.cuda_visible_devices;
    if (facts?.gpu_model) {
      details.gpuModel = facts.gpu_model;
      this.facts.gpuModel ??= facts.gpu_model;
    }
    if (!ended.job) {
      if (ended.cancelledByUs) return cancelled();
      if (ended.timedOutByUs) {
        return {
          outcome: "timed_out",
          exitCode: null,
          durationMs: Date.now() - began,
          error: `time limit of ${spec.timeLimitSecs}s reached: Medalist cancelled job ${jobId}, but sacct never confirmed that it ended`,
          details,
        };
      }
      return infra(`lost track of Slurm job ${jobId}: sacct never reported it ended`, true);
    }
    const { job } = ended;
    details.slurmState = job.state;
    if (job.maxRssBytes !== null) details.maxRssBytes = String(job.maxRssBytes);
    const c = classify(job, {
      timedOutByUs: ended.timedOutByUs,
      cancelledByUs: ended.cancelledByUs,
      timeLimitSecs: spec.timeLimitSecs,
      memoryBytes: s.limits.memory !== undefined ? Math.ceil(s.limits.memory / 2 ** 20) * 2 ** 20 : undefined,
      facts,
    });
    if (c.outcome === "oom") details.oomKilled = "true";
    if (c.cancelled) details.cancelled = "true";
    return {
      outcome: c.outcome,
      exitCode: c.exitCode,
      durationMs: job.elapsedSecs > 0 ? job.elapsedSecs * 1000 : Date.now() - began,
      ...(c.error ? { error: c.error } : {}),
      ...(c.retryable !== undefined ? { retryable: c.retryable } : {}),
      ...(c.cancelled ? { cancelled: true } : {}),
      ...(c.outcome === "oom" ? { oomKilled: true } : {}),
      details,
    };
  }

  /** Follows one job until sacct says it ended, enforcing the run's time limit and cancellation. */
  private follow(
    jobId: string,
    name: string,
    spec: RunSpec,
    signal?: AbortSignal,
  ): Promise<{ job: JobRecord | null; timedOutByUs: boolean; cancelledByUs: boolean }> {
    const s = this.settings;
    return new Promise((done) => {
      let timedOutByUs = false;
      let cancelledByUs = false;
      let limitTimer: NodeJS.Timeout | undefined;
      const timers: NodeJS.Timeout[] = [];
      const stop = (why: "timeout" | "cancel") => {
        if (timedOutByUs || cancelledByUs) return;
        const again = (args: string[], afterSecs: number) =>
          timers.push(
            setTimeout(
              () => void this.runner.run("scancel", args).then(() => this.tracker.nudge()),
              afterSecs * 1000,
            ),
          );
        if (why === "timeout") {
          timedOutByUs = true;
          // SIGTERM to the batch shell and every step; after the grace, Slurm's own cancel.
          again(["--full", "--signal=TERM", jobId], 0);
          again([jobId], s.stopGraceSecs);
        } else {
          cancelledByUs = true;
          // Slurm's cancel (SIGTERM, KillWait, SIGKILL); SIGKILL from us if it is still there.
          again([jobId], 0);
          again(["--full", "--signal=KILL", jobId], CANCEL_GRACE_SECS);
        }
        // Slurm never reporting the end must not hang the suite.
        timers.push(setTimeout(() => finish(null), (s.stopGraceSecs + 60) * 1000));
      };
      const onAbort = () => stop("cancel");
      const finish = (job: JobRecord | null) => {
        clearTimeout(limitTimer);
        for (const t of timers) clearTimeout(t);
        signal?.removeEventListener("abort", onAbort);
        this.tracker.unwatch(jobId);
        done({ job, timedOutByUs, cancelledByUs });
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.tracker.watch(
        jobId,
        (job) => {
          const phase = phaseOf(job.state);
          if (phase === "running" && limitTimer === undefined && !timedOutByUs && !cancelledByUs) {
            // The agent's clock starts when the job starts, not when it was queued.
            const left = Math.max(0, spec.timeLimitSecs - job.elapsedSecs);
            limitTimer = setTimeout(() => stop("timeout"), left * 1000);
          }
          // Never leave a job we stopped following running on the cluster.
          if (job.state === "LOST") void this.runner.run("scancel", [jobId]);
          if (phase === "ended") finish(job);
        },
        name,
      );
      if (signal?.aborted) onAbort();
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.cancelAll();
    await unlink(this.settings.token).catch(() => {});
  }
}

/** Checks the cluster and the shared folder, sweeps a crashed suite's jobs, and opens the backend. */
export async function openSlurm(ctx: SuiteContext, opts: SlurmOpenOptions = {}): Promise<SlurmExecutor> {
  const runner = opts.runner ?? spawnRunner();
  const settings = slurmSettings(
    ctx.config,
    ctx.agent,
    ctx.baseDir,
    opts.owner ?? `${os.hostname()}:${process.pid}`,
    ctx.suiteId,
  );
  const { sharedDir } = settings;
  let isDir = false;
  try {
    isDir = lstatSync(realpathSync(sharedDir)).isDirectory();
  } catch {
    /* reported below */
  }
  if (!isDir) {
    throw new UserError(
      `slurm.sharedDir: ${sharedDir} is not a folder (it must be one the runner and the nodes both see)`,
    );
  }
  const dataDir = resolve(ctx.baseDir, ctx.config.dataDir);
  mkdirSync(dataDir, { recursive: true });
  if (!inside(dataDir, sharedDir)) {
    throw new UserError(
      `dataDir: ${dataDir} is not inside slurm.sharedDir (${sharedDir}); the nodes read the public data from there`,
    );
  }
  const version = await runner.run("sbatch", ["--version"]);
  if (version.code !== 0) {
    throw new UserError(
      `the slurm executor needs sbatch on this machine (a Slurm login node): ${firstLine(version.stderr) || "not found"}`,
      1,
    );
  }
  const acct = await runner.run("sacct", ["-n", "-X", "-S", "now", "-o", "JobIDRaw"]);
  if (acct.code !== 0) {
    throw new UserError(
      `the slurm executor follows jobs with sacct, which needs job accounting: ${firstLine(acct.stderr)}`,
      1,
    );
  }
  try {
    await writeFile(settings.token, `${ctx.suiteId}\n`);
  } catch (e) {
    throw new UserError(`slurm.sharedDir: cannot write to ${sharedDir}: ${(e as Error).message}`, 1);
  }
  await sweepOrphans(runner, ctx.log);
  const ex = new SlurmExecutor(settings, runner, ctx);
  ctx.log(
    `slurm: ${firstLine(version.stdout)}; up to ${settings.maxConcurrent} jobs at once; mode ${settings.mode}; shared folder ${sharedDir}`,
  );
  ctx.signal?.addEventListener("abort", () => void ex.cancelAll(), { once: true });
  return ex;
}

export const slurmBackend: ExecutorBackend = {
  name: "slurm",
  open: (ctx) => openSlurm(ctx),
};
