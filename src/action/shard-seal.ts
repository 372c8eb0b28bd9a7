// A shard's results travel to the report and decide jobs as an artifact: run/ seals each side's
// results.json with the run key for this workflow run, and a shard whose seal does not check counts
// as not run. Shards on several runners share the key through the `run-key` input (a secret).
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { RunResult, SuiteResults } from "../results/schema.js";
import { NOT_RUN } from "../results/not-run.js";
import { loadRunKey, resultsSealProblem, sealResults } from "../suite/seal.js";
import { readResults } from "../suite/store.js";
import { UserError } from "../errors.js";

/** The workflow run a shard's seal belongs to: a seal from another run does not check here. */
export const sealContext = (env: NodeJS.ProcessEnv) =>
  `${env.GITHUB_REPOSITORY ?? ""}#${env.GITHUB_RUN_ID ?? ""}`;

/** Seals dir/head/results.json and dir/base/results.json (where written) for this workflow run. */
export function sealShard(dir: string, env: NodeJS.ProcessEnv): void {
  const { key } = loadRunKey(env);
  for (const side of ["head", "base"]) {
    const file = join(dir, side, "results.json");
    if (existsSync(file)) sealResults(file, key, sealContext(env));
  }
}

export interface ShardSide {
  results: SuiteResults;
  /** Why the shard's results were refused (every run then counts as not run); null: sealed. */
  refused: string | null;
}

/**
 * One downloaded side of a shard (`folder` holds results.json): as uploaded when its seal checks,
 * else the same runs recorded as not run, with the reason.
 */
export function readShardSide(folder: string, what: string, env: NodeJS.ProcessEnv): ShardSide {
  const { key, source } = loadRunKey(env);
  // The seal first: an unsealed file is parsed only to name its runs as not run.
  const problem = resultsSealProblem(folder, key, sealContext(env));
  let results: SuiteResults;
  try {
    results = readResults(join(folder, "results.json"));
  } catch (e) {
    // A torn file (a write or transfer cut short): which runs it held is unknown, so nothing of it is
    // counted; the report stops rather than guess (docs/reliability.md).
    if (!(e instanceof UserError)) throw e;
    throw new UserError(
      `the results of ${what} cannot be read (${e.message}${problem ? `; ${problem}` : ""}): ` +
        `the file is half-written or damaged, so none of its runs is counted; re-run that shard's job (a runner with a run store reuses its sealed runs), then this report`,
    );
  }
  if (problem === null) return { results, refused: null };
  const refused = `the results of ${what} were refused: ${problem} (run key: ${source === "MEDALIST_RUN_KEY" ? "input run-key" : source})`;
  const runs = results.runs.map((r): RunResult => ({
    ...r,
    outcome: "infra_error",
    exitCode: null,
    durationMs: 0,
    attempts: 0,
    error: `not run: ${refused}`,
    grade: null,
    usage: null,
    details: { [NOT_RUN]: "true" },
    failure: undefined,
    reused: undefined,
  }));
  return { results: { ...results, runs }, refused };
}

/** The report's first line about refused shards; null when none was refused. */
export function refusedNotice(refused: { what: string; runs: number }[]): string | null {
  if (refused.length === 0) return null;
  const runs = refused.reduce((a, r) => a + r.runs, 0);
  return `> ⚠️ **The results of ${refused.map((r) => r.what).join(", ")} were refused**: they carry no valid seal of this workflow run's run key, so their ${runs} run${runs === 1 ? "" : "s"} count as not run. Shards on several runners need one key for all (input \`run-key\`, a secret).`;
}
