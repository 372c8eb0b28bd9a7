import type { ExitFacts } from "../attempt.js";
import type { Outcome } from "../types.js";
import { NO_SHARED_DIR_EXIT } from "./job.js";

/** sacct's fields, in this order, parsed by `parseSacct`. */
export const SACCT_FIELDS = [
  "JobIDRaw",
  "State",
  "ExitCode",
  "ElapsedRaw",
  "NodeList",
  "MaxRSS",
  "JobName",
] as const;

/** sacct's arguments for one poll of every job of the suite (steps included, for their peak memory). */
export function sacctArgs(jobIds: string[]): string[] {
  return ["-n", "-P", "--noconvert", "-o", SACCT_FIELDS.join(","), "-j", jobIds.join(",")];
}

/** One job as sacct reports it. */
export interface JobRecord {
  jobId: string;
  /** First word of State: "CANCELLED by 0" → "CANCELLED". */
  state: string;
  exitCode: number | null;
  signal: number | null;
  elapsedSecs: number;
  nodeList: string;
  /** The job's name (a reused job id of an older job has another name). */
  name: string;
  /** Highest MaxRSS of the job's steps, bytes; null when none reported. */
  maxRssBytes: number | null;
  /** Who cancelled it: the uid in "CANCELLED by 0". */
  cancelledBy?: string;
}

const UNITS: Record<string, number> = { "": 1, K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40 };

/** "434749440", "424560K", "1.5G" → bytes; null when empty or unreadable. */
export function parseSize(v: string): number | null {
  const m = /^(\d+(?:\.\d+)?)([KMGT]?)$/i.exec(v.trim());
  return m ? Math.round(Number(m[1]) * UNITS[m[2].toUpperCase()]) : null;
}

/** `sacct -P` output → the jobs (allocation lines), with their steps' peak memory folded in. */
export function parseSacct(text: string): Map<string, JobRecord> {
  const jobs = new Map<string, JobRecord>();
  const rss = new Map<string, number>();
  for (const line of text.split("\n")) {
    const f = line.split("|");
    if (f.length < SACCT_FIELDS.length) continue;
    const [rawId, state, exit, elapsed, nodeList, maxRss] = f;
    const name = f.slice(6).join("|").trim();
    const id = rawId.trim();
    const base = id.split(".")[0];
    if (!/^\d+(_\d+)?$/.test(base)) continue;
    const size = parseSize(maxRss);
    if (size !== null) rss.set(base, Math.max(rss.get(base) ?? 0, size));
    if (id !== base) continue;
    const ec = /^(\d+):(\d+)$/.exec(exit.trim());
    const by = /^CANCELLED by (\d+)$/.exec(state.trim());
    jobs.set(id, {
      jobId: id,
      state: state.trim().split(/\s+/)[0] ?? "",
      exitCode: ec ? Number(ec[1]) : null,
      signal: ec ? Number(ec[2]) : null,
      elapsedSecs: Number(elapsed) || 0,
      nodeList: nodeList.trim(),
      name,
      maxRssBytes: null,
      ...(by ? { cancelledBy: by[1] } : {}),
    });
  }
  for (const [id, job] of jobs) job.maxRssBytes = rss.get(id) ?? null;
  return jobs;
}

/** `sbatch --parsable` prints "<id>" or "<id>;<cluster>". */
export function parseJobId(stdout: string): string | null {
  const m = /^(\d+)(?:;\S+)?\s*$/.exec(stdout.trim());
  return m ? m[1] : null;
}

const WAITING = new Set(["PENDING", "REQUEUED", "RESIZING", "SUSPENDED", "REQUEUE_HOLD", "REQUEUE_FED"]);
const ACTIVE = new Set(["RUNNING", "COMPLETING", "CONFIGURING", "STAGE_OUT", "SIGNALING", "STOPPED"]);

export type Phase = "waiting" | "running" | "ended";

export function phaseOf(state: string): Phase {
  if (WAITING.has(state)) return "waiting";
  if (ACTIVE.has(state)) return "running";
  return "ended";
}

/** Facts the job script wrote on the node before the agent started (key=value lines). */
export type NodeFacts = Record<string, string>;

export function parseFacts(text: string): NodeFacts {
  const out: NodeFacts = {};
  for (const line of text.split("\n").slice(0, 50)) {
    const m = /^([a-z_]{1,40})=(.{0,200})$/.exec(line.trim());
    if (m) out[m[1]] = m[2].trim();
  }
  return out;
}

export interface Classified {
  outcome: Outcome;
  exitCode: number | null;
  error?: string;
  retryable?: boolean;
}

/** A job Medalist stopped (time limit, quota, cancel) is worded by execute/attempt.ts, not here. */
export interface ClassifyContext {
  /** The run's time limit, for messages. */
  timeLimitSecs: number;
  /** The memory Slurm was asked for (--mem), bytes. */
  memoryBytes?: number;
  /** Node facts, null when the job script never wrote them. */
  facts: NodeFacts | null;
}

const mib = (b: number) => `${Math.round(b / 2 ** 20)} MiB`;

/** Maps an ended job to Medalist's outcome (pure). */
export function classify(job: JobRecord, ctx: ClassifyContext): Classified {
  const { state } = job;
  const code = job.signal ? null : job.exitCode;
  const where = job.nodeList && job.nodeList !== "None assigned" ? ` on ${job.nodeList}` : "";
  if (state === "TIMEOUT") {
    return {
      outcome: "timed_out",
      exitCode: code,
      error: `Slurm stopped the job at its time limit (the run's ${ctx.timeLimitSecs}s plus grace)`,
    };
  }
  if (state === "COMPLETED") return { outcome: "completed", exitCode: 0 };
  if (state === "OUT_OF_MEMORY") {
    return { outcome: "oom", exitCode: code, error: `Slurm reported the job out of memory${where}` };
  }
  if (ctx.facts?.container_oom === "true") {
    return { outcome: "oom", exitCode: code, error: `the agent's container ran out of memory${where}` };
  }
  if (state === "FAILED") {
    if (job.exitCode === NO_SHARED_DIR_EXIT && ctx.facts === null) {
      return {
        outcome: "infra_error",
        exitCode: code,
        error: `the node${where} does not see the shared folder (slurm.sharedDir)`,
        retryable: false,
      };
    }
    // Slurm's memory enforcement by accounting (no cgroups) kills with SIGKILL and says FAILED.
    if (
      job.signal === 9 &&
      ctx.memoryBytes !== undefined &&
      job.maxRssBytes !== null &&
      job.maxRssBytes >= ctx.memoryBytes
    ) {
      return {
        outcome: "oom",
        exitCode: null,
        error: `killed by Slurm at ${mib(job.maxRssBytes)} peak memory, over the ${mib(ctx.memoryBytes)} limit`,
      };
    }
    return {
      outcome: "failed",
      exitCode: code,
      error: job.signal ? `agent killed by signal ${job.signal}` : `agent exited with code ${job.exitCode}`,
    };
  }
  if (state === "NODE_FAIL" || state === "BOOT_FAIL" || state === "PREEMPTED") {
    return {
      outcome: "infra_error",
      exitCode: code,
      error: `Slurm ended the job: ${state}${where}`,
      retryable: true,
    };
  }
  // Medalist's own cancels are worded by execute/attempt.ts: this one came from outside (a user, an
  // administrator, a cleanup script). The job is gone, not the agent's doing: retried like a lost node.
  if (state === "CANCELLED") {
    const by = job.cancelledBy !== undefined ? ` by uid ${job.cancelledBy}` : "";
    return {
      outcome: "infra_error",
      exitCode: code,
      error: `the job was cancelled outside Medalist (scancel${by}, a user or an administrator)${where}`,
      retryable: true,
    };
  }
  if (state === "LOST") {
    return {
      outcome: "infra_error",
      exitCode: null,
      error: "sacct stopped reporting the job (accounting down?); Medalist cancelled it",
      retryable: true,
    };
  }
  return {
    outcome: "infra_error",
    exitCode: code,
    error: `Slurm ended the job: ${state}${where}`,
    retryable: false,
  };
}

/** An ended job's classification as the attempt wrapper's exit facts. */
export function exitFacts(c: Classified, job: JobRecord): ExitFacts {
  const signal = job.signal ? `signal ${job.signal}` : null;
  switch (c.outcome) {
    case "completed":
      return { code: 0 };
    case "oom":
      return { code: c.exitCode, oom: c.error ?? "out of memory" };
    case "timed_out":
      return { code: c.exitCode, timedOut: c.error ?? "Slurm stopped the job" };
    case "infra_error":
      return {
        code: c.exitCode,
        infra: { error: c.error ?? "Slurm ended the job", retryable: !!c.retryable },
      };
    default:
      return { code: c.exitCode, signal };
  }
}
