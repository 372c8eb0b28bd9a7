/** Column access and id alignment shared by the graders. */
import type { Column, Table } from "./csv.js";
import { SubmissionError } from "./errors.js";
import { pandasSortOrder } from "./npsort.js";

const show = (v: number | string) => (typeof v === "string" ? JSON.stringify(v) : String(v));

export function requireColumn(t: Table, name: string, side = "submission"): Column {
  const c = t.column(name);
  if (!c) throw new SubmissionError(`${side} has no "${name}" column`);
  return c;
}

export function requireRowCount(sub: Table, ans: Table): void {
  if (sub.rowCount !== ans.rowCount) {
    throw new SubmissionError(`submission has ${sub.rowCount} rows, the answers have ${ans.rowCount}`);
  }
}

/** A numeric view of a column (bool as 1/0); text columns are rejected. */
export function numeric(c: Column, side = "submission"): Float64Array {
  if (c.kind === "text") {
    const bad = c.strings!.find((s) => s !== null && !/^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(s));
    throw new SubmissionError(`${side} column "${c.name}" is not numeric${bad !== undefined ? ` (e.g. ${JSON.stringify(bad)})` : ""}`);
  }
  return c.values!;
}

export function requireNoMissing(v: Float64Array, c: Column, side = "submission"): void {
  for (let i = 0; i < v.length; i++) {
    if (Number.isNaN(v[i])) throw new SubmissionError(`${side} column "${c.name}" has a missing value (data row ${i + 1})`);
  }
}

/** Every non-missing value within [0,1] (missing values are left to later checks). */
export function requireUnitRange(v: Float64Array, c: Column): void {
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (x < 0 || x > 1) throw new SubmissionError(`column "${c.name}" has ${x} (data row ${i + 1}); values must lie in [0, 1]`);
  }
}

/** Gathers v at the given row indices. */
export function take(v: Float64Array, rows: Int32Array): Float64Array {
  const out = new Float64Array(rows.length);
  for (let i = 0; i < rows.length; i++) out[i] = v[rows[i]];
  return out;
}

/** Ids as comparable keys (numbers for numeric columns, strings for text); missing → null. */
function keyAt(c: Column, i: number): number | string | null {
  if (c.kind === "text") return c.strings![i];
  const v = c.values![i];
  return Number.isNaN(v) ? null : v;
}

/**
 * Pairs submission rows with answer rows by id, as upstream's "sort both by id, the id
 * sequences must be equal": succeeds iff the two id multisets are equal. Returns, for each
 * answers row, the submission row holding its id. Numbers never equal strings (1 ≠ "1"),
 * 1 equals 1.0, missing ids never match.
 */
export function pairById(subId: Column, ansId: Column): Int32Array {
  const n = ansId.kind === "text" ? ansId.strings!.length : ansId.values!.length;
  const m = subId.kind === "text" ? subId.strings!.length : subId.values!.length;
  if (n !== m) throw new SubmissionError(`submission has ${m} rows, the answers have ${n}`);
  const subText = subId.kind === "text", ansText = ansId.kind === "text";
  if (n > 0 && subText !== ansText) {
    throw new SubmissionError(
      `submission ids in "${subId.name}" are ${subText ? "text" : "numbers"} but the answers' ids are ${ansText ? "text" : "numbers"}`,
    );
  }
  // Fast path: same ids in the same order.
  const out = new Int32Array(n);
  let same = true;
  for (let i = 0; i < n; i++) {
    const k = keyAt(subId, i);
    if (k === null || k !== keyAt(ansId, i)) { same = false; break; }
    out[i] = i;
  }
  if (same) return out;
  // General path: answers id → row chain (duplicates supported), consumed by submission rows.
  let answerDuplicates = false;
  const head = new Map<number | string, number>();
  const next = new Int32Array(n).fill(-1);
  for (let j = n - 1; j >= 0; j--) {
    const k = keyAt(ansId, j);
    if (k === null) throw new SubmissionError(`the answers have a missing id (row ${j + 1})`);
    const h = head.get(k);
    if (h !== undefined) { next[j] = h; answerDuplicates = true; }
    head.set(k, j);
  }
  for (let i = 0; i < n; i++) {
    const k = keyAt(subId, i);
    if (k === null) throw new SubmissionError(`submission has a missing id in "${subId.name}" (data row ${i + 1})`);
    const j = head.get(k);
    if (j === undefined || j === -1) {
      throw new SubmissionError(
        j === undefined
          ? `submission id ${show(k)} is not in the answers`
          : `submission id ${show(k)} appears more often than in the answers`,
      );
    }
    head.set(k, next[j]);
    out[j] = i;
  }
  if (answerDuplicates) {
    // Same multiset; equal ids pair up in the order pandas' (unstable) sort leaves them.
    const so = pandasSortOrder(keysOf(subId)), ao = pandasSortOrder(keysOf(ansId));
    for (let p = 0; p < n; p++) out[ao[p]] = so[p];
  }
  return out;
}

/** The raw sort keys of an id column. */
export function keysOf(c: Column): Float64Array | (string | null)[] {
  return c.kind === "text" ? c.strings! : c.values!;
}

/**
 * Python float() of a string (what numpy/scikit-learn do to a text column): surrounding
 * whitespace, underscores between digits, inf/infinity/nan in any case. null when not a number.
 */
export function pyFloat(s: string): number | null {
  const t = s.trim().toLowerCase();
  const special = /^([+-]?)(inf|infinity|nan)$/.exec(t);
  if (special) return special[2] === "nan" ? NaN : special[1] === "-" ? -Infinity : Infinity;
  if (!/^[+-]?(\d+(_\d+)*(\.(\d+(_\d+)*)?)?|\.\d+(_\d+)*)(e[+-]?\d+(_\d+)*)?$/.test(t)) return null;
  return Number(t.replace(/_/g, ""));
}

/** Numbers of the given rows of a column the way scikit-learn converts it (text via Python float()). */
export function sklearnNumbers(c: Column, rows: Int32Array | null, side = "submission"): Float64Array {
  const n = rows ? rows.length : c.kind === "text" ? c.strings!.length : c.values!.length;
  const out = new Float64Array(n);
  for (let p = 0; p < n; p++) {
    const i = rows ? rows[p] : p;
    if (c.kind !== "text") { out[p] = c.values![i]; continue; }
    const str = c.strings![i];
    const v = str === null ? NaN : pyFloat(str);
    if (v === null) throw new SubmissionError(`${side} column "${c.name}" is not numeric (e.g. ${JSON.stringify(str)})`);
    out[p] = v;
  }
  return out;
}

/** Do the two id columns hold the same *set* of ids (duplicates ignored)? */
export function sameIdSet(subId: Column, ansId: Column): boolean {
  const a = new Set<number | string | null>(), b = new Set<number | string | null>();
  const len = (c: Column) => (c.kind === "text" ? c.strings!.length : c.values!.length);
  for (let i = 0; i < len(subId); i++) a.add(keyAt(subId, i));
  for (let i = 0; i < len(ansId); i++) b.add(keyAt(ansId, i));
  if (a.size !== b.size || a.has(null) || b.has(null)) return false;
  for (const k of a) if (!b.has(k)) return false;
  return true;
}

/** Row order pandas gives when sorting by a column (numpy quicksort; missing last). */
export function sortedOrder(c: Column, skipIfSorted = false): Int32Array {
  return pandasSortOrder(keysOf(c), skipIfSorted);
}

/** Row order that sorts a column: numbers numerically, text by code units, missing last (stable). */
export function stableSortedOrder(c: Column): Int32Array {
  const n = c.kind === "text" ? c.strings!.length : c.values!.length;
  const idx = Array.from({ length: n }, (_, i) => i);
  if (c.kind === "text") {
    const s = c.strings!;
    idx.sort((i, j) => {
      const a = s[i], b = s[j];
      if (a === null) return b === null ? 0 : 1;
      if (b === null) return -1;
      return a < b ? -1 : a > b ? 1 : 0;
    });
  } else {
    const v = c.values!;
    idx.sort((i, j) => {
      const a = v[i], b = v[j];
      if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : 1;
      if (Number.isNaN(b)) return -1;
      return a - b;
    });
  }
  return Int32Array.from(idx);
}

/** Key lookup for a column (for membership tests). */
export function idKey(c: Column, i: number): number | string | null {
  return keyAt(c, i);
}
