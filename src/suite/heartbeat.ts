import { parseLogLine } from "../execute/run-log.js";
import type { Counter } from "./progress.js";

/** The steady heartbeat of long runs: elapsed / limit and the last line each agent wrote. */

export interface Running {
  runId: string;
  startedAt: number;
  limitSecs: number;
  /** The last line of the run's log, when it wrote one. */
  lastLine: string | null;
}

function clock(secs: number): string {
  const s = Math.max(0, Math.floor(secs));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (x: number) => String(x).padStart(2, "0");
  return h ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

/** "[head] 3/10 toy-churn.s0: 2:05 / 60:00 · epoch 3 loss 0.2" */
export function heartbeatLine(label: string, n: Counter, r: Running, now: number): string {
  const last = r.lastLine === null ? "no output yet" : r.lastLine;
  return `[${label}] ${n.done}/${n.total} ${r.runId}: ${clock((now - r.startedAt) / 1000)} / ${clock(r.limitSecs)} · ${last}`;
}

/** One line for a terminal's live status: the counter, then each running run, cut to `width`. */
export function statusLine(label: string, n: Counter, running: Running[], now: number, width = 120): string {
  const runs = running
    .map(
      (r) =>
        `${r.runId} ${clock((now - r.startedAt) / 1000)}/${clock(r.limitSecs)}${r.lastLine ? ` ${r.lastLine}` : ""}`,
    )
    .join(" | ");
  const line = `[${label}] ${n.done}/${n.total} done${runs ? ` · ${runs}` : ""}`;
  return line.length > width ? `${line.slice(0, Math.max(0, width - 1))}…` : line;
}

/** The tail reader of run.log (callers outside suite/ read it from here too). */

/** The last non-empty line of a log tail, without run.log's timestamp, control characters or ANSI codes. */
export function lastLineOf(tail: string, max = 100): string | null {
  const lines = tail.split(/\r?\n|\r/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const clean = parseLogLine(lines[i])
      .text // eslint-disable-next-line no-control-regex
      .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "")
      // eslint-disable-next-line no-control-regex
      .replace(/[\x00-\x1f\x7f]/g, " ")
      .trim();
    if (clean) return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
  }
  return null;
}
