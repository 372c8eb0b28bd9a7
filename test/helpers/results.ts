import type { RunResult, SuiteResults } from "../../src/results/schema.js";

/** A run of a fake suite: medal is "gold" | "silver" | "bronze" | "none"; outcome defaults to completed. */
export function fakeRun(
  competitionId: string,
  seed: number,
  medal: string,
  opts: Partial<RunResult> & { score?: number; valid?: boolean } = {},
): RunResult {
  const { score = 0.5, valid = true, ...rest } = opts;
  return {
    runId: `${competitionId}.s${seed}`,
    competitionId,
    seed,
    outcome: "completed",
    exitCode: 0,
    startedAt: "2026-01-01T00:00:00.000Z",
    durationMs: 1000,
    attempts: 1,
    runDir: `runs/${competitionId}.s${seed}`,
    error: null,
    usage: null,
    gpus: [],
    details: {},
    grade: {
      competition_id: competitionId,
      score: valid ? score : null,
      gold_threshold: 0.9,
      silver_threshold: 0.8,
      bronze_threshold: 0.7,
      median_threshold: 0.5,
      any_medal: medal !== "none",
      gold_medal: medal === "gold",
      silver_medal: medal === "silver",
      bronze_medal: medal === "bronze",
      above_median: valid && score > 0.5,
      submission_exists: true,
      valid_submission: valid,
      is_lower_better: false,
      created_at: "2026-01-01T00:00:00.000Z",
      submission_path: "submission.csv",
      percentile: valid ? score : null,
      error: valid ? null : "bad columns",
    },
    ...rest,
  };
}

export function fakeSuite(label: string, runs: RunResult[], hash = "abc"): SuiteResults {
  return {
    schemaVersion: 2,
    medalistVersion: "test",
    label,
    suite: {
      name: "s",
      hash,
      competitions: [...new Set(runs.map((r) => r.competitionId))].sort(),
      seeds: Math.max(2, ...runs.map((r) => r.seed + 1)),
    },
    agent: { description: `${label} agent`, image: null, imageDigest: null },
    git: { sha: null, ref: null },
    environment: { executor: "local", timeLimitSecs: 60, gpuModel: null, node: "v20", platform: "linux-x64" },
    startedAt: "2026-01-01T00:00:00.000Z",
    finishedAt: "2026-01-01T00:01:00.000Z",
    runs,
  };
}

/** Competition ids c0 … c(m-1). */
export const competitionIds = (m: number) => Array.from({ length: m }, (_, i) => `c${i}`);

/** A side of m competitions × seeds runs; `run(id, i, seed)` makes each run. */
export const sideOf = (
  label: string,
  m: number,
  seeds: number,
  run: (id: string, i: number, s: number) => RunResult,
) =>
  fakeSuite(
    label,
    competitionIds(m).flatMap((id, i) => Array.from({ length: seeds }, (_, s) => run(id, i, s))),
  );
