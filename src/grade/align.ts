/** Column access and id alignment shared by the graders. */
import type { Column, Table } from "../tabular/csv.js";
import { SubmissionError } from "./errors.js";
import { keyOrder } from "./keyorder.js";
import type { TextStore } from "../tabular/textstore.js";

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

/** Number of rows of a column (without making its strings). */
export function columnLength(c: Column): number {
  if (c.text) return c.text.count;
  return c.kind === "text" ? c.strings!.length : c.values!.length;
}

/** A numeric view of a column (bool as 1/0); text columns are rejected. */
export function numeric(c: Column, side = "submission"): Float64Array {
  if (c.kind === "text") {
    const bad = c.strings!.find(
      (s) => s !== null && !/^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(s),
    );
    throw new SubmissionError(
      `${side} column "${c.name}" is not numeric${bad !== undefined ? ` (e.g. ${JSON.stringify(bad)})` : ""}`,
    );
  }
  return c.values!;
}

export function requireNoMissing(v: Float64Array, c: Column, side = "submission"): void {
  for (let i = 0; i < v.length; i++) {
    if (Number.isNaN(v[i]))
      throw new SubmissionError(`${side} column "${c.name}" has a missing value (data row ${i + 1})`);
  }
}

/** Every non-missing value within [0,1] (missing values are left to later checks). */
export function requireUnitRange(v: Float64Array, c: Column): void {
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (x < 0 || x > 1)
      throw new SubmissionError(`column "${c.name}" has ${x} (data row ${i + 1}); values must lie in [0, 1]`);
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
 * 1 equals 1.0, missing ids never match. With `onAnswerDuplicate`, a repeated answer id calls it
 * (pairTextUnique's success already proves the answer ids distinct).
 */
export function pairById(subId: Column, ansId: Column, onAnswerDuplicate?: () => never): Int32Array {
  const n = columnLength(ansId);
  const m = columnLength(subId);
  if (n !== m) throw new SubmissionError(`submission has ${m} rows, the answers have ${n}`);
  const subText = subId.kind === "text",
    ansText = ansId.kind === "text";
  if (n > 0 && subText !== ansText) {
    throw new SubmissionError(
      `submission ids in "${subId.name}" are ${subText ? "text" : "numbers"} but the answers' ids are ${ansText ? "text" : "numbers"}`,
    );
  }
  // Fast path: same ids in the same order.
  const out = new Int32Array(n);
  let same = true;
  if (subId.text && ansId.text) {
    for (let i = 0; i < n && same; i++) same = subId.text.equals(i, ansId.text, i);
  } else if (!subText) {
    const a = subId.values!,
      b = ansId.values!;
    for (let i = 0; i < n && same; i++) same = a[i] === b[i]; // NaN never equal
  } else {
    for (let i = 0; i < n && same; i++) {
      const k = keyAt(subId, i);
      same = k !== null && k === keyAt(ansId, i);
    }
  }
  if (same) {
    if (onAnswerDuplicate && indexOfIds(ansId).duplicates) onAnswerDuplicate();
    for (let i = 0; i < n; i++) out[i] = i;
    return out;
  }
  if (subId.text && ansId.text) {
    const fast = pairTextUnique(subId.text, ansId.text, n);
    if (fast) return fast;
  }
  // General path: an open-addressing index of the answer ids (a Map is several times slower
  // at a million strings); text ids are hashed and compared as bytes, without strings.
  const index = indexOfIds(ansId, "the answers", !!(subId.text && ansId.text));
  const answerDuplicates = index.duplicates;
  if (answerDuplicates && onAnswerDuplicate) onAnswerDuplicate();
  // Without duplicate answers each slot holds one row: a row already paired means a repeated id.
  const cursor = answerDuplicates ? index.heads() : null;
  out.fill(-1);
  const st = subId.text && ansId.text ? subId.text : null,
    sv = subId.values;
  const ansStrings = subText && !st ? ansId.strings! : null;
  for (let i = 0; i < n; i++) {
    let slot: number;
    if (st) {
      if (st.isMissing(i))
        throw new SubmissionError(`submission has a missing id in "${subId.name}" (data row ${i + 1})`);
      slot = findText(index.table, index.mask, st, i, ansId.text!);
    } else if (ansStrings) {
      const k = keyAt(subId, i) as string | null;
      if (k === null)
        throw new SubmissionError(`submission has a missing id in "${subId.name}" (data row ${i + 1})`);
      slot = index.find(hashString(k), (j) => ansStrings[j] === k);
    } else {
      const k = sv![i];
      if (Number.isNaN(k))
        throw new SubmissionError(`submission has a missing id in "${subId.name}" (data row ${i + 1})`);
      slot = index.find(hashNumber(k), (j) => ansId.values![j] === k);
    }
    const j = slot === -1 ? -2 : cursor ? cursor[slot] : out[index.row(slot)] === -1 ? index.row(slot) : -1;
    if (j < 0) {
      const k = keyAt(subId, i)!;
      throw new SubmissionError(
        j === -2
          ? `submission id ${show(k)} is not in the answers`
          : `submission id ${show(k)} appears more often than in the answers`,
      );
    }
    if (cursor) cursor[slot] = index.next[j];
    out[j] = i;
  }
  if (answerDuplicates) {
    // Same multiset; equal ids pair up in the order pandas' (unstable) sort leaves them.
    const so = keyOrder(subId),
      ao = keyOrder(ansId);
    for (let p = 0; p < n; p++) out[ao[p]] = so[p];
  }
  return out;
}

const NON_ASCII = /[^ -~\t\n\r]/u;
const DECIMAL_DIGIT = /\p{Nd}/u;

/**
 * Python's float() reads any Unicode decimal digit (`１`, `٣`) as its ASCII digit. Nd digits come
 * in runs of ten starting at zero, so a digit's value is its distance from the run's start mod 10.
 */
function asciiDigits(s: string): string {
  if (!NON_ASCII.test(s)) return s;
  let out = "";
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80 || !DECIMAL_DIGIT.test(ch)) {
      out += ch;
      continue;
    }
    let start = cp;
    while (DECIMAL_DIGIT.test(String.fromCodePoint(start - 1))) start--;
    out += String((cp - start) % 10);
  }
  return out;
}

/**
 * Python float() of a string (what numpy/scikit-learn do to a text column): surrounding
 * whitespace, underscores between digits, inf/infinity/nan in any case. null when not a number.
 */
export function pyFloat(s: string): number | null {
  const t = asciiDigits(s).trim().toLowerCase();
  const special = /^([+-]?)(inf|infinity|nan)$/.exec(t);
  if (special) return special[2] === "nan" ? NaN : special[1] === "-" ? -Infinity : Infinity;
  if (!/^[+-]?(\d+(_\d+)*(\.(\d+(_\d+)*)?)?|\.\d+(_\d+)*)(e[+-]?\d+(_\d+)*)?$/.test(t)) return null;
  return Number(t.replace(/_/g, ""));
}

/** Numbers of the given rows of a column the way scikit-learn converts it (text via Python float()). */
export function sklearnNumbers(c: Column, rows: Int32Array | null, side = "submission"): Float64Array {
  const n = rows ? rows.length : columnLength(c);
  const out = new Float64Array(n);
  for (let p = 0; p < n; p++) {
    const i = rows ? rows[p] : p;
    if (c.kind !== "text") {
      out[p] = c.values![i];
      continue;
    }
    const str = c.strings![i];
    const v = str === null ? NaN : pyFloat(str);
    if (v === null)
      throw new SubmissionError(`${side} column "${c.name}" is not numeric (e.g. ${JSON.stringify(str)})`);
    out[p] = v;
  }
  return out;
}

/** Do the two id columns hold the same *set* of ids (duplicates ignored)? */
export function sameIdSet(subId: Column, ansId: Column): boolean {
  const a = new Set<number | string | null>(),
    b = new Set<number | string | null>();
  const len = columnLength;
  for (let i = 0; i < len(subId); i++) a.add(keyAt(subId, i));
  for (let i = 0; i < len(ansId); i++) b.add(keyAt(ansId, i));
  if (a.size !== b.size || a.has(null) || b.has(null)) return false;
  for (const k of a) if (!b.has(k)) return false;
  return true;
}

/**
 * Row order pandas gives when sorting by a column (numpy quicksort; missing last); `skipIfSorted`
 * for sort_index, which leaves a non-decreasing index as it is.
 */
export function sortedOrder(c: Column, skipIfSorted = false): Int32Array {
  return keyOrder(c, skipIfSorted);
}

/** Key lookup for a column (for membership tests). */
export function idKey(c: Column, i: number): number | string | null {
  return keyAt(c, i);
}

const f64 = new Float64Array(1),
  u32 = new Uint32Array(f64.buffer);

export function hashNumber(k: number): number {
  f64[0] = k === 0 ? 0 : k; // -0 equals 0
  let h = Math.imul(0x811c9dc5 ^ u32[0], 0x01000193);
  h = Math.imul(h ^ u32[1], 0x01000193);
  return (h ^ (h >>> 15)) >>> 0;
}

function hashString(k: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < k.length; i++) h = Math.imul(h ^ k.charCodeAt(i), 0x01000193);
  return (h ^ (h >>> 15)) >>> 0;
}

/**
 * Open-addressing index from a key's hash to its first row, with row and hash side by side
 * (one cache line per probe); rows with equal keys chain through `next`.
 */
export class HashIndex {
  /** [row, hash] per slot; row -1 = empty. */
  readonly table: Int32Array;
  readonly next: Int32Array;
  duplicates = false;
  readonly mask: number;

  constructor(n: number, hashOf: (j: number) => number, same: (a: number, b: number) => boolean) {
    let size = 16;
    while (size < n * 2) size *= 2;
    this.mask = size - 1;
    this.table = new Int32Array(size * 2).fill(-1);
    this.next = new Int32Array(n).fill(-1);
    const tails = new Int32Array(size).fill(-1);
    for (let j = 0; j < n; j++) {
      const h = hashOf(j) | 0;
      let p = h & this.mask;
      for (;;) {
        const head = this.table[2 * p];
        if (head === -1) {
          this.table[2 * p] = j;
          this.table[2 * p + 1] = h;
          tails[p] = j;
          break;
        }
        if (this.table[2 * p + 1] === h && same(head, j)) {
          this.next[tails[p]] = j;
          tails[p] = j;
          this.duplicates = true;
          break;
        }
        p = (p + 1) & this.mask;
      }
    }
  }

  /** Slot whose first row matches (per isKey), or -1. */
  find(hash: number, isKey: (row: number) => boolean): number {
    const h = hash | 0,
      t = this.table,
      mask = this.mask;
    for (let p = h & mask; ; p = (p + 1) & mask) {
      const head = t[2 * p];
      if (head === -1) return -1;
      if (t[2 * p + 1] === h && isKey(head)) return p;
    }
  }

  /** First row of a slot. */
  row(slot: number): number {
    return this.table[2 * slot];
  }

  /** The first row per slot, to walk the chains. */
  heads(): Int32Array {
    const out = new Int32Array(this.table.length >> 1);
    for (let p = 0; p < out.length; p++) out[p] = this.table[2 * p];
    return out;
  }
}

/** Where pairTextUnique's cache-warming reads go (so they are not optimised away). */
let _touched = 0;

/**
 * The common case of pairById for text ids, in phases whose memory accesses do not depend on
 * each other (hashes first, then table probes, then byte checks, then the pairing), so the CPU
 * overlaps the cache misses of a million random lookups instead of taking them one by one.
 * Returns null, leaving the general path to decide (and word any error), unless every id is
 * present, the answers' ids are distinct and the submission's are exactly the same ids.
 */
function pairTextUnique(sub: TextStore, ans: TextStore, n: number): Int32Array | null {
  const hashA = new Int32Array(n);
  if (!ans.hashAll(hashA)) return null;
  let size = 16;
  while (size < n * 2) size *= 2;
  const mask = size - 1;
  const table = new Int32Array(size * 2).fill(-1);
  for (let j = 0; j < n; j++) {
    const h = hashA[j];
    for (let p = h & mask; ; p = (p + 1) & mask) {
      const head = table[2 * p];
      if (head === -1) {
        table[2 * p] = j;
        table[2 * p + 1] = h;
        break;
      }
      if (table[2 * p + 1] === h && ans.equals(head, ans, j)) return null; // duplicate answer id
    }
  }
  const cand = new Int32Array(n);
  if (!sub.hashAll(cand)) return null;
  // Candidate: the first row with an equal hash (checked below; a rare other one is re-probed).
  for (let i = 0; i < n; i++) {
    const h = cand[i];
    let p = h & mask;
    while (table[2 * p] !== -1 && table[2 * p + 1] !== h) p = (p + 1) & mask;
    cand[i] = table[2 * p];
  }
  // Where each candidate's bytes start (-1: no candidate or a different length) …
  const from = new Int32Array(n);
  const as = ans.starts,
    ae = ans.ends,
    ss = sub.starts,
    se = sub.ends;
  for (let i = 0; i < n; i++) {
    const j = cand[i];
    from[i] = j !== -1 && ae[j] - as[j] === se[i] - ss[i] ? as[j] : -1;
  }
  // … then the bytes themselves.
  const a = ans.bytes(),
    b = sub.bytes();
  // In blocks: a tight loop first touches each candidate's first byte, so the cache misses
  // overlap, then the full comparisons find the bytes in cache.
  for (let block = 0; block < n; block += 2048) {
    const end = Math.min(n, block + 2048);
    let touch = 0;
    for (let i = block; i < end; i++) {
      const s = from[i];
      if (s !== -1 && se[i] > ss[i]) touch ^= a[s] ^ a[s + se[i] - ss[i] - 1];
    }
    _touched ^= touch; // keeps the reads
    for (let i = block; i < end; i++) {
      let s = from[i];
      let same = s !== -1;
      for (let k = ss[i], e = se[i]; same && k < e; k++, s++) same = a[s] === b[k];
      if (!same) {
        const slot = findText(table, mask, sub, i, ans);
        if (slot === -1) return null;
        cand[i] = table[2 * slot];
      }
    }
  }
  const out = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const j = cand[i];
    if (out[j] !== -1) return null; // an id repeated in the submission
    out[j] = i;
  }
  return out;
}

/** Slot of the answers row whose bytes equal submission row i (no closure: the hot loop at 1M rows). */
function findText(t: Int32Array, mask: number, sub: TextStore, i: number, ans: TextStore): number {
  const h = sub.hash(i) | 0;
  for (let p = h & mask; ; p = (p + 1) & mask) {
    const head = t[2 * p];
    if (head === -1) return -1;
    if (t[2 * p + 1] === h && sub.equals(i, ans, head)) return p;
  }
}

/** Index of an id column's rows by value; missing ids are an error. */
export function indexOfIds(c: Column, side = "the answers", useBytes = true): HashIndex {
  const t = useBytes ? c.text : undefined;
  if (t) {
    for (let j = 0; j < t.count; j++)
      if (t.isMissing(j)) throw new SubmissionError(`${side} have a missing id (row ${j + 1})`);
    return new HashIndex(
      t.count,
      (j) => t.hash(j),
      (a, b) => t.equals(a, t, b),
    );
  }
  if (c.kind === "text") {
    const s = c.strings!;
    for (let j = 0; j < s.length; j++)
      if (s[j] === null) throw new SubmissionError(`${side} have a missing id (row ${j + 1})`);
    return new HashIndex(
      s.length,
      (j) => hashString(s[j]!),
      (a, b) => s[a] === s[b],
    );
  }
  const v = c.values!;
  for (let j = 0; j < v.length; j++)
    if (Number.isNaN(v[j])) throw new SubmissionError(`${side} have a missing id (row ${j + 1})`);
  return new HashIndex(
    v.length,
    (j) => hashNumber(v[j]),
    (a, b) => v[a] === v[b],
  );
}
