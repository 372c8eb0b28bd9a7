// Sharding a real-size suite: plan and merge time for 75 competitions × 5 seeds, and how close
// the longest-first shards come to the lower bound max(total / N, longest run), vs round-robin.
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { PlannedRun } from "../src/plan/plan.js";
import { shardRuns } from "../src/plan/shards.js";
import { rng } from "../src/prepare/random.js";
import { mergeShards } from "../src/session/merge.js";
import { RESULTS_SCHEMA_VERSION, type RunResult, type SuiteResults } from "../src/results/schema.js";

/** Duration mixes seen in MLE-bench-like suites (seconds per run). */
const MIXES: Record<string, (r: () => number) => number> = {
  "uniform 10 min–24 h": (r) => 600 + r() * 86_400,
  "mostly short, few 24 h": (r) => (r() < 0.1 ? 86_400 : 600 + r() * 7_200),
  "log-normal around 2 h": (r) => Math.min(86_400, 7_200 * Math.exp((r() + r() + r() - 1.5) * 1.5)),
  "all at the 24 h limit": () => 86_400,
};

function suite(
  competitions: number,
  seeds: number,
  duration: (r: () => number) => number,
  seed = 1,
): PlannedRun[] {
  const r = rng(seed);
  const runs: PlannedRun[] = [];
  for (let c = 0; c < competitions; c++) {
    const secs = duration(r);
    for (let s = 0; s < seeds; s++)
      runs.push({
        runId: `comp-${c}.s${s}`,
        competitionId: `comp-${c}`,
        seed: s,
        expectedSecs: secs * (0.9 + 0.2 * r()),
        gpus: 1,
      });
  }
  return runs;
}

function roundRobin(runs: PlannedRun[], n: number): number {
  const load = new Array<number>(n).fill(0);
  runs.forEach((r, i) => (load[i % n] += r.expectedSecs));
  return Math.max(...load);
}

function shardDoc(runs: PlannedRun[], index: number, count: number, competitions: string[]): SuiteResults {
  const result = (r: PlannedRun): RunResult => ({
    runId: r.runId,
    competitionId: r.competitionId,
    seed: r.seed,
    outcome: "completed",
    exitCode: 0,
    startedAt: "2026-01-01T00:00:00Z",
    durationMs: r.expectedSecs * 1000,
    attempts: 1,
    runDir: `runs/${r.runId}`,
    error: null,
    grade: null,
    usage: null,
    gpus: [],
    details: {},
  });
  return {
    schemaVersion: RESULTS_SCHEMA_VERSION,
    medalistVersion: "bench",
    label: "head",
    suite: { name: "bench", hash: "h", competitions, seeds: 5 },
    agent: { description: "a", image: null, imageDigest: null },
    git: { sha: null, ref: null },
    environment: { executor: "docker", timeLimitSecs: 86_400, gpuModel: null, node: "", platform: "" },
    startedAt: "2026-01-01T00:00:00Z",
    finishedAt: "2026-01-02T00:00:00Z",
    shard: { index, count, runIds: runs.map((r) => r.runId) },
    runs: runs.map(result),
  };
}

export async function benchShards(): Promise<string> {
  const out = ["## Shards (plan and merge of 75 competitions × 5 seeds)", ""];
  const runs = suite(75, 5, MIXES["uniform 10 min–24 h"]);
  const competitions = [...new Set(runs.map((r) => r.competitionId))];
  const N = 16;
  const reps = 20;
  let t0 = performance.now();
  let plan = shardRuns(runs, N);
  for (let i = 1; i < reps; i++) plan = shardRuns(runs, N);
  const planMs = (performance.now() - t0) / reps;
  const byId = new Map(runs.map((r) => [r.runId, r]));
  const docs = plan.shards.map((s) =>
    shardDoc(
      s.runIds.map((id) => byId.get(id)!),
      s.index,
      N,
      competitions,
    ),
  );
  t0 = performance.now();
  for (let i = 0; i < reps; i++) mergeShards(docs);
  const mergeMs = (performance.now() - t0) / reps;
  out.push(
    `375 runs into ${N} shards: plan ${planMs.toFixed(2)} ms, merge ${mergeMs.toFixed(2)} ms (mean of ${reps}; goal: < 1 s together).`,
    "",
    "| duration mix | shards | LPT makespan ÷ lower bound | round-robin ÷ lower bound |",
    "| --- | ---: | ---: | ---: |",
  );
  for (const [name, mix] of Object.entries(MIXES))
    for (const n of [3, 16, 64]) {
      const rs = suite(75, 5, mix, 7);
      const total = rs.reduce((a, r) => a + r.expectedSecs, 0);
      const bound = Math.max(total / n, Math.max(...rs.map((r) => r.expectedSecs)));
      const lpt = shardRuns(rs, n).makespanSecs / bound;
      out.push(`| ${name} | ${n} | ${lpt.toFixed(3)} | ${(roundRobin(rs, n) / bound).toFixed(3)} |`);
    }
  out.push("", "Goal: LPT within 1.05 of the lower bound and below round-robin.");
  return out.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(await benchShards());
