import { runIdOf } from "../plan/plan.js";
import type { RunResult, SuiteResults } from "../results/schema.js";
import { UserError } from "../errors.js";
import { NOT_RUN } from "../results/not-run.js";

export interface Merged {
  results: SuiteResults;
  /** Runs recorded as not run (their shard's results are missing). */
  missing: string[];
  /** Shards (1-based) whose results were not given. */
  missingShards: number[];
}

const mixed = (what: string, a: string, b: string) =>
  new UserError(`cannot merge shards of different ${what}: ${JSON.stringify(a)} and ${JSON.stringify(b)}`, 2);

/** Refuses shards of different suites, agents, sides or plans and shards given twice; returns the shard count. */
function checkShards(docs: SuiteResults[], expectShards?: number): { count: number; seen: Set<number> } {
  if (docs.length === 0) throw new UserError("no shard results given", 2);
  const first = docs[0];
  for (const d of docs.slice(1)) {
    if (d.suite.hash !== first.suite.hash || d.suite.name !== first.suite.name)
      throw mixed("suites", `${first.suite.name} ${first.suite.hash}`, `${d.suite.name} ${d.suite.hash}`);
    if (d.agent.description !== first.agent.description)
      throw mixed("agents", first.agent.description, d.agent.description);
    if (d.label !== first.label) throw mixed("sides", first.label, d.label);
  }
  const counts = new Set(docs.map((d) => d.shard?.count ?? 1));
  if (counts.size > 1)
    throw new UserError(`cannot merge shards of different plans: ${[...counts].join(" and ")} shards`, 2);
  const count = expectShards ?? [...counts][0];
  const seen = new Set<number>();
  for (const d of docs) {
    const i = d.shard?.index ?? 1;
    if (seen.has(i)) throw new UserError(`shard ${i}/${count} is given twice`, 2);
    seen.add(i);
  }
  return { count, seen };
}

/** A planned run that no shard holds: an infrastructure error "not run", with the reason. */
function notRunResult(
  runId: string,
  competitionId: string,
  seed: number,
  startedAt: string,
  why: string,
): RunResult {
  return {
    runId,
    competitionId,
    seed,
    outcome: "infra_error",
    exitCode: null,
    startedAt,
    durationMs: 0,
    attempts: 0,
    runDir: "",
    error: why,
    grade: null,
    usage: null,
    gpus: [],
    details: { [NOT_RUN]: "true" },
  };
}

/**
 * Combines shard results of one side into one results document. Refuses shards of different
 * suites, agents or sides and runs given twice (exit 2). Every planned run that no shard holds is
 * recorded as an infrastructure error "not run", so the comparison shows it as not comparable
 * and nothing silently shrinks.
 */
export function mergeShards(docs: SuiteResults[], opts: { expectShards?: number } = {}): Merged {
  const { count, seen } = checkShards(docs, opts.expectShards);
  const first = docs[0];
  const byId = new Map<string, RunResult>();
  for (const d of docs)
    for (const r of d.runs) {
      if (byId.has(r.runId)) throw new UserError(`run ${r.runId} is in more than one shard's results`, 2);
      byId.set(r.runId, r);
    }
  const missingShards = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  const startedAt = docs.map((d) => d.startedAt).sort()[0];
  const finishedAt = docs
    .map((d) => d.finishedAt)
    .sort()
    .at(-1)!;
  const why =
    missingShards.length > 0
      ? `not run: the results of shard${missingShards.length > 1 ? "s" : ""} ${missingShards.map((i) => `${i}/${count}`).join(", ")} are missing`
      : "not run: no shard's results hold this run";
  const runs: RunResult[] = [];
  const missing: string[] = [];
  for (const id of first.suite.competitions)
    for (let seed = 0; seed < first.suite.seeds; seed++) {
      const runId = runIdOf(id, seed);
      const r = byId.get(runId);
      if (!r) missing.push(runId);
      runs.push(r ?? notRunResult(runId, id, seed, startedAt, why));
    }
  const gpuModels = [...new Set(docs.map((d) => d.environment.gpuModel).filter((g): g is string => !!g))];
  const digests = [...new Set(docs.map((d) => d.agent.imageDigest).filter((g): g is string => !!g))];
  if (digests.length > 1) throw mixed("agent images", digests[0], digests[1]);
  const { shard: _shard, ...rest } = first;
  return {
    results: {
      ...rest,
      agent: { ...first.agent, imageDigest: digests[0] ?? null },
      environment: { ...first.environment, gpuModel: gpuModels.length ? gpuModels.join(", ") : null },
      startedAt,
      finishedAt,
      runs,
    },
    missing,
    missingShards,
  };
}
