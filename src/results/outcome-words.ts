import type { RunResult } from "./schema.js";

/** How each outcome is said to people: the progress lines and the report use the same words. */
export const OUTCOME_WORDS: Record<RunResult["outcome"], string> = {
  completed: "completed",
  failed: "failed",
  timed_out: "timed out",
  oom: "out of memory",
  infra_error: "infra error",
};
