// The staged sharded workflow's core: each finished stage's shards merged, and the monitor of
// src/compare/monitor.ts fed one stage at a time (one look per stage end).
import { SuiteMonitor } from "../compare/monitor.js";
import type { Comparison } from "../compare/compare.js";
import { stageOfSeed, stageSeeds } from "../plan/stages.js";
import { monitorSentence } from "../report/verdict.js";
import { UserError } from "../errors.js";
import type { SuiteResults } from "../results/schema.js";
import type { Config } from "../config/schema.js";
import type { Plan } from "../plan/plan.js";
import { mergeShards } from "./merge.js";

export interface StageResults {
  /** 1-based. */
  stage: number;
  /** The stage's shard results (one side). */
  docs: SuiteResults[];
  /** The stage's shard count from the plan; shards without results are recorded as not run. */
  expectShards?: number;
}

export interface MergedStages {
  /** The runs of the stages that ran, in one document; runs of later stages are absent (never started). */
  results: SuiteResults;
  /** Run ids of each stage, in stage order (the monitor's looks). */
  byStage: string[][];
  /** Runs of a stage that ran whose shard's results are missing (recorded as not run). */
  missing: string[];
}

/** Each stage's shards merged (its seeds only), the stages joined in order. */
export function mergeStages(stages: StageResults[], seeds: number, stageCount: number): MergedStages {
  const sorted = [...stages].sort((a, b) => a.stage - b.stage);
  const runs: SuiteResults["runs"] = [];
  const byStage: string[][] = [];
  const missing: string[] = [];
  let first: SuiteResults | null = null;
  let startedAt = "";
  let finishedAt = "";
  for (const s of sorted) {
    const merged = mergeShards(s.docs, { expectShards: s.expectShards });
    const own = new Set(stageSeeds(seeds, stageCount, s.stage));
    const mine = merged.results.runs.filter((r) => own.has(r.seed));
    runs.push(...mine);
    byStage.push(mine.map((r) => r.runId));
    missing.push(...merged.missing.filter((id) => mine.some((r) => r.runId === id)));
    first ??= merged.results;
    startedAt = !startedAt || merged.results.startedAt < startedAt ? merged.results.startedAt : startedAt;
    finishedAt = merged.results.finishedAt > finishedAt ? merged.results.finishedAt : finishedAt;
  }
  if (!first) throw new Error("mergeStages: no stage given");
  return { results: { ...first, startedAt, finishedAt, runs }, byStage, missing };
}

/**
 * The monitor's comparison after the given stages, one look at each stage's end. Stages after the
 * stop (if any ran) are kept in the results and not used. `planned`: the plan's stage count.
 */
export function stagedComparison(
  base: SuiteResults,
  head: SuiteResults,
  byStage: string[][],
  planned: number,
  config: Pick<Config, "gate">,
  plan: Pick<Plan, "runs">,
  description: string,
): Comparison {
  const monitor = new SuiteMonitor(base, plan.runs, config.gate, undefined, description);
  let ran = 0;
  for (const ids of byStage) {
    const set = new Set(ids);
    const before = monitor.stopped;
    monitor.addStage(head.runs.filter((r) => set.has(r.runId)));
    if (!before) ran++;
  }
  const cmp = monitor.comparison(head);
  return { ...cmp, monitor: { ...cmp.monitor!, stages: { ran, planned } } };
}

/** `stop` once the verdict is reached (or every planned run ran); else `continue`. */
export function stageDecision(cmp: Comparison): "stop" | "continue" {
  return cmp.monitor && cmp.monitor.decision !== "continue" ? "stop" : "continue";
}

export interface StageDecisionInput {
  /** The stage that finished (1-based) and the plan's stage count. */
  stage: number;
  planned: number;
  /** Null when the head stops early here; else why every stage runs (fixed seeds, not a pull request). */
  everyStageRuns: string | null;
  base: SuiteResults | null;
  baseDescription: string;
  /** The merged head runs of the stages that ran, and their ids by stage. */
  head: SuiteResults;
  byStage: string[][];
  config: Pick<Config, "gate">;
  plan: Pick<Plan, "runs">;
}

/**
 * After stage k: `stop` at the last stage or once the monitor reached the verdict (its sentence
 * says why), else `continue`. The decide sub-action and `medalist decide` both call this.
 */
export function decideAfterStage(i: StageDecisionInput): {
  decision: "stop" | "continue";
  why: string;
  comparison: Comparison | null;
} {
  if (i.stage === i.planned)
    return { decision: "stop", why: `Stage ${i.stage} was the last.`, comparison: null };
  if (i.everyStageRuns !== null) return { decision: "continue", why: i.everyStageRuns, comparison: null };
  if (!i.base)
    return { decision: "continue", why: "No baseline to compare with: every stage runs.", comparison: null };
  const cmp = stagedComparison(i.base, i.head, i.byStage, i.planned, i.config, i.plan, i.baseDescription);
  return { decision: stageDecision(cmp), why: monitorSentence(cmp.monitor!), comparison: cmp };
}

/**
 * Head shard results of the stages that ran, each given its stage: a stage-k shard holds runs of
 * stage k's seeds only (stageSeeds). The stages must be 1..k, with no gap. `names` label errors.
 */
export function stagesOfShards(
  docs: SuiteResults[],
  names: string[],
  seeds: number,
  stageShards: number[],
): StageResults[] {
  const planned = stageShards.length;
  const byStage = new Map<number, SuiteResults[]>();
  docs.forEach((doc, i) => {
    const stages = new Set(doc.runs.map((r) => stageOfSeed(seeds, planned, r.seed)));
    if (stages.size !== 1)
      throw new UserError(
        stages.size === 0
          ? `${names[i]}: no runs, so its stage is unknown`
          : `${names[i]}: runs of stages ${[...stages].sort().join(" and ")}: give the results of one shard of one stage per file`,
        2,
      );
    const k = [...stages][0];
    byStage.set(k, [...(byStage.get(k) ?? []), doc]);
  });
  const ran = Math.max(...byStage.keys());
  for (let k = 1; k <= ran; k++)
    if (!byStage.has(k))
      throw new UserError(`no results of stage ${k}, though stage ${ran} ran: give every stage's shards`, 2);
  return [...byStage].map(([stage, d]) => ({ stage, docs: d, expectShards: stageShards[stage - 1] }));
}
