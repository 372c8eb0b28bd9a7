// The grading stage's public surface.
export {
  grade,
  scoreSubmission,
  readAnswers,
  submissionProblem,
  scoreSubmissionText,
  type GradeOptions,
} from "./grade.js";
export { boardFor, type Board } from "./board.js";
export { round5, round5Numpy } from "./round.js";
export {
  thresholdsFromLeaderboard,
  thresholdPositions,
  rankScore,
  percentile,
  readLeaderboardCsv,
  readLeaderboardScores,
  leaderboardScoresFromCsv,
  type MedalFlags,
} from "./medals.js";
export { readCsv, readCsvFile, readCsvText, Table, type Column, type ColumnKind } from "../tabular/csv.js";
export { SubmissionError } from "./errors.js";
export {
  GraderSpecSchema,
  loadGraderSpec,
  parseGraderSpec,
  type GraderSpec,
  type GraderKind,
} from "./spec.js";
export { gradeExternal } from "./external.js";
export type { GradeReport, ScoreResult, Thresholds, Medal } from "./types.js";
export { medalOf } from "./types.js";
