import { parseLogLine } from "./run-log.js";
import type { ExecResult } from "./types.js";

/** Why a run did not complete, in words a user can act on; the same for every executor. */
export interface Failure {
  /** One line: "/bin/sh: pythn3: not found (exit 127)". */
  cause: string;
  exitCode: number | null;
  /** The signal that ended the agent, when the executor knows it. */
  signal: string | null;
  /** The last lines the agent wrote to stderr (or to its output, when the log does not tell them apart). */
  stderrTail: string[];
}

const TAIL_LINES = 5;
const MAX_LINE = 300;

/**
 * The agent's stderr lines from the tail of run.log (format: execute/run-log.ts). A line without
 * the format's stamp (a run.log written before every executor used it) counts unless it is
 * Medalist's own "[medalist]" line.
 */
export function stderrLines(log: string): string[] {
  const out: string[] = [];
  for (const raw of log.split("\n")) {
    if (raw.trim() === "") continue;
    const l = parseLogLine(raw);
    if (l.stream === "stderr" || (l.stream === "" && !l.text.startsWith("[medalist]"))) out.push(l.text);
  }
  // Terminal control sequences make a cause unreadable in a comment.
  // eslint-disable-next-line no-control-regex
  return out.map((l) => clip(l.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "").replace(/[\x00-\x08\x0b-\x1f]/g, "")));
}

function clip(s: string): string {
  return s.length > MAX_LINE ? `${s.slice(0, MAX_LINE - 1)}…` : s;
}

/** A line that names an error itself: "Error: …", "ValueError: …", "fatal: …", "panic: …". */
const ERROR_LINE =
  /^(?:Uncaught\s+)?(?:[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)|Error|error|ERROR|fatal|FATAL|panic)(?:\s*\[[^\]]*\])?:\s/;

/**
 * The line that names the error: the last line that says "SomethingError: …" (Node's and Python's
 * error lines, with the stack and the error object's fields after them), else the last one that
 * is not a stack frame, a runtime banner or punctuation (an object's closing "}").
 */
export function causeLine(lines: string[]): string | null {
  for (let i = lines.length - 1; i >= 0; i--) if (ERROR_LINE.test(lines[i].trim())) return lines[i].trim();
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i].trim();
    if (l === "" || /^at\s/.test(l) || /^Node\.js v\d/.test(l) || /^[\^~\s]+$/.test(l)) continue;
    if (/^[\][{}(),;\s]+$/.test(l)) continue;
    if (/^(Traceback|File ")/.test(l)) continue;
    return l;
  }
  return null;
}

/**
 * The cause of a run that ended within a second with no output and no submission (execute/attempt.ts
 * marks it `neverRan`): what is known, and where to look; never a guess that its command did not run.
 */
export function neverRanCause(durationMs: number, exit: string | null): string {
  return (
    `the agent wrote no output and no submission and exited${exit ? ` (${exit})` : ""} in ${(durationMs / 1000).toFixed(1)} s; ` +
    "run.log says what ran (with Docker, an image ENTRYPOINT that ignores the command, start.sh for an MLE-bench agent, ends runs this way)"
  );
}

/**
 * The failure record of a run that did not complete, from how it ended and its run.log; null
 * for a completed run.
 */
export function describeFailure(exec: ExecResult, logText: string): Failure | null {
  const signal = exec.signal ?? null;
  const code = exec.exitCode;
  const exit = signal ? `killed by ${signal}` : code !== null ? `exit ${code}` : null;
  if (exec.details?.neverRan === "true")
    return { cause: neverRanCause(exec.durationMs, exit), exitCode: code, signal, stderrTail: [] };
  if (exec.outcome === "completed") return null;
  const stderr = stderrLines(logText);
  const stderrTail = stderr.slice(-TAIL_LINES);
  const line = causeLine(stderr);
  let cause: string;
  // A limit stopped the run (a quota, pids, a sized folder): its sentence, not the agent's last words.
  const limited = (exec.details?.limit !== undefined || exec.details?.quota !== undefined) && exec.error;
  if (limited && exec.outcome === "failed")
    return { cause: clip(`${exec.error}${exit ? ` (${exit})` : ""}`), exitCode: code, signal, stderrTail };
  switch (exec.outcome) {
    case "timed_out":
      cause = exec.error ?? "stopped at the time limit";
      break;
    case "oom":
      cause = `${exec.error ?? "out of memory"}${exit ? ` (${exit})` : ""}`;
      break;
    case "infra_error":
      cause = `infrastructure: ${exec.error ?? "unknown error"}`;
      break;
    default:
      cause = line
        ? `${line}${exit ? ` (${exit})` : ""}`
        : (code === 127 || code === 126) && exec.error
          ? `${exec.error} (exit ${code})`
          : code === 127
            ? `command not found (exit 127)`
            : code === 126
              ? `command not executable (exit 126)`
              : signal
                ? `the agent was killed by ${signal}`
                : code !== null
                  ? `the agent exited with code ${code} and wrote nothing to stderr`
                  : (exec.error ?? "the agent failed");
  }
  return { cause: clip(cause), exitCode: code, signal, stderrTail };
}
