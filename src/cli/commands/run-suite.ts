// medalist run (a whole suite): the evaluation, then the terminal's summary or the JSON.
import { join, resolve, relative, isAbsolute } from "node:path";
import type { LoadedConfig } from "../../config/load.js";
import type { Outcome } from "../../execute/types.js";
import type { History } from "../../history/history.js";
import { runJson, terminalSummary } from "../../report/summary.js";
import { cliBaseline, resolveBaseline } from "../../session/baseline.js";
import { cancelOnSignals } from "../../session/cancel.js";
import { buildLogs, runEvaluation } from "../../session/entry.js";
import { plainSentence } from "../../report/gate.js";
import { Cancelled, openSession } from "../../session/input.js";
import { toCliJson } from "../../util/json.js";
import { terminal } from "../progress.js";

const progress = terminal.log;

export interface RunOptions {
  /** A results file to compare with; stands in for `baseline: cache` (which only the action can read). */
  baselineFile?: string;
  /** Which runs execute again (--fresh, --rerun, --only). */
  selection?: CliSelection;
  /** The default branch's history (--history FILE): the trend, and the history-informed plan. */
  history?: History;
  /** Print the comparison as JSON (--json) instead of the summary. */
  json?: boolean;
}

/** The run-selection flags as given; --only is checked against the suite's plan. */
export interface CliSelection {
  fresh: boolean;
  rerun: Outcome[];
  only: string | null;
}

/** A path as the user would type it here: relative to the working folder when inside it. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}

/** Evaluates base (when the config asks) and head, compares, writes report.md; returns the exit code. */
export async function runFromConfig(
  loaded: LoadedConfig,
  resultsDir: string,
  opts: RunOptions = {},
): Promise<number> {
  const { config, baseDir } = loaded;
  const source = cliBaseline(config, baseDir, opts.baselineFile);
  const dir = resolve(resultsDir);
  const cancel = cancelOnSignals(progress);
  try {
    const started = Date.now();
    const session = openSession(config, baseDir);
    const baseline = await resolveBaseline(source, { config });
    let ev;
    try {
      ev = await runEvaluation({
        session,
        resultsDir: dir,
        baseline,
        signal: cancel.signal,
        log: progress,
        selection: opts.selection,
        progress: terminal.options,
        history: opts.history,
      });
    } catch (e) {
      if (!(e instanceof Cancelled)) throw e;
      terminal.done();
      const w = e.written;
      if (w?.viewer) progress(`viewer:  ${join(w.viewer, "index.html")} (the runs that finished)`);
      if (w) progress(`report:  ${w.report} (the runs that finished)`);
      progress("medalist: cancelled; finished runs are kept and reused by the next run. Exit code 130.");
      return 130;
    } finally {
      terminal.done();
    }
    // report.md is on disk already; the terminal gets the summary (or the JSON), the verdict last.
    for (const log of buildLogs(ev)) progress(`build log: ${shown(log)}`);
    const code = ev.gate.fails ? 1 : 0;
    const summary = {
      head: ev.head,
      comparison: ev.comparison,
      baselineNote: ev.baselineNote,
      gateSentence: plainSentence(ev.gate),
      gate: ev.gate.fails
        ? ("failed" as const)
        : ev.gate.reason === "off"
          ? ("off" as const)
          : ("passed" as const),
      exitCode: code,
      paths: {
        report: shown(ev.paths.report),
        viewer: ev.paths.viewer ? shown(join(ev.paths.viewer, "index.html")) : null,
        results: [ev.paths.head, ev.paths.base].filter((p): p is string => Boolean(p)).map(shown),
      },
      tookSecs: (Date.now() - started) / 1000,
    };
    if (opts.json) {
      process.stdout.write(toCliJson(runJson(summary)) + "\n");
      progress(terminalSummary(summary).at(-1)!);
    } else console.log(terminalSummary(summary).join("\n"));
    return code;
  } finally {
    cancel.dispose();
  }
}
