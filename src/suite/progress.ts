import type { GradeReport } from "../grade/types.js";
import type { ExecResult } from "../execute/types.js";
import type { RunResult } from "../results/schema.js";

/** What happened to one run, as the suite runner reports it; one line each. */
export type RunEvent =
  | { kind: "kept"; runId: string; outcome: RunResult["outcome"] }
  | { kind: "started"; runId: string; gpus: string[] }
  | { kind: "retrying"; runId: string; attempt: number; retries: number; error: string | undefined }
  | { kind: "finished"; runId: string; exec: ExecResult; report: GradeReport | null };

export interface Counter {
  done: number;
  total: number;
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
      return `${at} ${n.done}/${n.total} ${e.runId}: kept from an earlier run (${e.outcome})`;
    case "started":
      return `${at} ${n.done + 1}/${n.total} ${e.runId}: started${e.gpus.length ? ` on GPU ${e.gpus.join(",")}` : ""}`;
    case "retrying":
      return `${at} ${e.runId}: infrastructure error (${e.error}); retrying (${e.attempt}/${e.retries})`;
    case "finished": {
      const r = e.report;
      const score = r?.valid_submission ? `score ${r.score}` : r ? `invalid: ${r.error}` : e.exec.error;
      return `${at} ${n.done}/${n.total} ${e.runId}: ${e.exec.outcome} in ${(e.exec.durationMs / 1000).toFixed(1)}s, ${score}, ${medalText(r)}`;
    }
  }
}
