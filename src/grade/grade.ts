/**
 * The grading stage: one submission file → a GradeReport with MLE-bench's fields. A missing or
 * invalid submission is a report with its reason, never a throw.
 */
import { lstatSync } from "node:fs";
import { extname, join } from "node:path";
import { snapshotFile } from "../util/runfiles.js";
import type { Competition } from "../registry/schema.js";
import type { GradeReport, ScoreResult } from "./types.js";
import { readCsvFile, readCsvText, type ReadOptions, type Table } from "../tabular/csv.js";
import { CsvError } from "../tabular/errors.js";
import { MetricError } from "./metrics/errors.js";
import { loadGraderSpec, roundingOf, type GraderSpec } from "./spec.js";
import { columnsUsed, scoreTables, submissionReadOptions } from "./graders.js";
import { round5, round5Numpy } from "./round.js";
import { percentile, rankScore } from "./medals.js";
import { boardFor, noBoard, type Board } from "./board.js";
import { gradeExternal } from "./external.js";

export interface GradeOptions {
  competition: Competition;
  /** Folder with grader.json / leaderboard.csv. */
  competitionDir: string;
  /** <data-dir>/<id>/prepared/private */
  privateDir: string;
  submissionPath: string;
  /** A leaderboard CSV given by the user; overrides the resolver (see board.ts). */
  leaderboardPath?: string;
  /** Where fetched leaderboards live (default: $MEDALIST_LEADERBOARDS_DIR or the user cache). */
  leaderboardsDir?: string;
  /** External grader for competitions with grading: "external". */
  external?: { command: string[]; cwd?: string };
  now?: Date;
  /** Largest submission graded (bytes); larger is invalid. Default 1 GiB. */
  maxSubmissionBytes?: number;
}

export const MAX_SUBMISSION_BYTES = 1024 ** 3;

/**
 * Is this path a gradable submission (an existing regular file ending in .csv, not a link)? Reason
 * when not. grade() also reads it without following links (util/runfiles.ts).
 */
export function submissionProblem(path: string): string | null {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return `no submission file at ${path}`;
  }
  if (st.isSymbolicLink()) return `${path} is a symbolic link`;
  if (!st.isFile()) return `${path} is not a regular file`;
  if (extname(path).toLowerCase() !== ".csv") return `${path} is not a .csv file`;
  return null;
}

/** Reads the answers columns a grader needs (throws a plain Error: a grader problem, not the agent's). */
export function readAnswers(spec: GraderSpec, answersPath: string): Table {
  const used = columnsUsed(spec);
  try {
    return readCsvFile(answersPath, { keep: (n) => used.answers.includes(n) });
  } catch (e) {
    throw new Error(`cannot read the answers ${answersPath}: ${(e as Error).message}`);
  }
}

/** Scores a submission against answers with a declared grader (unrounded; invalid → reason). */
export function scoreSubmission(
  spec: GraderSpec,
  submissionPath: string,
  answers: string | Table,
): ScoreResult {
  return scoreWith(spec, answers, (opts) => readCsvFile(submissionPath, opts));
}

/** scoreSubmission for a submission held in memory (fuzz tests, the format check). */
export function scoreSubmissionText(
  spec: GraderSpec,
  submission: string | Buffer,
  answers: string | Table,
): ScoreResult {
  return scoreWith(spec, answers, (opts) => readCsvText(submission, "submission.csv", opts));
}

/**
 * A problem in the submission (unreadable CSV, a failed check, a metric's domain) makes it
 * invalid; anything else — answers upstream cannot grade, a RangeError inside a metric, a bug —
 * is thrown, and grade() reports it as a grader error, never as the agent's fault.
 */
function scoreWith(
  spec: GraderSpec,
  answers: string | Table,
  read: (opts: ReadOptions) => Table,
): ScoreResult {
  if (typeof answers === "string") answers = readAnswers(spec, answers);
  try {
    const sub = read(submissionReadOptions(spec, answers.rowCount));
    const score = scoreTables(spec, sub, answers);
    return { valid: true, score, error: null, rounding: roundingOf(spec) };
  } catch (e) {
    if (e instanceof CsvError || e instanceof MetricError)
      return { valid: false, score: null, error: e.message };
    if (e instanceof RangeError) throw new Error(`the grader failed: ${e.message}`);
    throw e;
  }
}

/** Builds the report from a score result and the board. */
export function makeReport(
  competitionId: string,
  submissionPath: string,
  result: ScoreResult & { exists: boolean },
  board: Board,
  now: Date,
): GradeReport {
  const round = result.rounding === "numpy" ? round5Numpy : round5;
  const score = result.valid && result.score !== null ? round(result.score) : null;
  const t = board.thresholds;
  const flags = rankScore(score, t);
  return {
    competition_id: competitionId,
    score,
    gold_threshold: t.gold,
    silver_threshold: t.silver,
    bronze_threshold: t.bronze,
    median_threshold: t.median,
    ...flags,
    submission_exists: result.exists,
    valid_submission: result.valid && result.exists,
    is_lower_better: t.isLowerBetter,
    created_at: now.toISOString(),
    submission_path: submissionPath,
    percentile: board.scores ? percentile(score, board.scores, t.isLowerBetter) : null,
    error: result.error,
    unrounded_score: result.valid ? result.score : null,
    thresholds_source: board.source,
  };
}

export async function grade(opts: GradeOptions): Promise<GradeReport> {
  const { competition } = opts;
  const now = opts.now ?? new Date();
  let board: Board;
  try {
    board = boardFor(competition, opts.competitionDir, opts.leaderboardPath, opts.leaderboardsDir);
  } catch (e) {
    board = noBoard(competition);
    return {
      ...makeReport(
        competition.id,
        opts.submissionPath,
        { exists: true, valid: false, score: null, error: (e as Error).message },
        board,
        now,
      ),
      grader_error: true,
    };
  }
  const problem = submissionProblem(opts.submissionPath);
  if (problem) {
    return makeReport(
      competition.id,
      opts.submissionPath,
      {
        exists: false,
        valid: false,
        score: null,
        error: problem,
      },
      board,
      now,
    );
  }
  // Grade a private copy taken without following links: the agent may have planted a link to the
  // answers, a hard link, a FIFO or a device node; none of them is ever read through.
  const snap = snapshotFile(opts.submissionPath, opts.maxSubmissionBytes ?? MAX_SUBMISSION_BYTES);
  if (!snap.ok) {
    return makeReport(
      competition.id,
      opts.submissionPath,
      { exists: !snap.missing, valid: false, score: null, error: snap.problem },
      board,
      now,
    );
  }
  try {
    const report = await gradeFile(opts, snap.path, board, now);
    const error = report.error?.replaceAll(snap.path, opts.submissionPath) ?? null;
    return { ...report, submission_path: opts.submissionPath, error };
  } finally {
    snap.dispose();
  }
}

async function gradeFile(opts: GradeOptions, submissionPath: string, board: Board, now: Date) {
  const { competition } = opts;
  let result: ScoreResult;
  try {
    if (competition.grading === "external") {
      if (!opts.external)
        throw new Error(
          `${competition.id} is graded externally but no external grader command is configured`,
        );
      result = await gradeExternal(opts.external.command, {
        competition: competition.id,
        submission: submissionPath,
        privateDir: opts.privateDir,
        cwd: opts.external.cwd,
      });
    } else {
      const spec = loadGraderSpec(opts.competitionDir);
      if (!spec) throw new Error(`${join(opts.competitionDir, "grader.json")} is missing`);
      result = scoreSubmission(spec, submissionPath, join(opts.privateDir, competition.answers));
    }
  } catch (e) {
    // The grader itself failed (answers unreadable, bad grader.json): not the agent's fault.
    const report = makeReport(
      competition.id,
      submissionPath,
      { exists: true, valid: false, score: null, error: (e as Error).message },
      board,
      now,
    );
    return { ...report, grader_error: true };
  }
  return makeReport(competition.id, submissionPath, { ...result, exists: true }, board, now);
}
