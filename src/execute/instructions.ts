import type { Competition } from "../registry/schema.js";
import { CONTAINER_PATHS } from "./contract.js";
import type { ContractPaths } from "./types.js";

/** The task instructions given to the agent, naming the paths it really has, in MLE-bench's spirit. */
export function instructions(
  c: Competition,
  timeLimitSecs: number,
  paths: ContractPaths = CONTAINER_PATHS,
): string {
  return [
    `You are solving the Kaggle-style competition "${c.name}" (${c.id}).`,
    "",
    `- The competition's files are in ${paths.data} (read-only); start with description.md.`,
    `- Write your predictions to ${paths.submission}/submission.csv in the format of ${c.sampleSubmission}.`,
    `  Only that file is graded, after you finish, against private answers you cannot see.`,
    `- Keep your notes and logs in ${paths.logs} and your code in ${paths.code}.`,
    `- You have ${timeLimitSecs} seconds of wall-clock time; the run is stopped at the limit.`,
    `- The metric is ${c.metric} (${c.isLowerBetter ? "lower" : "higher"} is better).`,
    `- To check your submission's format (never its score), POST the CSV to the URL in $MEDALIST_VALIDATION_URL when it is set.`,
    "",
  ].join("\n");
}
