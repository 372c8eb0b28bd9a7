// The workflows the doors run, each written once: the whole evaluation in one job, one shard of a
// sharded suite, and the report over every shard's results. The doors (src/cli/commands/,
// src/action/main.ts, src/action/steps/) read their inputs, call one of these, and write outputs.
// The staged workflow's entry points are in staged.ts.
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { History } from "../history/history.js";
import type { SuiteResults } from "../results/schema.js";
import { evaluate, type Evaluation } from "./evaluate.js";
import type { BaselineInput, EvaluateInput } from "./input.js";
import { mergeShards } from "./merge.js";
import { refuseStagesWithRunBaseline, stopsEarly } from "./rules.js";
import { runShard, type ShardRunInput } from "./shards.js";

/** Whether the door runs on a pull request: undefined where there is no event (the CLI). */
type Pr = { pr?: boolean };

/**
 * The whole evaluation in this job (the action's main step, `medalist run`): the baseline (given,
 * or run first), the head, the comparison, the gate and the report, all on disk when it returns.
 * With adaptive seeds the head stops once the verdict is reached, in the action only on a pull
 * request: the default branch's results become later baselines and are never cut short.
 */
export function runEvaluation(input: Omit<EvaluateInput, "monitor" | "stages"> & Pr): Promise<Evaluation> {
  const { pr, ...rest } = input;
  mkdirSync(resolve(rest.resultsDir), { recursive: true });
  return evaluate({ ...rest, monitor: stopsEarly(rest.session.config, pr) });
}

export interface ShardJobInput extends Omit<ShardRunInput, "baseline" | "storeDir" | "untrustedRecords"> {
  /** The baseline's source as configured: stages refuse `run`. */
  baselineSource?: string;
  /** How the door names its stage input and baseline settings in the stage rule's sentence. */
  stageField: string;
  door: "action" | "cli";
  /** The baseline (only a run baseline matters in a shard job), resolved after the rules hold. */
  baseline: () => Promise<BaselineInput>;
  /** After the baseline: where finished runs persist, and why the results folder's records are not reused. */
  store?: () => { storeDir?: string | null; untrustedRecords?: string | null };
  /** Wraps the shard's run (the action's log group). */
  around?: <T>(run: () => Promise<T>) => Promise<T>;
}

/** One shard of each side that runs (`medalist run --shard`, the run sub-action): results on disk, no comparison. */
export async function runShardJob(input: ShardJobInput) {
  const { baselineSource, stageField, door, store, around, ...rest } = input;
  refuseStagesWithRunBaseline(input.stage, baselineSource, stageField, door);
  mkdirSync(resolve(rest.resultsDir), { recursive: true });
  const baseline = await input.baseline();
  const run = { ...rest, baseline, ...store?.() };
  return around ? around(() => runShard(run)) : runShard(run);
}

export interface ShardsReportInput extends Omit<EvaluateInput, "head" | "baseline" | "history" | "stages"> {
  /** Each shard's head results, and its base results when the base ran in the shard jobs. */
  heads: SuiteResults[];
  bases: SuiteResults[] | null;
  /** The plan's shard count: shards without results are recorded as not run. */
  expectShards?: number;
  /** A warning line (the action's warnings). */
  warn: (line: string) => void;
  /** The baseline, given the base's merged results when it ran in the shard jobs. */
  baseline: (ranInShards?: SuiteResults) => Promise<BaselineInput>;
  /** The default branch's history, read after the baseline. */
  history: () => Promise<History>;
}

/** The report over every shard: the shards merged, compared once, the report on disk. */
export async function reportShards(input: ShardsReportInput): Promise<{ ev: Evaluation; history: History }> {
  const { heads, bases, expectShards, warn, baseline: resolveBase, history: readHistory, ...rest } = input;
  const head = mergeShards(heads, { expectShards });
  if (head.missing.length)
    warn(
      `medalist: ${head.missing.length} run(s) never ran: ${head.results.runs.find((r) => r.details.notRun)?.error}`,
    );
  const baseline = await resolveBase(bases ? mergeShards(bases, { expectShards }).results : undefined);
  const history = await readHistory();
  const ev = await evaluate({ ...rest, baseline, head: head.results, history });
  return { ev, history };
}

/** The build logs of the sides whose setup failed (suite/run.ts records them with the runs). */
export function buildLogs(ev: Pick<Evaluation, "head" | "base" | "paths">): string[] {
  const sides = [
    [ev.base, ev.paths.base],
    [ev.head, ev.paths.head],
  ] as const;
  return sides.flatMap(([side, file]) => {
    const name = side?.runs.find((r) => r.details.setup === "failed")?.details.buildLog;
    return side && file && name ? [join(dirname(file), name)] : [];
  });
}
