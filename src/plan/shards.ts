import type { SuiteResults } from "../results/schema.js";
import type { Plan, PlannedRun } from "./plan.js";

/** GitHub's matrix holds at most 256 jobs. */
export const MAX_SHARDS = 256;

export interface Shard {
  /** 1-based, as `--shard i/N` takes it. */
  index: number;
  runIds: string[];
  /** Sum of the runs' expected seconds: the shard's wall time on a one-slot runner. */
  expectedSecs: number;
}

export interface ShardPlan {
  suiteHash: string;
  count: number;
  shards: Shard[];
  /** Longest shard: the expected wall time with `count` runners. */
  makespanSecs: number;
  totalSecs: number;
  longestRunSecs: number;
}

export interface Durations {
  /** Expected seconds per competition, from earlier results. */
  byCompetition: Map<string, number>;
}

/**
 * Mean duration per competition over earlier results (runs that ran: no infrastructure errors),
 * capped by the time limit. Competitions without any stay unknown (the plan's estimate is used).
 */
export function durationsFrom(results: SuiteResults[], timeLimitSecs: number): Durations {
  const sums = new Map<string, { s: number; n: number }>();
  for (const doc of results)
    for (const r of doc.runs) {
      if (r.outcome === "infra_error") continue;
      const e = sums.get(r.competitionId) ?? { s: 0, n: 0 };
      e.s += r.durationMs / 1000;
      e.n++;
      sums.set(r.competitionId, e);
    }
  const byCompetition = new Map<string, number>();
  for (const [id, { s, n }] of sums) byCompetition.set(id, Math.min(s / n, timeLimitSecs));
  return { byCompetition };
}

/** Each run's expected seconds: from earlier results when known, else the plan's (time limit). */
export function expectedRuns(plan: Plan, durations?: Durations): PlannedRun[] {
  return plan.runs.map((r) => ({
    ...r,
    expectedSecs: durations?.byCompetition.get(r.competitionId) ?? r.expectedSecs,
  }));
}

/**
 * Longest processing time first: runs sorted by expected seconds (longest first, then by id, so
 * the result is the same for the same inputs), each given to the least loaded shard (lowest index
 * on ties). Never more shards than runs; never an empty shard.
 */
export function shardRuns(runs: PlannedRun[], count: number, suiteHash = ""): ShardPlan {
  if (!Number.isInteger(count) || count < 1 || count > MAX_SHARDS)
    throw new RangeError(`the number of shards must be a whole number from 1 to ${MAX_SHARDS}, got ${count}`);
  const n = Math.max(1, Math.min(count, runs.length));
  const order = [...runs].sort((a, b) => b.expectedSecs - a.expectedSecs || (a.runId < b.runId ? -1 : 1));
  const shards: Shard[] = Array.from({ length: n }, (_, i) => ({
    index: i + 1,
    runIds: [],
    expectedSecs: 0,
  }));
  for (const run of order) {
    let best = shards[0];
    for (const s of shards) if (s.expectedSecs < best.expectedSecs) best = s;
    best.runIds.push(run.runId);
    best.expectedSecs += run.expectedSecs;
  }
  const totalSecs = runs.reduce((a, r) => a + r.expectedSecs, 0);
  return {
    suiteHash,
    count: runs.length === 0 ? 0 : n,
    shards: runs.length === 0 ? [] : shards,
    makespanSecs: shards.reduce((m, s) => Math.max(m, s.expectedSecs), 0),
    totalSecs,
    longestRunSecs: runs.reduce((m, r) => Math.max(m, r.expectedSecs), 0),
  };
}

/** The fewest shards (≤ maxShards) whose expected wall time fits the target; else maxShards. */
export function shardsForTarget(
  runs: PlannedRun[],
  maxShards: number,
  targetSecs: number,
  suiteHash = "",
): ShardPlan {
  const most = Math.max(1, Math.min(maxShards, runs.length, MAX_SHARDS));
  let lo = 1;
  let hi = most;
  // Makespan does not grow with more shards under LPT in practice; bisect, then confirm.
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (shardRuns(runs, mid).makespanSecs <= targetSecs) hi = mid;
    else lo = mid + 1;
  }
  return shardRuns(runs, lo, suiteHash);
}

/** Parses "i/N" (1 ≤ i ≤ N ≤ MAX_SHARDS). */
export function parseShard(text: string): { index: number; count: number } | null {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!m) return null;
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || count > MAX_SHARDS || index < 1 || index > count) return null;
  return { index, count };
}
