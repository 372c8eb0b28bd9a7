import { countOf } from "../util/count.js";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { formatZodError } from "../config/errors.js";
import { UserError } from "../errors.js";
import { plannedGpus } from "../config/parts.js";
import type { SuiteResults } from "../results/schema.js";
import {
  durationsFrom,
  expectedRuns,
  MAX_SHARDS,
  parseShard,
  shardRuns,
  shardsForTarget,
  type ShardPlan,
} from "../plan/shards.js";
import type { PlannedRun } from "../plan/plan.js";
import { MAX_STAGES, stageSeeds } from "../plan/stages.js";
import { runSides } from "./evaluate.js";
import { type EvaluateInput, type Session } from "./input.js";
import { incompleteNote } from "../report/gate.js";

export interface PlanOptions {
  shards?: number;
  /** With `targetSecs`: the fewest shards up to this many that meet the target wall time. */
  maxShards?: number;
  targetSecs?: number;
  /** Earlier results: each competition's mean duration replaces its time limit. */
  durations?: SuiteResults[];
  /** Dollars per GPU-hour, for the cost line. */
  usdPerGpuHour?: number;
  /** Stages of the staged workflow: each a block of seeds of every competition, split in as many shards. */
  stages?: number;
}

/** What `medalist plan --json` prints and `medalist run --shard i/N --plan FILE` reads. */
export const PlanFileSchema = z.object({
  version: z.literal(1),
  suite: z.object({ name: z.string(), hash: z.string() }),
  runs: z.number().int(),
  /** Sides each shard runs: 2 when the baseline is run in the same jobs. */
  sides: z.number().int().min(1).max(2),
  gpusPerRun: z.number().int().min(0),
  /** limits.gpus is "all": each run gets every GPU of its runner; gpusPerRun counts it as 1. */
  allGpus: z.boolean().optional(),
  /** "results": earlier results where known; "estimates": the registry's expected durations, else the time limit. */
  durationsFrom: z.enum(["results", "estimates"]),
  count: z.number().int().min(0).max(MAX_SHARDS),
  shards: z.array(
    z.object({ index: z.number().int(), runIds: z.array(z.string()), expectedSecs: z.number() }),
  ),
  /** For `strategy.matrix`: one entry per shard; empty only when there is nothing to run. */
  matrix: z.object({
    include: z.array(z.object({ shard: z.string(), index: z.number(), count: z.number() })),
  }),
  expected: z.object({
    totalRunSecs: z.number(),
    gpuHours: z.number(),
    wallSecs: z.object({ oneRunner: z.number(), runnerPerRun: z.number(), chosen: z.number() }),
    usdPerGpuHour: z.number().nullable(),
    usd: z.number().nullable(),
  }),
  /** The staged workflow's stages (src/plan/stages.ts): each its seeds, shards and matrix. */
  stages: z
    .array(
      z.object({
        stage: z.number().int().min(1),
        seeds: z.array(z.number().int()),
        count: z.number().int().min(0).max(MAX_SHARDS),
        shards: z.array(
          z.object({ index: z.number().int(), runIds: z.array(z.string()), expectedSecs: z.number() }),
        ),
        matrix: z.object({
          include: z.array(z.object({ shard: z.string(), index: z.number(), count: z.number() })),
        }),
      }),
    )
    .optional(),
});
export type PlanFile = z.output<typeof PlanFileSchema>;

/** Splits the session's runs into shards; see `shardRuns` for the rule. */
export function planShards(session: Session, opts: PlanOptions): PlanFile {
  const { config, plan } = session;
  const sides = config.baseline?.source === "run" ? 2 : 1;
  const durations = opts.durations?.length ? durationsFrom(opts.durations, config.limits.time) : undefined;
  const runs = expectedRuns(plan, durations).map((r) => ({ ...r, expectedSecs: r.expectedSecs * sides }));
  let sp: ShardPlan;
  if (opts.shards !== undefined) sp = shardRuns(runs, opts.shards, plan.suiteHash);
  else if (opts.maxShards !== undefined && opts.targetSecs !== undefined)
    sp = shardsForTarget(runs, opts.maxShards, opts.targetSecs, plan.suiteHash);
  else throw new UserError("plan: give --shards N, or --max-shards M with --target-wall DURATION");
  const stages =
    opts.stages === undefined ? undefined : planStages(runs, sp.count, opts.stages, config.seeds);
  const gpus = plannedGpus(config.limits.gpus);
  const gpuHours = (sp.totalSecs * gpus) / 3600;
  const usd = opts.usdPerGpuHour !== undefined ? gpuHours * opts.usdPerGpuHour : null;
  return {
    version: 1,
    suite: { name: config.name, hash: plan.suiteHash },
    runs: runs.length,
    sides,
    gpusPerRun: gpus,
    ...(config.limits.gpus === "all" ? { allGpus: true } : {}),
    durationsFrom: durations && durations.byCompetition.size > 0 ? "results" : "estimates",
    count: sp.count,
    shards: sp.shards,
    matrix: {
      include: sp.shards.map((s) => ({ shard: `${s.index}/${sp.count}`, index: s.index, count: sp.count })),
    },
    expected: {
      totalRunSecs: sp.totalSecs,
      gpuHours,
      wallSecs: { oneRunner: sp.totalSecs, runnerPerRun: sp.longestRunSecs, chosen: sp.makespanSecs },
      usdPerGpuHour: opts.usdPerGpuHour ?? null,
      usd,
    },
    ...(stages ? { stages } : {}),
  };
}

/** Each stage's runs (its block of seeds) split over `count` shards, as the whole suite is. */
function planStages(runs: PlannedRun[], count: number, stages: number, seeds: number): PlanFile["stages"] {
  if (!Number.isInteger(stages) || stages < 1 || stages > Math.min(seeds, MAX_STAGES))
    throw new UserError(
      `stages: expected a whole number from 1 to ${Math.min(seeds, MAX_STAGES)} (at most one stage per seed), got ${stages}`,
      2,
    );
  return Array.from({ length: stages }, (_, i) => {
    const seedsOf = stageSeeds(seeds, stages, i + 1);
    const sp = shardRuns(
      runs.filter((r) => seedsOf.includes(r.seed)),
      Math.max(1, count),
    );
    return {
      stage: i + 1,
      seeds: seedsOf,
      count: sp.count,
      shards: sp.shards,
      matrix: {
        include: sp.shards.map((s) => ({ shard: `${s.index}/${sp.count}`, index: s.index, count: sp.count })),
      },
    };
  });
}

const hours = (secs: number) =>
  secs >= 3600
    ? `${(secs / 3600).toFixed(1)} h`
    : secs >= 60
      ? `${Math.round(secs / 60)} min`
      : `${Math.round(secs)} s`;

/** The plan in a few lines a person reads before spending GPU-hours. */
export function describePlan(p: PlanFile): string {
  const e = p.expected;
  const lines = [
    `Suite ${p.suite.name} (${p.suite.hash}): ${countOf(p.runs, "run")}${p.sides === 2 ? ", each run on both sides (baseline: run)" : ""}; expected durations from ${p.durationsFrom === "results" ? "earlier results where known, else " : ""}each competition's estimate in the registry, else the time limit.`,
    p.gpusPerRun > 0
      ? `Expected GPU-hours: ${e.gpuHours < 10 ? e.gpuHours.toFixed(2) : e.gpuHours.toFixed(1)} (${p.gpusPerRun} GPU${p.gpusPerRun > 1 ? "s" : ""} per run${p.allGpus ? "; limits.gpus: all gives each run every GPU of its runner, so multiply by the GPUs of a runner" : ""}).`
      : `Expected runner-hours: ${(e.totalRunSecs / 3600).toFixed(1)} (runs use no GPU: limits.gpus is 0).`,
    `Expected wall time: ${hours(e.wallSecs.oneRunner)} on 1 runner, ${hours(e.wallSecs.chosen)} on ${p.count} runner${p.count === 1 ? "" : "s"} (this plan), ${hours(e.wallSecs.runnerPerRun)} with a runner per run (${p.runs}).`,
    p.gpusPerRun === 0
      ? "Expected GPU cost: none (the runs use no GPU)."
      : e.usd !== null
        ? `Expected cost: $${e.usd.toFixed(2)} at $${e.usdPerGpuHour}/GPU-hour.`
        : "Expected cost: give --usd-per-gpu-hour to see it.",
  ];
  if (p.stages)
    lines.push(
      `Stages: ${p.stages.length} (${p.stages.map((st) => `stage ${st.stage}: seed${st.seeds.length === 1 ? "" : "s"} ${st.seeds.join(", ")} of every competition on ${st.count} shard${st.count === 1 ? "" : "s"}`).join("; ")}); on a pull request with adaptive seeds, decide/ stops after the stage that reaches the verdict, so these are the most the suite costs.`,
    );
  if (p.count === 0)
    lines.push("Nothing to run: the plan has no runs, so the matrix is empty; skip the run jobs.");
  return lines.join("\n");
}

export function readPlanFile(path: string): PlanFile {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new UserError(`${path}: not a plan JSON file (${(e as Error).message})`);
  }
  const parsed = PlanFileSchema.safeParse(raw);
  if (!parsed.success) throw new UserError(formatZodError(parsed.error, path));
  return parsed.data;
}

/** The runs of shard i/N: from the plan file when given (it must be this suite's), else planned here. */
export function shardOf(
  session: Session,
  index: number,
  count: number,
  planFile?: PlanFile,
  stage?: number,
): { index: number; count: number; runIds: string[] } {
  if (stage !== undefined) {
    const st = planFile?.stages?.find((x) => x.stage === stage);
    if (!planFile || !st)
      throw new UserError(
        `stage ${stage}: give the plan sub-action's plan, planned with that many stages`,
        2,
      );
    if (planFile.suite.hash !== session.plan.suiteHash)
      throw new UserError(
        `the plan is for suite ${planFile.suite.hash} but this config is suite ${session.plan.suiteHash}: plan again`,
        2,
      );
    if (st.count !== count)
      throw new UserError(`stage ${stage} of the plan has ${st.count} shards, not ${count}`, 2);
    return { index, count, runIds: st.shards.find((s) => s.index === index)?.runIds ?? [] };
  }
  if (planFile) {
    if (planFile.suite.hash !== session.plan.suiteHash)
      throw new UserError(
        `the plan is for suite ${planFile.suite.hash} but this config is suite ${session.plan.suiteHash}: plan again`,
        2,
      );
    if (planFile.count !== count)
      throw new UserError(`the plan has ${planFile.count} shards, not ${count}`, 2);
    return { index, count, runIds: planFile.shards.find((s) => s.index === index)?.runIds ?? [] };
  }
  const p = planShards(session, { shards: count });
  return { index, count, runIds: p.shards.find((s) => s.index === index)?.runIds ?? [] };
}

/** "i/N" as `what` (`--shard`, `input "shard"`) gave it, checked against the plan's limit. */
export function parseShardText(text: string, what: string): { index: number; count: number } {
  const which = parseShard(text);
  if (!which)
    throw new UserError(
      `${what}: expected i/N with 1 ≤ i ≤ N ≤ ${MAX_SHARDS}, got ${JSON.stringify(text)}`,
      2,
    );
  return which;
}

export type ShardRunInput = Omit<EvaluateInput, "shard" | "head" | "history"> & {
  which: { index: number; count: number };
  /** The plan the shards come from (`medalist plan --json`, the plan sub-action); default: planned here. */
  planFile?: PlanFile;
  /** The staged workflow's stage (1-based): the shard is one of that stage's, from the plan. */
  stage?: number;
};

/**
 * One shard of each side that runs (the baseline only when it is run): its results on disk, no
 * comparison; the report job (or `medalist merge`) merges the shards and compares them once.
 */
export async function runShard(
  input: ShardRunInput,
): Promise<{ head: string; base: string | null; setupFailed: string | null }> {
  const { session, which } = input;
  const shard = shardOf(session, which.index, which.count, input.planFile, input.stage);
  const st = input.stage !== undefined ? `stage ${input.stage}, ` : "";
  input.log?.(`${st}shard ${shard.index}/${shard.count}: ${countOf(shard.runIds.length, "run")}`);
  const baseline = input.baseline.kind === "run" ? input.baseline : ({ kind: "none" } as const);
  const sides = await runSides({ ...input, baseline, shard });
  const dir = resolve(input.resultsDir);
  const failed = [sides.base, sides.head].some((s) => s?.runs.some((r) => r.details.setup === "failed"));
  return {
    // A side whose setup failed ran nothing: the shard says so and fails (its results are still written).
    setupFailed: failed ? incompleteNote(sides.head, sides.base) : null,
    head: join(dir, "head", "results.json"),
    base: baseline.kind === "run" ? join(dir, "base", "results.json") : null,
  };
}
