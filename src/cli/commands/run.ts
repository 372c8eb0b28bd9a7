import { mkdirSync } from "node:fs";
import { join, resolve, dirname } from "node:path";
import { loadConfig, type LoadedConfig } from "../../config/load.js";
import {
  Cancelled,
  evaluate,
  fileBaseline,
  gateFails,
  openSession,
  runSides,
  type BaselineInput,
} from "../../session/evaluate.js";
import { parseShard } from "../../plan/shards.js";
import { readPlanFile, shardOf } from "../../session/shards.js";
import { parseCommandArgs, requireOption, UserError, type Command } from "../command.js";
import { defaultRegistryDir } from "../../registry/registry.js";

/** Aborts on the first SIGINT/SIGTERM; finished runs stay on disk. */
function cancelOnSignals(log: (s: string) => void): { signal: AbortSignal; dispose: () => void } {
  const ac = new AbortController();
  const onSignal = (sig: string) => {
    if (ac.signal.aborted) return;
    log(`medalist: ${sig} received: stopping runs; finished runs are kept`);
    ac.abort();
  };
  const onInt = () => onSignal("SIGINT");
  const onTerm = () => onSignal("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  return { signal: ac.signal, dispose: () => (process.off("SIGINT", onInt), process.off("SIGTERM", onTerm)) };
}

const progress = (line: string) => console.error(line);

/** Evaluates base (when the config asks) and head, compares, writes report.md; returns the exit code. */
export async function runFromConfig(loaded: LoadedConfig, outDir: string): Promise<number> {
  const { config, baseDir } = loaded;
  const out = resolve(outDir);
  mkdirSync(out, { recursive: true });
  const b = config.baseline;
  if (b.source === "cache") {
    throw new UserError(
      'baseline.source: "cache" works in the GitHub Action only; on the command line use "file" or "run"',
    );
  }
  const { signal, dispose } = cancelOnSignals(progress);
  try {
    const started = Date.now();
    const session = openSession(config, baseDir);
    const baseline: BaselineInput =
      b.source === "run"
        ? {
            kind: "run",
            agent: b.agent ?? config.agent,
            description: "evaluated in this job (baseline agent)",
          }
        : b.source === "file"
          ? fileBaseline(resolve(baseDir, b.path), b.path)
          : { kind: "none" };
    let ev;
    try {
      ev = await evaluate({ session, resultsDir: out, baseline, signal, log: progress });
    } catch (e) {
      if (e instanceof Cancelled) return 130;
      throw e;
    }
    console.log(ev.render());
    progress(`results: ${[ev.paths.head, ev.paths.base].filter(Boolean).join(", ")}`);
    progress(`report:  ${ev.paths.report}\ntook ${((Date.now() - started) / 1000).toFixed(1)}s`);
    if (gateFails(ev.comparison, config.gate.failOn, ev)) {
      progress(
        ev.comparison?.verdict === "regressed"
          ? "medalist: the agent regressed (see the report); exit code 1"
          : "medalist: runs are missing, so the gate does not pass (see the report); exit code 1",
      );
      return 1;
    }
    return 0;
  } finally {
    dispose();
  }
}

/** Runs one shard of each side that runs; writes the shard results, no comparison (merge does). */
export async function runShardFromConfig(
  loaded: LoadedConfig,
  outDir: string,
  shardText: string,
  planPath?: string,
): Promise<number> {
  const { config, baseDir } = loaded;
  const which = parseShard(shardText);
  if (!which)
    throw new UserError(`--shard expects i/N with 1 ≤ i ≤ N ≤ 256, got ${JSON.stringify(shardText)}`);
  const b = config.baseline;
  const session = openSession(config, baseDir);
  const shard = shardOf(session, which.index, which.count, planPath ? readPlanFile(planPath) : undefined);
  const out = resolve(outDir);
  mkdirSync(out, { recursive: true });
  const { signal, dispose } = cancelOnSignals(progress);
  try {
    const baseline: BaselineInput =
      b.source === "run"
        ? {
            kind: "run",
            agent: b.agent ?? config.agent,
            description: "evaluated in this job (baseline agent)",
          }
        : { kind: "none" };
    progress(`shard ${shard.index}/${shard.count}: ${shard.runIds.length} runs`);
    try {
      await runSides({ session, resultsDir: out, baseline, shard, signal, log: progress });
    } catch (e) {
      if (e instanceof Cancelled) return 130;
      throw e;
    }
    progress(
      `shard results: ${[b.source === "run" ? join(out, "base", "results.json") : null, join(out, "head", "results.json")].filter(Boolean).join(", ")}`,
    );
    return 0;
  } finally {
    dispose();
  }
}

export const runCommand: Command = {
  name: "run",
  summary: "Run a suite from a config file, compare with the baseline, write results and report",
  usage: `Usage: medalist run --config FILE [--out DIR]

Runs every (competition, seed) of the suite with the configured agent and executor, grades each
submission, and writes DIR/head/results.json (and DIR/base/results.json when baseline.source is
"run"), DIR/report.md and DIR/comparison.json. Progress goes to stderr, the report to stdout.
Interrupted suites resume: finished runs are kept and skipped on the next run.

With --shard i/N, runs only shard i of N (see \`medalist plan\`) and writes that shard's results
(DIR/head/results.json, and DIR/base/results.json when the baseline is run); \`medalist merge\`
combines the shards and \`medalist compare\` compares them.

Options:
  --config FILE   medalist.yml or .json (required)
  --out DIR       output folder (default: .medalist/out)
  --shard i/N     run one shard of N
  --plan FILE     the plan from \`medalist plan --json\` (default: plan the shards here, by time limit)

Exit codes: 0 ok, 1 regressed (gate.failOn: regression) or failure, 2 bad input, 130 cancelled.`,
  async run(argv) {
    const { values } = parseCommandArgs(argv, {
      config: { type: "string" },
      out: { type: "string" },
      shard: { type: "string" },
      plan: { type: "string" },
    });
    const loaded = loadConfig(requireOption(values.config, "--config"));
    if (values.shard !== undefined)
      return runShardFromConfig(loaded, values.out ?? ".medalist/out", values.shard, values.plan);
    if (values.plan !== undefined) throw new UserError("--plan goes with --shard i/N");
    return runFromConfig(loaded, values.out ?? ".medalist/out");
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
