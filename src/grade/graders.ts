/**
 * The grading recipes named by grader.json kinds. Each takes the submission and answers tables
 * and returns the unrounded score, or throws SubmissionError (invalid, with a plain reason).
 * Check order follows upstream (lite-grading.md §2–3) so the first failure reported matches.
 */
import type { Column, Table } from "../tabular/csv.js";
import { SubmissionError } from "./errors.js";
import type { GraderSpec } from "./spec.js";
import {
  numeric,
  pairById,
  requireColumn,
  requireNoMissing,
  requireRowCount,
  requireUnitRange,
  sameIdSet,
  sortedOrder,
  take,
  sklearnNumbers,
} from "./align.js";
import { rocAuc } from "./metrics/auc.js";
import { numpySum } from "./metrics/npsum.js";
import { binaryLogLoss, multiclassLogLoss } from "./metrics/logloss.js";
import { rmse, rmsle } from "./metrics/regression.js";
import { quadraticWeightedKappa } from "./metrics/classification.js";
import { pythonStr } from "./pystr.js";
import { maskedRows } from "./bool-mask.js";

/**
 * Columns a grader reads from each file (others are skipped while reading). A submission list of
 * null means "by position": only the first `positions` columns are kept (a submission with more
 * columns is invalid for those kinds anyway), so a huge header cannot exhaust memory.
 */
export function columnsUsed(spec: GraderSpec): {
  submission: string[] | null;
  positions: number;
  answers: string[];
} {
  const used = namedColumns(spec);
  const positions =
    spec.kind === "column-auc"
      ? spec.targets.length + 2
      : spec.kind === "multiclass-logloss"
        ? spec.classes.length + 2
        : 0;
  return { ...used, positions };
}

/** How the grader reads a submission: only the columns it uses, at most the answers' rows. */
export function submissionReadOptions(
  spec: GraderSpec,
  answerRows: number,
): { keep: (name: string, index: number) => boolean; maxRows: number } {
  const { submission: keep, positions } = columnsUsed(spec);
  return {
    keep: keep ? (n) => keep.includes(n) : (_n, k) => k < positions,
    maxRows: answerRows,
  };
}

function namedColumns(spec: GraderSpec): { submission: string[] | null; answers: string[] } {
  switch (spec.kind) {
    case "binary-auc":
    case "rmse":
    case "binary-logloss":
    case "accuracy":
    case "qwk":
      return { submission: [spec.id, spec.target], answers: [spec.id, spec.target] };
    case "column-auc":
      return {
        submission: spec.pairing === "by-position" ? null : [spec.id, ...spec.targets],
        answers: [spec.id, ...spec.targets],
      };
    case "column-rmsle":
      return { submission: spec.targets, answers: spec.targets };
    case "multiclass-logloss":
      return {
        submission: spec.columns === "exact-count" ? null : [spec.id, ...spec.classes],
        answers: [spec.id, ...spec.classes],
      };
  }
}

export function scoreTables(spec: GraderSpec, sub: Table, ans: Table): number {
  switch (spec.kind) {
    case "binary-auc":
      return binaryAuc(spec.id, spec.target, sub, ans);
    case "column-auc":
      return columnAuc(spec, sub, ans);
    case "rmse":
      return rmseGrade(spec, sub, ans);
    case "column-rmsle":
      return columnRmsle(spec.targets, sub, ans);
    case "multiclass-logloss":
      return multiclassLogLossGrade(spec, sub, ans);
    case "binary-logloss":
      return binaryLogLossGrade(spec.id, spec.target, sub, ans);
    case "accuracy":
      return accuracyGrade(spec, sub, ans);
    case "qwk":
      return qwkGrade(spec.id, spec.target, sub, ans);
  }
}

/** §2.3: id, target, row count, numeric, [0,1], ids equal, AUC (missing score invalid). */
function binaryAucChecks(
  id: string,
  target: string,
  sub: Table,
  ans: Table,
): { truth: Float64Array; score: Float64Array } {
  const subId = requireColumn(sub, id);
  const col = requireColumn(sub, target);
  requireRowCount(sub, ans);
  const score = numeric(col);
  requireUnitRange(score, col);
  const rows = pairById(subId, requireColumn(ans, id, "answers"));
  return { truth: numeric(requireColumn(ans, target, "answers"), "answers"), score: take(score, rows) };
}

function binaryAuc(id: string, target: string, sub: Table, ans: Table): number {
  const { truth, score } = binaryAucChecks(id, target, sub, ans);
  return rocAuc(truth, score);
}

function columnAuc(spec: Extract<GraderSpec, { kind: "column-auc" }>, sub: Table, ans: Table): number {
  const ansId = requireColumn(ans, spec.id, "answers");
  if (spec.columns === "exact") {
    if (spec.pairing === "by-name") requireRowCount(sub, ans);
    requireColumn(sub, spec.id);
    for (const t of spec.targets) requireColumn(sub, t);
    const want = new Set([spec.id, ...spec.targets]);
    const extra = sub.names.filter((n) => !want.has(n));
    if (extra.length)
      throw new SubmissionError(
        `submission has unexpected column(s) ${extra.map((e) => `"${e}"`).join(", ")}`,
      );
    if (spec.pairing === "by-position") requireRowCount(sub, ans);
  } else {
    for (const t of spec.targets) requireColumn(sub, t);
    requireColumn(sub, spec.id);
    requireRowCount(sub, ans);
  }
  const subId = requireColumn(sub, spec.id);
  // Which submission column is scored against answers target k.
  const scoreCols: Column[] =
    spec.pairing === "by-position"
      ? sub.names.filter((n) => n !== spec.id).map((n) => sub.column(n)!)
      : spec.targets.map((t) => sub.column(t)!);
  // With a range check the helper converts with pandas first (text invalid); otherwise
  // scikit-learn converts only the scored rows, text cells via Python float().
  const scores = scoreCols.map((c) => {
    if (!spec.range) return null;
    const v = numeric(c);
    requireUnitRange(v, c);
    return v;
  });
  const truths = spec.targets.map((t) => numeric(requireColumn(ans, t, "answers"), "answers"));

  // Pair rows: answers row j ↔ submission row subRow[j] (kept rows only when skipping).
  let ansRows: Int32Array, subRows: Int32Array;
  const keepAnswer = (j: number) => !spec.skipNegativeRows || truths.reduce((s, t) => s + t[j], 0) >= 0;
  if (spec.duplicateIds === "allow") {
    ({ ansRows, subRows } = maskedRows(subId, ansId, keepAnswer));
    if (subRows.length !== ansRows.length)
      throw new SubmissionError(
        `after matching ids, ${subRows.length} submission rows pair with ${ansRows.length} answer rows`,
      );
  } else {
    const paired = pairById(subId, ansId);
    const keep: number[] = [];
    for (let j = 0; j < ans.rowCount; j++) if (keepAnswer(j)) keep.push(j);
    ansRows = Int32Array.from(keep);
    subRows = Int32Array.from(keep, (j) => paired[j]);
  }
  if (scores.length !== truths.length) {
    throw new SubmissionError(`submission has ${scores.length} score columns, expected ${truths.length}`);
  }
  const aucs: number[] = [];
  for (let k = 0; k < truths.length; k++) {
    const y = take(truths[k], ansRows);
    const v = scores[k];
    const p = v ? take(v, subRows) : sklearnNumbers(scoreCols[k], subRows);
    requireNoMissing(p, scoreCols[k]);
    aucs.push(rocAuc(y, p));
  }
  return numpySum(aucs) / truths.length; // numpy mean
}

function rmseGrade(spec: Extract<GraderSpec, { kind: "rmse" }>, sub: Table, ans: Table): number {
  const ansId = requireColumn(ans, spec.id, "answers");
  const truthAll = numeric(requireColumn(ans, spec.target, "answers"), "answers");
  if (spec.ids === "sort-only") {
    const col = requireColumn(sub, spec.target);
    const subId = requireColumn(sub, spec.id);
    requireRowCount(sub, ans);
    return rmse(take(truthAll, sortedOrder(ansId)), sklearnNumbers(col, sortedOrder(subId)));
  }
  const subId = requireColumn(sub, spec.id);
  const col = requireColumn(sub, spec.target);
  // astype(float): a text column whose cells Python's float() reads (`1_0`, 30-digit integers) is scored.
  const pred = sklearnNumbers(col, null);
  requireRowCount(sub, ans);
  // Both sides sorted by id (numpy's quicksort order, which pairs repeated ids), then summed in
  // that order (numpy's pairwise sum depends on it).
  const rows = pairById(subId, ansId);
  const order = sortedOrder(ansId);
  const subRows = new Int32Array(order.length);
  for (let p = 0; p < order.length; p++) subRows[p] = rows[order[p]];
  return rmse(take(truthAll, order), take(pred, subRows));
}

const INT64_BOUND = 9223372036854775808; // 2^63

/**
 * scikit-learn's type_of_target: a float label that is not integral, or outside int64 (where
 * astype(int) does not give it back), makes the target "continuous", which classification
 * metrics reject.
 */
function requireClassLabels(v: Float64Array, c: Column): void {
  const float = c.kind === "float";
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (!Number.isInteger(x) || (float && (x < -INT64_BOUND || x >= INT64_BOUND)))
      throw new SubmissionError(
        `column "${c.name}" has a label ${x} that is not an integer in int64 range (data row ${i + 1}); scikit-learn treats such labels as continuous`,
      );
  }
}

function columnRmsle(targets: string[], sub: Table, ans: Table): number {
  const cols = targets.map((t) => requireColumn(sub, t));
  requireRowCount(sub, ans);
  let sum = 0;
  for (let k = 0; k < targets.length; k++) {
    sum += rmsle(
      numeric(requireColumn(ans, targets[k], "answers"), "answers"),
      sklearnNumbers(cols[k], null),
    );
  }
  return sum / targets.length;
}

function requireRowSums(cols: Column[], tolerance: number): Float64Array[] {
  const vals = cols.map((c) => numeric(c));
  const n = vals.length ? vals[0].length : 0;
  // One pass per column: row sums (same addition order as a row-wise sum), and the first
  // out-of-range / missing cell; failures are then reported in upstream's order.
  const sums = new Float64Array(n);
  let badRangeCol = -1,
    missingCol = -1;
  for (let k = 0; k < vals.length; k++) {
    const v = vals[k];
    for (let i = 0; i < n; i++) {
      const x = v[i];
      if (x === x) {
        sums[i] += x;
        if ((x < 0 || x > 1) && badRangeCol === -1) badRangeCol = k;
      } else if (missingCol === -1) missingCol = k;
    }
  }
  for (let i = 0; i < n; i++) {
    const s = sums[i];
    if (!(Math.abs(s - 1) <= tolerance)) {
      throw new SubmissionError(
        `probabilities on data row ${i + 1} sum to ${s}, not 1 (tolerance ${tolerance})`,
      );
    }
  }
  if (badRangeCol !== -1) requireUnitRange(vals[badRangeCol], cols[badRangeCol]);
  if (missingCol !== -1) requireNoMissing(vals[missingCol], cols[missingCol]);
  return vals;
}

function multiclassLogLossGrade(
  spec: Extract<GraderSpec, { kind: "multiclass-logloss" }>,
  sub: Table,
  ans: Table,
): number {
  const want = [spec.id, ...spec.classes];
  if (spec.columns === "exact-count") {
    if (sub.rowCount !== ans.rowCount || sub.names.length !== want.length) {
      throw new SubmissionError(
        `submission shape (${sub.rowCount}, ${sub.names.length}) does not match the answers' (${ans.rowCount}, ${want.length})`,
      );
    }
    // Probability checks on columns 2..K+1 by position (upstream assumes the id comes first).
    requireRowSums(
      sub.names.slice(1).map((n) => sub.column(n)!),
      spec.rowSumTolerance,
    );
  } else {
    if (spec.columns === "exact") {
      const wanted = new Set(want);
      const missing = want.filter((n) => !sub.has(n));
      const extra = sub.names.filter((n) => !wanted.has(n));
      if (missing.length || extra.length || sub.names.length !== want.length) {
        const parts = [];
        if (missing.length)
          parts.push(
            `missing ${missing
              .slice(0, 3)
              .map((m) => `"${m}"`)
              .join(", ")}${missing.length > 3 ? ", …" : ""}`,
          );
        if (extra.length)
          parts.push(
            `unexpected ${extra
              .slice(0, 3)
              .map((m) => `"${m}"`)
              .join(", ")}${extra.length > 3 ? ", …" : ""}`,
          );
        throw new SubmissionError(
          `submission columns must be exactly ${spec.id} + ${spec.classes.length} classes (${parts.join("; ")})`,
        );
      }
    } else {
      for (const c of spec.classes) requireColumn(sub, c);
      requireColumn(sub, spec.id);
    }
    requireRowCount(sub, ans);
    requireRowSums(
      spec.classes.map((c) => sub.column(c)!),
      spec.rowSumTolerance,
    );
  }
  // One-hot helper: named columns, ids matched.
  for (const c of want) requireColumn(sub, c);
  const rows = pairById(sub.column(spec.id)!, requireColumn(ans, spec.id, "answers"));
  const probs = spec.classes.map((c) => numeric(sub.column(c)!));
  const truth = spec.classes.map((c) => numeric(requireColumn(ans, c, "answers"), "answers"));
  return multiclassLogLoss(truth, probs, rows);
}

/** Upstream's set comparison of ids (aptos, dogs-vs-cats): duplicates are caught later, by row count. */
function requireSameIdSet(subId: Column, ansId: Column, id: string): void {
  if (!sameIdSet(subId, ansId))
    throw new SubmissionError(`submission ids in "${id}" are not the answers' ids`);
}

function binaryLogLossGrade(id: string, target: string, sub: Table, ans: Table): number {
  const subId = requireColumn(sub, id);
  const col = requireColumn(sub, target);
  const ansId = requireColumn(ans, id, "answers");
  requireSameIdSet(subId, ansId, id);
  requireRowCount(sub, ans);
  const p = numeric(col);
  requireUnitRange(p, col);
  requireNoMissing(p, col);
  const rows = pairSortedSets(subId, ansId);
  return binaryLogLoss(numeric(requireColumn(ans, target, "answers"), "answers"), take(p, rows));
}

/**
 * Rows paired after upstream's set check: both sides sorted by id and paired by position. Same
 * as matching ids unless the answers repeat an id, where only the sorted positions decide.
 */
function pairSortedSets(subId: Column, ansId: Column): Int32Array {
  try {
    return pairById(subId, ansId);
  } catch (e) {
    if (!(e instanceof SubmissionError)) throw e;
    const so = sortedOrder(subId),
      ao = sortedOrder(ansId);
    const out = new Int32Array(ao.length);
    for (let p = 0; p < ao.length; p++) out[ao[p]] = so[p];
    return out;
  }
}

/** Distinct values of a column (strings or numbers). */
function distinct(c: Column): Set<unknown> {
  return new Set<unknown>(c.kind === "text" ? c.strings! : c.values!);
}

function accuracyGrade(spec: Extract<GraderSpec, { kind: "accuracy" }>, sub: Table, ans: Table): number {
  requireRowCount(sub, ans);
  const col = requireColumn(sub, spec.target);
  const subId = requireColumn(sub, spec.id);
  const truthCol = requireColumn(ans, spec.target, "answers");
  const rows = pairById(subId, requireColumn(ans, spec.id, "answers"));
  const n = ans.rowCount;
  if (n === 0) throw new SubmissionError("the answers have no rows");
  let hits = 0;
  if (spec.compare === "string") {
    for (let j = 0; j < n; j++) if (pythonStr(truthCol, j) === pythonStr(col, rows[j])) hits++;
    return hits / n;
  }
  const subText = col.kind === "text",
    ansText = truthCol.kind === "text";
  if (subText && col.strings!.includes(null)) {
    throw new SubmissionError(
      `column "${spec.target}" has a missing label (data row ${col.strings!.indexOf(null) + 1})`,
    );
  }
  if (subText !== ansText) {
    // Mixed label types: sklearn raises when both sides look binary, otherwise nothing matches.
    if (distinct(col).size <= 2 && distinct(truthCol).size <= 2) {
      throw new SubmissionError(`column "${spec.target}" mixes text and number labels`);
    }
    return 0;
  }
  if (subText) {
    // numpy cannot sort a mix of strings and NaN, so sklearn fails on a missing label.
    const a = truthCol.strings!,
      s = col.strings!;
    const gap = s.indexOf(null);
    if (gap !== -1)
      throw new SubmissionError(`column "${spec.target}" has a missing label (data row ${gap + 1})`);
    for (let j = 0; j < n; j++) if (a[j] === s[rows[j]]) hits++;
    return hits / n;
  }
  const a = truthCol.values!,
    s = col.values!;
  requireNoMissing(s, col);
  requireClassLabels(s, col);
  for (let j = 0; j < n; j++) if (a[j] === s[rows[j]]) hits++;
  return hits / n;
}

function qwkGrade(id: string, target: string, sub: Table, ans: Table): number {
  const col = requireColumn(sub, target);
  if (sub.rowCount === 0 || sub.names.length === 0) throw new SubmissionError("submission has no rows");
  const subId = requireColumn(sub, id);
  const ansId = requireColumn(ans, id, "answers");
  requireSameIdSet(subId, ansId, id);
  requireRowCount(sub, ans);
  const pred = numeric(col);
  requireNoMissing(pred, col);
  requireClassLabels(pred, col);
  const rows = pairSortedSets(subId, ansId);
  return quadraticWeightedKappa(take(pred, rows), numeric(requireColumn(ans, target, "answers"), "answers"));
}
