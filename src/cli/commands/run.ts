import { resolve } from "node:path";
import { loadConfig, type LoadedConfig } from "../../config/load.js";
import { defaultResultsDir } from "../../config/results-dir.js";
import { readHistoryFile } from "../../session/plan-cost.js";
import { parseRerun } from "../../suite/reuse.js";
import { parseCommandArgs, requireOption, stageOption, UserError, type Command } from "../command.js";
import { runShardFromConfig } from "./run-shard.js";
import { runFromConfig, type CliSelection, type RunOptions } from "./run-suite.js";

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
