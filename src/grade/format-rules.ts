import { statSync } from "node:fs";
import { CsvError, readCsvFile, readCsvText, type Table } from "../tabular/csv.js";
import { idKey } from "./align.js";
import { formatVerdict, standInAnswers, type Stand } from "./format-check.js";
import { columnsUsed } from "./graders.js";
import type { GraderSpec } from "./spec.js";

/**
 * The format check's rules (what the agents' endpoint answers, execute/validation-server.ts): with
 * a declared grader, the grader's own validity checks with the public sample standing in for the
 * answers (format-check.ts); without one, columns, ids and row count against the sample. Never
 * a score.
 */

export type { Stand };

export interface SampleShape {
  columns: string[];
  /** The id column (the sample's first) and its values. */
  idColumn: string;
  ids: Set<string>;
  rows: number;
  /** Size of the sample file in bytes. */
  bytes: number;
}

const key = (v: number | string | null) => (v === null ? "" : String(v));

function idsOf(t: Table, name: string): string[] {
  const c = t.column(name);
  if (!c) return [];
  const out: string[] = new Array(t.rowCount);
  for (let i = 0; i < t.rowCount; i++) out[i] = key(idKey(c, i));
  return out;
}

/** The sample submission's columns, ids and rows, read by the grader's reader. */
export function sampleShape(csv: string | Buffer): SampleShape {
  const bytes = typeof csv === "string" ? Buffer.byteLength(csv) : csv.length;
  const t = readCsvText(csv, "the sample submission", { keep: (_n, k) => k === 0 });
  if (t.names.length === 0) throw new Error("the sample submission is empty");
  const idColumn = t.names[0];
  return { columns: t.names, idColumn, ids: new Set(idsOf(t, idColumn)), rows: t.rowCount, bytes };
}

export interface FormatCheck {
  valid: boolean;
  errors: string[];
}

const few = (xs: string[], n = 5) =>
  xs
    .slice(0, n)
    .map((x) => JSON.stringify(x))
    .join(", ") + (xs.length > n ? `, … (${xs.length} in all)` : "");

/** Same columns, same ids, same row count as the sample; no score, ever. */
export function checkTable(sample: SampleShape, t: Table): FormatCheck {
  const errors: string[] = [];
  const header = t.names;
  const missing = sample.columns.filter((c) => !header.includes(c));
  const extra = header.filter((c) => !sample.columns.includes(c));
  if (missing.length > 0) errors.push(`missing columns: ${few(missing)}`);
  if (extra.length > 0) errors.push(`unexpected columns: ${few(extra)}`);
  if (t.rowCount !== sample.rows)
    errors.push(`${t.rowCount} rows, expected ${sample.rows} (as in the sample submission)`);
  if (t.has(sample.idColumn)) {
    const seen = new Set<string>();
    const dupes: string[] = [];
    const unknown: string[] = [];
    for (const id of idsOf(t, sample.idColumn)) {
      if (seen.has(id)) {
        if (dupes.length < 6) dupes.push(id);
      } else if (!sample.ids.has(id)) {
        if (unknown.length < 6) unknown.push(id);
      } else seen.add(id);
    }
    const absent: string[] = [];
    for (const id of sample.ids) if (!seen.has(id) && absent.length < 6) absent.push(id);
    if (absent.length > 0) errors.push(`ids missing from ${sample.idColumn}: ${few(absent)}`);
    if (unknown.length > 0) errors.push(`ids not in the sample submission: ${few(unknown)}`);
    if (dupes.length > 0) errors.push(`duplicate ids: ${few(dupes)}`);
  }
  return { valid: errors.length === 0, errors };
}

/** Reads only the id column, at most about twice the sample's rows: memory bounded by the sample. */
function checkWith(sample: SampleShape, read: (keep: (n: string) => boolean, maxRows: number) => Table) {
  try {
    return checkTable(
      sample,
      read((n) => n === sample.idColumn, 2 * sample.rows + 1000),
    );
  } catch (e) {
    if (e instanceof CsvError) {
      const msg = e.message.replace(/^submission: /, "");
      return {
        valid: false,
        errors: [msg.replace(/ \(the answers have \d+\)/, " (as in the sample submission)")],
      };
    }
    throw e;
  }
}

export function checkFormat(sample: SampleShape, submissionCsv: string | Buffer): FormatCheck {
  if (submissionCsv.length === 0) return { valid: false, errors: ["the submission is empty"] };
  return checkWith(sample, (keep, maxRows) => readCsvText(submissionCsv, "submission", { keep, maxRows }));
}

/** The stand-in answers of a competition with a declared grader, read from the sample file. */
export function standInOfFile(grader: GraderSpec, sampleFile: string): Stand {
  const used = columnsUsed(grader).answers;
  return standInAnswers(grader, readCsvFile(sampleFile, { keep: (n) => used.includes(n) }));
}

/** The grader's verdict on a submission held in memory (tests). */
export function checkFormatWithGrader(grader: GraderSpec, stand: Stand, csv: string | Buffer): FormatCheck {
  if (csv.length === 0) return { valid: false, errors: ["the submission is empty"] };
  return formatVerdict(grader, stand, (opts) => readCsvText(csv, "submission", opts));
}

/** The grader's verdict on a spooled submission file. */
export function checkFormatFileWithGrader(grader: GraderSpec, stand: Stand, file: string): FormatCheck {
  if (statSync(file).size === 0) return { valid: false, errors: ["the submission is empty"] };
  const r = formatVerdict(grader, stand, (opts) => readCsvFile(file, opts));
  return { ...r, errors: r.errors.map((e) => e.replaceAll(file, "submission")) };
}

export function checkFormatFile(sample: SampleShape, file: string): FormatCheck {
  if (statSync(file).size === 0) return { valid: false, errors: ["the submission is empty"] };
  const r = checkWith(sample, (keep, maxRows) => readCsvFile(file, { keep, maxRows }));
  return { ...r, errors: r.errors.map((e) => e.replaceAll(file, "submission")) };
}

/** The sample submission's shape, read from its file. */
export function sampleShapeOfFile(file: string): SampleShape {
  const t = readCsvFile(file, { keep: (_n, k) => k === 0 });
  if (t.names.length === 0) throw new Error("the sample submission is empty");
  const idColumn = t.names[0];
  return {
    columns: t.names,
    idColumn,
    ids: new Set(idsOf(t, idColumn)),
    rows: t.rowCount,
    bytes: statSync(file).size,
  };
}
