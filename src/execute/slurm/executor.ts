import { lstatSync, mkdirSync, openSync, readSync, closeSync, realpathSync, rmSync } from "node:fs";
import { writeFile, unlink } from "node:fs/promises";
import os from "node:os";
import { relative, resolve, isAbsolute } from "node:path";
import { UserError } from "../../errors.js";
import type { EnvironmentFacts, OpenBackend, SuiteContext } from "../lifecycle.js";
import type { SlurmSuiteConfig } from "./config.js";
import { type AgentHandle, type AttemptContext, type AttemptDriver, type ExitFacts } from "../attempt.js";
import { defaultAgentUser } from "../contract.js";
import type { RunSpec } from "../types.js";
import { FACTS_FILE, planJob } from "./job.js";
import { JobOutput, OUTPUT_FILES } from "./output.js";
import { spawnRunner, type CommandRunner } from "./runner.js";
import {
  classify,
  exitFacts,
  parseFacts,
  parseJobId,
  phaseOf,
  type JobRecord,
  type NodeFacts,
} from "./sacct.js";
import { slurmSettings, type SlurmSettings } from "./settings.js";
import { JobTracker } from "./tracker.js";

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

/** sbatch could not reach the controller (slurmctld restarting or down): worth waiting for. */
export const CONTROLLER_UNREACHABLE =
  /Unable to contact slurm controller|Socket timed out|Connection refused|Zero Bytes were transmitted|Communication connection failure/i;

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
export class SlurmExecutor implements OpenBackend {
  readonly name = "slurm";
  readonly resources;
  readonly perRun = { gpus: 0 };
  readonly facts: EnvironmentFacts;
  private readonly tracker: JobTracker;
  /** Jobs submitted and not yet seen ended. */
  private readonly live = new Set<string>();
  private closed = false;
  /** Since when sbatch has not reached the controller; null while it answers. */
  private unreachableSince: number | null = null;
  /** Set once the controller stayed away past run.reconnectSecs: every later attempt gets it. */
  private gone: string | null = null;

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

  /** One job per attempt; the time limit runs from when the job runs, not from when it was queued. */
  driver(): AttemptDriver {
    const s = this.settings;
    return {
      clock: "when-running",
      graceSecs: s.stopGraceSecs,
      lostAfterKillSecs: 60,
      // The run folders live on a shared file system: walk them less often.
      quotaPollMs: Math.max(1000, s.poll.minSecs * 1000),
      // docker mode runs the agent as nobody when the runner is root: its folders must be its own.
      agentUser: s.mode === "docker" ? defaultAgentUser() : "",
      start: (spec, ctx) => this.start(spec, ctx),
    };
  }

  private async start(spec: RunSpec, ctx: AttemptContext): Promise<AgentHandle | { ended: ExitFacts }> {
    const s = this.settings;
    const infra = (error: string, retryable: boolean) => ({
      ended: { code: null, infra: { error, retryable } },
    });
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
    const plan = planJob(spec, s);
    try {
      // A retried run must not read an earlier attempt's facts or output.
      for (const f of [FACTS_FILE, ...Object.values(OUTPUT_FILES)])
        rmSync(`${spec.runDir}/${f}`, { force: true });
      await writeFile(plan.scriptPath, plan.script, { mode: 0o755 });
    } catch (e) {
      return infra(`writing the job script failed: ${(e as Error).message}`, false);
    }
    const sub = await this.submit(plan.args, plan.env);
    if ("gone" in sub) return infra(sub.gone, false);
    const jobId = sub.code === 0 ? parseJobId(sub.stdout) : null;
    if (jobId === null) {
      const why = firstLine(sub.stderr) || firstLine(sub.stdout) || `exit code ${sub.code}`;
      return infra(`sbatch failed: ${why}`, !FIXED_SUBMIT_ERROR.test(why));
    }
    Object.assign(ctx.details, { slurmJobId: jobId, slurmJobName: plan.name });
    this.live.add(jobId);
    const output = new JobOutput(spec.runDir, ctx.output);
    const ended = this.follow(jobId, plan.name, ctx, output);
    const scancel = (args: string[]) =>
      void this.runner.run("scancel", args).then(() => this.tracker.nudge());
    return {
      // SIGTERM to the batch shell and every step; kill: SIGKILL to all of them, then Slurm's cancel.
      stop: () => scancel(["--full", "--signal=TERM", jobId]),
      kill: () => {
        scancel(["--full", "--signal=KILL", jobId]);
        scancel([jobId]);
      },
      wait: async () => {
        const job = await ended;
        output.finish();
        return this.endOf(job, spec, ctx.details);
      },
      release: async () => {
        this.live.delete(jobId);
        this.tracker.unwatch(jobId);
        output.finish();
      },
    };
  }

  /**
   * sbatch, waiting for a controller that does not answer (a slurmctld restart) up to
   * run.reconnectSecs from when it stopped answering; past that, the one sentence every later
   * attempt gets too.
   */
  private async submit(args: string[], env: Record<string, string>) {
    let delay = 1000;
    for (;;) {
      if (this.gone !== null) return { gone: this.gone };
      if (this.closed) return { code: 1, stdout: "", stderr: "the suite was stopped" };
      const sub = await this.runner.run("sbatch", args, { env });
      const why = firstLine(sub.stderr) || firstLine(sub.stdout);
      if (sub.code === 0 || !CONTROLLER_UNREACHABLE.test(why)) {
        this.unreachableSince = null;
        return sub;
      }
      const since = (this.unreachableSince ??= Date.now());
      const left = since + this.settings.reconnectSecs * 1000 - Date.now();
      if (left <= 0) {
        this.gone =
          `the Slurm controller did not answer for ${Math.round((Date.now() - since) / 1000)} s ` +
          `(run.reconnectSecs: ${this.settings.reconnectSecs}; last: ${why}): this run and the ones after it have no result ` +
          "(run the suite again with --rerun infra_error once it is back)";
        this.ctx.log(this.gone);
        return { gone: this.gone };
      }
      await new Promise((r) => setTimeout(r, Math.min(delay, left)));
      delay = Math.min(delay * 2, 10_000);
    }
  }

  /** Follows one job until sacct says it ended; tells the wrapper when it starts running. */
  private follow(jobId: string, name: string, ctx: AttemptContext, output: JobOutput): Promise<JobRecord> {
    return new Promise((done) => {
      this.tracker.watch(
        jobId,
        (job) => {
          const phase = phaseOf(job.state);
          if (phase === "running") ctx.running(job.elapsedSecs);
          if (phase !== "waiting") output.read();
          // Never leave a job we stopped following running on the cluster.
          if (job.state === "LOST") void this.runner.run("scancel", [jobId]);
          if (phase === "ended") {
            this.tracker.unwatch(jobId);
            done(job);
          }
        },
        name,
      );
    });
  }

  /** The job's end as exit facts, with the node's facts in the details. */
  private endOf(job: JobRecord, spec: RunSpec, details: Record<string, string>): ExitFacts {
    const facts = readFacts(spec.runDir);
    if (facts?.node) details.node = facts.node;
    if (facts?.cuda_visible_devices) details.cudaVisibleDevices = facts.cuda_visible_devices;
    if (facts?.gpu_model) {
      details.gpuModel = facts.gpu_model;
      this.facts.gpuModel ??= facts.gpu_model;
    }
    details.slurmState = job.state;
    if (job.maxRssBytes !== null) details.maxRssBytes = String(job.maxRssBytes);
    const s = this.settings;
    const c = classify(job, {
      timeLimitSecs: spec.timeLimitSecs,
      memoryBytes: s.limits.memory !== undefined ? Math.ceil(s.limits.memory / 2 ** 20) * 2 ** 20 : undefined,
      facts,
    });
    const durationMs = job.elapsedSecs > 0 ? job.elapsedSecs * 1000 : undefined;
    return { ...exitFacts(c, job), ...(durationMs !== undefined ? { durationMs } : {}) };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.cancelAll();
    await unlink(this.settings.token).catch(() => {});
  }
}

/** Checks the cluster and the shared folder, and opens the backend (the descriptor's sweep runs first). */
export async function openSlurm(ctx: SuiteContext, opts: SlurmOpenOptions = {}): Promise<SlurmExecutor> {
  const runner = opts.runner ?? spawnRunner();
  const settings = slurmSettings(
    // The schema gives every config the slurm and docker blocks (defaulted): the cast only names them.
    ctx.config as SlurmSuiteConfig,
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
  // The run folders too, before any job: otherwise every run would end infra_error.
  if (ctx.outDir !== undefined && !inside(ctx.outDir, sharedDir)) {
    throw new UserError(
      `the results folder ${ctx.outDir} is not inside slurm.sharedDir (${sharedDir}), where the nodes ` +
        "write each run's files: choose one inside it (--out, or the action's results-dir input)",
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
  const ex = new SlurmExecutor(settings, runner, ctx);
  ctx.log(
    `slurm: ${firstLine(version.stdout)}; up to ${settings.maxConcurrent} jobs at once; mode ${settings.mode}; shared folder ${sharedDir}`,
  );
  ctx.signal?.addEventListener("abort", () => void ex.cancelAll(), { once: true });
  return ex;
}
