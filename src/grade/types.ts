/** Medal thresholds as MLE-bench reports them (unrounded). */
export interface Thresholds {
  gold: number;
  silver: number;
  bronze: number;
  median: number;
  isLowerBetter: boolean;
}

/** Outcome of scoring one submission file, before medals. */
export interface ScoreResult {
  /** false: the submission is invalid (score is null). */
  valid: boolean;
  /** Unrounded metric value; NaN is possible and still valid. null when invalid. */
  score: number | null;
  /** Plain reason when invalid. */
  error: string | null;
  /** How upstream would round this score (python: exact decimal, numpy: x·1e5 rint); python when absent. */
  rounding?: "python" | "numpy";
}

/**
 * A grade report with MLE-bench's field names (what `mlebench grade` writes), plus
 * the leaderboard percentile and the reason a submission was invalid.
 */
export interface GradeReport {
  competition_id: string;
  /** Rounded to 5 decimals (ties to even) as upstream; null when missing or invalid. NaN possible. */
  score: number | null;
  gold_threshold: number;
  silver_threshold: number;
  bronze_threshold: number;
  median_threshold: number;
  any_medal: boolean;
  gold_medal: boolean;
  silver_medal: boolean;
  bronze_medal: boolean;
  above_median: boolean;
  submission_exists: boolean;
  valid_submission: boolean;
  is_lower_better: boolean;
  created_at: string;
  submission_path: string;
  /** Fraction (0..1) of leaderboard teams this score beats; null when not scored. */
  percentile: number | null;
  /** Why the submission is missing or invalid; null when valid. */
  error: string | null;
  /** The metric value before rounding (null when missing or invalid). */
  unrounded_score?: number | null;
  /** Where the thresholds came from: the leaderboard CSV, competition.thresholds, or nowhere (NaN). */
  thresholds_source?: "leaderboard" | "thresholds" | "none";
  /** true when grading itself failed (answers unreadable, grader misconfigured): not the agent's fault. */
  grader_error?: boolean;
}

export type Medal = "gold" | "silver" | "bronze" | "none";

export function medalOf(r: Pick<GradeReport, "gold_medal" | "silver_medal" | "bronze_medal">): Medal {
  if (r.gold_medal) return "gold";
  if (r.silver_medal) return "silver";
  if (r.bronze_medal) return "bronze";
  return "none";
}
