import { countOf } from "../util/count.js";
import type { GradeReport } from "../grade/types.js";
import type { ExecResult } from "../execute/types.js";
import type { RunResult } from "../results/schema.js";
import type { Failure } from "../execute/failure.js";
import { OUTCOME_WORDS } from "../results/outcome-words.js";

/** What happened to one run, as the suite runner reports it; one line each. */
export type RunEvent =
  | { kind: "kept"; runId: string; outcome: RunResult["outcome"]; cause?: string | null }
  | { kind: "skipped"; runId: string; why: string }
  | { kind: "started"; runId: string; gpus: string[]; why?: string }
  /** Started, then stopped because the suite was cancelled: no result, it runs again on resume. */
  | { kind: "cancelled"; runId: string }
  /** Started, then stopped because the monitor reached the verdict (seeds.inFlight: stop): no result. */
  | { kind: "stopped"; runId: string }
  | { kind: "retrying"; runId: string; attempt: number; retries: number; error: string | undefined }
  | {
      kind: "finished";
      runId: string;
      exec: ExecResult;
      report: GradeReport | null;
      failure?: Failure | null;
    };

export interface Counter {
  done: number;
  total: number;
  /** Executed to the end (whatever the outcome); a cancelled run is not counted here. */
  executed?: number;
  reused?: number;
  skipped?: number;
  /** Started, then stopped by a cancellation. */
  cancelled?: number;
  /** Never started because the suite was cancelled first. */
  notStarted?: number;
  /** Started, then stopped in flight at the monitor's verdict. */
  stopped?: number;
}

/** The suite's first line: "[head] 66 runs: 22 competitions × 3 seeds, agent: …" ("1 run", "1 seed"). */
export function startLine(
  label: string,
  runs: number,
  competitions: number,
  seeds: number,
  agent: string,
): string {
  // A shard, a stage or a paired round runs part of the suite: say of how many.
  const all = competitions * seeds;
  const count = runs === all ? countOf(runs, "run") : `${runs} of ${countOf(all, "run")}`;
  return `[${label}] ${count}: ${countOf(competitions, "competition")} × ${countOf(seeds, "seed")}, agent: ${agent}`;
}

/** The suite's last line: how many runs finished, were cancelled, reused, or left out. */
export function summaryLine(label: string, n: Counter): string {
  return (
    `[${label}] ${n.executed ?? 0} finished` +
    (n.cancelled ? `, ${n.cancelled} cancelled` : "") +
    (n.notStarted ? `, ${n.notStarted} not started (cancelled)` : "") +
    (n.stopped ? `, ${n.stopped} stopped in flight at the verdict` : "") +
    `, ${n.reused ?? 0} reused (same identity as a finished run)` +
    (n.skipped ? `, ${n.skipped} left out (--only)` : "")
  );
}

function medalText(report: GradeReport | null): string {
  if (!report) return "not graded";
  if (report.gold_medal) return "gold";
  if (report.silver_medal) return "silver";
  if (report.bronze_medal) return "bronze";
  return "no medal";
}

/** The progress line for one event (the counter is already updated for "kept" and "finished"). */
export function progressLine(label: string, n: Counter, e: RunEvent): string {
  const at = `[${label}]`;
  switch (e.kind) {
    case "kept":
      return `${at} ${n.done}/${n.total} ${e.runId}: reused, same identity as the finished run (${OUTCOME_WORDS[e.outcome]}${e.cause ? `: ${e.cause}` : ""})`;
    case "skipped":
      return `${at} ${n.done}/${n.total} ${e.runId}: left out (${e.why})`;
    case "started":
      return `${at} ${n.done + 1}/${n.total} ${e.runId}: started${e.gpus.length ? ` on GPU ${e.gpus.join(",")}` : ""}${e.why ? ` (${e.why})` : ""}`;
    case "cancelled":
      return `${at} ${e.runId}: cancelled before it finished (it runs again on the next run)`;
    case "stopped":
      return `${at} ${e.runId}: stopped in flight: the verdict was reached (no result, not used)`;
    case "retrying":
      return `${at} ${e.runId}: infrastructure error (${e.error}); retrying (${e.attempt}/${e.retries})`;
    case "finished": {
      const r = e.report;
      const score = r?.valid_submission ? `score ${r.score}` : r ? `invalid: ${r.error}` : "not graded";
      // One vocabulary: the outcome in the report's words ("timed out", not timed_out).
      const cause = e.failure ? `: ${e.failure.cause}` : "";
      const line = `${at} ${n.done}/${n.total} ${e.runId}: ${OUTCOME_WORDS[e.exec.outcome]} in ${(e.exec.durationMs / 1000).toFixed(1)}s${cause}, ${score}, ${medalText(r)}`;
      const tail = e.failure && e.exec.outcome !== "infra_error" ? e.failure.stderrTail.slice(-3) : [];
      return tail.length ? `${line}\n${at}   last stderr: ${tail.join(" ⏎ ")}` : line;
    }
  }
}

/**
 * The suite's closing line when every run it executed ended the way a command that never ran
 * ends (execute/attempt.ts's `neverRan`): instead of leaving the reader with 0/N valid. Null otherwise.
 */
export function neverRanLine(label: string, executed: RunResult[]): string | null {
  if (executed.length === 0 || !executed.every((r) => r.details?.neverRan === "true")) return null;
  return (
    `[${label}] every run (${executed.length}) ended within a second with no output and no submission; ` +
    "each run.log says what ran (with Docker, an image ENTRYPOINT that ignores the command ends runs this way: see docker.entrypoint)"
  );
}
