import { mkdirSync } from "node:fs";
import { join, resolve, dirname, relative, isAbsolute } from "node:path";
import { loadConfig, type LoadedConfig } from "../../config/load.js";
import { Cancelled, evaluate, openSession } from "../../session/evaluate.js";
import { resolveBaseline, type BaselineSource } from "../../session/baseline.js";
import { readHistoryFile } from "../../session/plan-cost.js";
import type { History } from "../../history/history.js";
import { cancelOnSignals } from "../../session/cancel.js";
import { plainSentence } from "../../report/gate.js";
import { parseShardText, readPlanFile, runShard } from "../../session/shards.js";
import { runJson, terminalSummary } from "../../report/summary.js";
import { toCliJson } from "../../util/json.js";
import { parseCommandArgs, requireOption, stageOption, UserError, type Command } from "../command.js";
import { defaultRegistryDir } from "../../registry/registry.js";
import type { Config } from "../../config/schema.js";
import type { SuiteResults } from "../../results/schema.js";
import type { Outcome } from "../../execute/types.js";
import { parseRerun } from "../../suite/reuse.js";
import { defaultResultsDir } from "../../config/results-dir.js";

/**
 * Progress on stderr. On a terminal the heartbeat is one live status line, redrawn in place every
 * 2 s and cleared before any other line; elsewhere every heartbeat is a plain line (once a minute).
 */
function progressOutput(stream: NodeJS.WriteStream = process.stderr) {
  const tty = stream.isTTY === true;
  let shown = false;
  const clear = () => {
    if (shown) stream.write("\r\x1b[K");
    shown = false;
  };
  return {
    log: (line: string) => {
      clear();
      console.error(line);
    },
    options: tty
      ? {
          heartbeatSecs: 2,
          statusWidth: Math.max(40, (stream.columns ?? 120) - 1),
          status: (line: string) => {
            clear();
            stream.write(line);
            shown = true;
          },
        }
      : {},
    done: clear,
  };
}

const terminal = progressOutput();
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

/** The baseline on the command line: the config's, with --baseline FILE standing in for the cache. */
function cliBaseline(config: Config, baseDir: string, baselineFile?: string): BaselineSource {
  if (baselineFile) return { source: "file", path: resolve(baselineFile), shown: baselineFile };
  const b = config.baseline ?? { source: "none" as const };
  if (b.source === "cache") {
    throw new UserError(
      'baseline.source: "cache" is the GitHub Actions cache, which the command line cannot read. ' +
        "To reproduce the CI run, download the baseline's results.json (the report artifact of the default-branch run) " +
        "and pass it: medalist run --config FILE --baseline results.json",
    );
  }
  return b.source === "file" ? { source: "file", path: resolve(baseDir, b.path), shown: b.path } : b;
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
  mkdirSync(dir, { recursive: true });
  const cancel = cancelOnSignals(progress);
  try {
    const started = Date.now();
    const session = openSession(config, baseDir);
    const baseline = await resolveBaseline(source, { config });
    let ev;
    try {
      ev = await evaluate({
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

/** The build logs of the sides whose setup failed (suite/run.ts records them with the runs). */
function buildLogs(ev: {
  head: SuiteResults;
  base: SuiteResults | null;
  paths: { head: string; base: string | null };
}) {
  const sides = [
    [ev.base, ev.paths.base],
    [ev.head, ev.paths.head],
  ] as const;
  return sides.flatMap(([side, file]) => {
    const name = side?.runs.find((r) => r.details.setup === "failed")?.details.buildLog;
    return side && file && name ? [join(dirname(file), name)] : [];
  });
}

/** Runs one shard of each side that runs; writes the shard results, no comparison (merge does). */
export async function runShardFromConfig(
  loaded: LoadedConfig,
  resultsDir: string,
  shardText: string,
  planPath?: string,
  opts: RunOptions = {},
  stage?: number,
): Promise<number> {
  const { config, baseDir } = loaded;
  const which = parseShardText(shardText, "--shard");
  if (stage !== undefined && !planPath)
    throw new UserError("--stage needs --plan FILE (the plan from medalist plan --stages K --json)");
  if (stage !== undefined && config.baseline?.source === "run")
    throw new UserError(
      "--stage: stages need a baseline from a file (medalist decide --baseline FILE); with baseline.source: run the base would be cut short too",
    );
  const session = openSession(config, baseDir);
  const planFile = planPath ? readPlanFile(planPath) : undefined;
  const dir = resolve(resultsDir);
  mkdirSync(dir, { recursive: true });
  const cancel = cancelOnSignals(progress);
  try {
    const baseline = await resolveBaseline(config.baseline ?? { source: "none" }, { config, shard: true });
    const paths = await runShard({
      session,
      resultsDir: dir,
      baseline,
      which,
      planFile,
      stage,
      signal: cancel.signal,
      log: progress,
      selection: opts.selection,
    });
    progress(`shard results: ${[paths.base, paths.head].filter(Boolean).join(", ")}`);
    if (!paths.setupFailed) return 0;
    progress(`medalist: ${paths.setupFailed} Exit code 1.`);
    return 1;
  } catch (e) {
    if (e instanceof Cancelled) return 130;
    throw e;
  } finally {
    cancel.dispose();
  }
}

/** The config with --data-dir (relative to the working folder) in place of its dataDir. */
function withDataDir(loaded: LoadedConfig, dataDir: string | undefined): LoadedConfig {
  if (dataDir === undefined) return loaded;
  if (dataDir === "") throw new UserError("--data-dir is empty (see --help)");
  return { ...loaded, config: { ...loaded.config, dataDir: resolve(dataDir) } };
}

export const runCommand: Command = {
  name: "run",
  summary: "Run a suite from a config file, compare with the baseline, write results and report",
  usage: `Usage: medalist run --config FILE [--out DIR] [--baseline FILE] [--fresh] [--rerun OUTCOMES] [--only RUNS] [--json]

Runs every (competition, seed) of the suite with the configured agent and executor, grades each
submission, and writes DIR/head/results.json (and DIR/base/results.json when baseline.source is
"run"), DIR/report.md (the full comment), DIR/comparison.json and the HTML viewer DIR/viewer/index.html.
Progress goes to stderr; stdout gets a summary of at most 15 lines (the verdict, the medal rate, the
paths to open) whose last line is the verdict and the exit code.
Interrupted suites resume: finished runs are kept and skipped on the next run.

A finished run is reused only when its identity matches: the agent's image id or the content
hash of its files (agent.files), its command, env (values hashed, secrets by name), limits, the
competition's prepared data and the grader. Anything else changed: the run executes again.

With --shard i/N, runs only shard i of N (see \`medalist plan\`) and writes that shard's results
(DIR/head/results.json, and DIR/base/results.json when the baseline is run); \`medalist merge\`
combines the shards and \`medalist compare\` compares them. With --stage k as well (a plan from
\`medalist plan --stages K\`), it runs shard i of stage k, and \`medalist decide\` says after each
stage whether the next one is needed (docs/statistics.md, "Staged sharded suites").

Options:
  --config FILE        medalist.yml or .json (required)
  --out DIR            output folder (default: .medalist/NAME, NAME the config's name as a folder name)
  --baseline FILE      compare with this results.json (stands in for baseline.source: cache)
  --fresh              execute every selected run again, reusing none
  --rerun OUTCOMES     also execute again finished runs with these outcomes, e.g. failed,timed_out,infra_error
                       (outcomes: completed, failed, timed_out, oom, infra_error)
  --only RUNS          execute only these: COMPETITION or COMPETITION.sSEED, comma-separated; other runs
                       are kept when finished with the same identity, else left out
  --shard i/N          run one shard of N
  --plan FILE          the plan from \`medalist plan --json\` (default: plan the shards here, by time limit)
  --stage k            with --shard and --plan: run shard i of the plan's stage k
  --data-dir DIR       prepared competition data (default: the config's dataDir), as for \`medalist prepare\`
  --json               print the comparison, the gate and the paths as JSON on stdout instead of the summary
  --history FILE       the default branch's history.json (the Actions cache's): its trend in the report,
                       and with seeds { adaptive: true } the history-informed plan (docs/statistics.md)

Exit codes: 0 ok, 1 regressed (gate.failOn: regression) or failure, 2 bad input, 130 cancelled.`,
  async run(argv) {
    const { values } = parseCommandArgs(argv, {
      config: { type: "string" },
      out: { type: "string" },
      baseline: { type: "string" },
      fresh: { type: "boolean" },
      rerun: { type: "string" },
      only: { type: "string" },
      shard: { type: "string" },
      plan: { type: "string" },
      stage: { type: "string" },
      "data-dir": { type: "string" },
      history: { type: "string" },
      json: { type: "boolean" },
    });
    const selection: CliSelection = {
      fresh: values.fresh ?? false,
      rerun: values.rerun !== undefined ? parseRerun(values.rerun) : [],
      only: values.only ?? null,
    };
    const loaded = withDataDir(loadConfig(requireOption(values.config, "--config")), values["data-dir"]);
    const opts: RunOptions = { baselineFile: values.baseline, selection, json: values.json ?? false };
    if (values.history !== undefined) {
      if (values.shard !== undefined)
        throw new UserError("--history goes with a whole run, not with --shard (a shard is never monitored)");
      opts.history = readHistoryFile(values.history);
    }
    // One folder per suite by default, so two configs never replace each other's results.
    const out = values.out ?? defaultResultsDir(loaded.config.name);
    const stage = values.stage === undefined ? undefined : stageOption(values.stage, "--stage");
    if (values.shard !== undefined && values.json)
      throw new UserError("--json goes with a whole run, not with --shard (merge and compare the shards)");
    if (values.shard !== undefined)
      return runShardFromConfig(loaded, out, values.shard, values.plan, opts, stage);
    if (values.plan !== undefined) throw new UserError("--plan goes with --shard i/N");
    if (stage !== undefined) throw new UserError("--stage goes with --shard i/N and --plan FILE");
    return runFromConfig(loaded, out, opts);
  },
};

export const demoCommand: Command = {
  name: "demo",
  summary: "The embedded default: weak example agent (base) vs better one (head) on the toy suite",
  usage: `Usage: medalist demo [--out DIR]

Evaluates examples/agents/weak (as base) and examples/agents/strong (as head) on the bundled toy
competitions, 2 seeds each, with the local executor (no Docker, GitHub or Kaggle), prints the
comparison and writes DIR/report.md and the results JSON (default DIR: .medalist/demo).`,
  async run(argv) {
    const { values } = parseCommandArgs(argv, { out: { type: "string" } });
    const demo = join(dirname(defaultRegistryDir()), "examples", "demo.yml");
    return runFromConfig(loadConfig(demo), values.out ?? ".medalist/demo");
  },
};
