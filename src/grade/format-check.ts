/**
 * The format check agents may call while they run: the grader's own validity checks, with the
 * PUBLIC sample submission standing in for the answers. In MLE-bench's layout the sample has the
 * answers' ids and columns, so every check on the submission (columns, id rules, row count, value
 * types and ranges, metric domains) gives the grader's verdict. The answers' values are never
 * known here: placeholder values are used that no check can reject (two classes for an AUC,
 * one-hot rows for a log loss). Only `{valid, errors}` leaves this module; the number the
 * grader's recipe computes against the placeholders means nothing and is dropped.
 */
import type { Column, ReadOptions, Table } from "../tabular/csv.js";
import { Table as TableClass } from "../tabular/csv.js";
import { CsvError } from "../tabular/errors.js";
import { MetricError } from "./metrics/errors.js";
import { columnsUsed, scoreTables, submissionReadOptions } from "./graders.js";
import { loadGraderSpec, type GraderSpec } from "./spec.js";
import type { Competition } from "../registry/schema.js";

export interface FormatVerdict {
  valid: boolean;
  errors: string[];
}

/** The stand-in answers: the sample's ids, placeholder values; or why the sample cannot stand in. */
export type Stand = { ok: true; answers: Table } | { ok: false; reason: string };

const placeholder = (name: string, n: number, f: (i: number) => number): Column => ({
  name,
  kind: "float",
  values: Float64Array.from({ length: n }, (_, i) => f(i)),
  strings: null,
});

/** Alternating 0/1: two classes whenever there are two rows. */
const twoClasses = (i: number) => i % 2;

/**
 * Builds the stand-in answers from the sample submission (read with the grader's reader, only
 * the answer columns the grader uses). A column the grader reads from the answers but the sample
 * lacks cannot be stood in for: then there is no check, and the reason says so.
 */
export function standInAnswers(spec: GraderSpec, sample: Table): Stand {
  const used = columnsUsed(spec).answers;
  const missing = used.filter((n) => !sample.column(n));
  if (missing.length > 0)
    return {
      ok: false,
      reason: `the sample submission lacks the answer column(s) ${missing.map((m) => `"${m}"`).join(", ")} the grader reads`,
    };
  const n = sample.rowCount;
  const cols: Column[] = used.map((name) => {
    const c = sample.column(name)!;
    switch (spec.kind) {
      case "binary-auc":
      case "binary-logloss":
        return name === spec.target ? placeholder(name, n, twoClasses) : c;
      case "column-auc":
        return spec.targets.includes(name) ? placeholder(name, n, twoClasses) : c;
      case "rmse":
        return name === spec.target ? placeholder(name, n, () => 0) : c;
      case "column-rmsle":
        return placeholder(name, n, () => 0);
      case "multiclass-logloss": {
        const k = spec.classes.indexOf(name);
        return k < 0 ? c : placeholder(name, n, () => (k === 0 ? 1 : 0));
      }
      case "qwk":
        return name === spec.target ? placeholder(name, n, twoClasses) : c;
      case "accuracy":
        // Labels keep the sample's type: whether text and number labels mix is decided by it
        // (upstream also looks at how many distinct labels the answers hold, which only the
        // answers know; the sample's labels are used for that too).
        return c;
    }
  });
  return { ok: true, answers: new TableClass(used, cols, n) };
}

/**
 * Runs the grader's checks on a submission read by `read` (the grader's reader, options from
 * the grader). Never returns a score.
 */
export function formatVerdict(
  spec: GraderSpec,
  stand: Stand,
  read: (opts: ReadOptions) => Table,
): FormatVerdict {
  if (!stand.ok) return { valid: false, errors: [`cannot check the format: ${stand.reason}`] };
  const answers = stand.answers;
  try {
    const sub = read(submissionReadOptions(spec, answers.rowCount));
    scoreTables(spec, sub, answers);
    return { valid: true, errors: [] };
  } catch (e) {
    if (e instanceof CsvError || e instanceof MetricError)
      return {
        valid: false,
        errors: [e.message.replace(/the answers have (\d+)/, "the sample submission has $1")],
      };
    // The sample cannot stand in (one row for an AUC, repeated ids): say so, never "valid".
    return { valid: false, errors: [`cannot check the format: ${(e as Error).message}`] };
  }
}

/**
 * The grader whose checks the format endpoint runs: the competition's grader.json, or null
 * (external grading, or a grader.json that does not load: grading reports that itself).
 */
export function formatGrader(competition: Competition, competitionDir: string): GraderSpec | null {
  if (competition.grading === "external") return null;
  try {
    return loadGraderSpec(competitionDir);
  } catch {
    return null;
  }
}
