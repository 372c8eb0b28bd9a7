import type { RunResult, SuiteResults } from "./schema.js";

/** The `details` mark of a run that never ran because its shard's results are missing. */
export const NOT_RUN = "notRun";

/** Runs of a results document that never ran (lost shards). */
export function notRun(results: SuiteResults): RunResult[] {
  return results.runs.filter((r) => r.details[NOT_RUN] === "true");
}
