/**
 * The row order pandas gives when sorting by an id column, without emulating numpy's quicksort
 * element by element where that is not needed. When no two present keys are equal, the sorted
 * order is unique: any correct sort gives numpy's. So the keys are radix sorted (text by UTF-8
 * bytes, which is code-point order as numpy compares strings; numbers by their IEEE bits, -0 as
 * 0); only when two keys are equal (where quicksort's instability decides which copy comes
 * first) does the exact emulation (`npsort.ts`) run. Missing keys go last, in file order.
 */
import type { Column } from "../tabular/csv.js";
import type { TextStore } from "../tabular/textstore.js";
import { compareCodePoints, pandasSortOrder } from "./npsort.js";

/** From this many keys on, radix digits are 16 bits wide (fewer passes, 65536 counters each). */
const WIDE = 1 << 16;
/** Runs of text keys at most this long are sorted by comparing bytes. */
const SMALL_RUN = 32;

/**
 * pandas' order of a column's rows (numpy's default quicksort; `skipIfSorted`: sort_index, which
 * leaves an already non-decreasing index as it is).
 */
export function keyOrder(c: Column, skipIfSorted = false): Int32Array {
  const n = c.text ? c.text.count : c.kind === "text" ? c.strings!.length : c.values!.length;
  const present = new Int32Array(n);
  const missing: number[] = [];
  let count = 0;
  for (let i = 0; i < n; i++) {
    if (isMissing(c, i)) missing.push(i);
    else present[count++] = i;
  }
  const rows = present.subarray(0, count);
  let order: Int32Array, ties: boolean;
  if (c.kind === "text" && c.text) {
    order = Int32Array.from(rows);
    ties = sortText(c.text, c.text.bytes(), order, 0);
  } else {
    order = c.kind === "text" ? stringOrder(c.strings!, rows) : numberOrder(c.values!, rows);
    ties = hasTies(c, order);
  }
  if (ties) return pandasSortOrder(c.kind === "text" ? c.strings! : c.values!, skipIfSorted);
  const out = new Int32Array(n);
  out.set(order);
  for (let k = 0; k < missing.length; k++) out[count + k] = missing[k];
  return out;
}

function isMissing(c: Column, i: number): boolean {
  if (c.kind !== "text") return Number.isNaN(c.values![i]);
  return c.text ? c.text.isMissing(i) : c.strings![i] === null;
}

/** Are two neighbours in a sorted order equal keys? (numbers, or strings without a byte store) */
function hasTies(c: Column, order: Int32Array): boolean {
  if (c.kind !== "text") {
    const v = c.values!;
    for (let p = 1; p < order.length; p++) if (v[order[p]] === v[order[p - 1]]) return true;
    return false;
  }
  const s = c.strings!;
  for (let p = 1; p < order.length; p++) if (s[order[p]] === s[order[p - 1]]) return true;
  return false;
}

/**
 * Sorts idx by the 64-bit unsigned keys (w0 high word, w1 low word) carried alongside it: a
 * stable LSD radix sort whose passes read the three arrays in order (no random access by row),
 * 16-bit digits for large inputs, 8-bit ones for small (where clearing 65536 counters dominates).
 */
function sort64(idx: Int32Array, w0: Uint32Array, w1: Uint32Array): void {
  const n = idx.length;
  const bits = n >= WIDE ? 16 : 8,
    mask = (1 << bits) - 1;
  let I: Int32Array = idx,
    A: Uint32Array = w0,
    B: Uint32Array = w1;
  let I2: Int32Array = new Int32Array(n),
    A2: Uint32Array = new Uint32Array(n),
    B2: Uint32Array = new Uint32Array(n);
  const counts = new Int32Array(1 << bits);
  for (let pass = 0; pass < 64 / bits; pass++) {
    const src = pass * bits < 32 ? B : A,
      shift = (pass * bits) & 31;
    counts.fill(0);
    for (let p = 0; p < n; p++) counts[(src[p] >>> shift) & mask]++;
    // A digit every key shares orders nothing: skip the scatter.
    if (counts[(src[0] >>> shift) & mask] === n) continue;
    let sum = 0;
    for (let d = 0; d < counts.length; d++) {
      const k = counts[d];
      counts[d] = sum;
      sum += k;
    }
    for (let p = 0; p < n; p++) {
      const q = counts[(src[p] >>> shift) & mask]++;
      I2[q] = I[p];
      A2[q] = A[p];
      B2[q] = B[p];
    }
    [I, I2] = [I2, I];
    [A, A2] = [A2, A];
    [B, B2] = [B2, B];
  }
  if (I !== idx) {
    idx.set(I);
    w0.set(A);
    w1.set(B);
  }
}

const f64 = new Float64Array(1),
  u32 = new Uint32Array(f64.buffer);

/** Numbers (no NaN) by value: their bits made unsigned-comparable (negatives flipped), -0 as 0. */
function numberOrder(v: Float64Array, rows: Int32Array): Int32Array {
  const n = rows.length;
  const idx = Int32Array.from(rows),
    hi = new Uint32Array(n),
    lo = new Uint32Array(n);
  for (let p = 0; p < n; p++) {
    const x = v[rows[p]];
    f64[0] = x === 0 ? 0 : x;
    const h = u32[1];
    if (h >>> 31) {
      hi[p] = ~h >>> 0;
      lo[p] = ~u32[0] >>> 0;
    } else {
      hi[p] = (h | 0x80000000) >>> 0;
      lo[p] = u32[0];
    }
  }
  if (n > 1) sort64(idx, hi, lo);
  return idx;
}

/**
 * Text by UTF-8 bytes, most significant first: idx is sorted by its keys' 8 bytes from `off`
 * (bytes past a key's end read 0, below every byte of UTF-8 text, so shorter keys come first),
 * then each run of equal 8-byte chunks by the next 8. Returns true when two keys are equal.
 */
function sortText(t: TextStore, bytes: Buffer, idx: Int32Array, off: number): boolean {
  const starts = t.starts,
    ends = t.ends;
  const n = idx.length;
  if (n <= SMALL_RUN) return insertionSort(starts, ends, bytes, idx, 0, n, off);
  const w0 = new Uint32Array(n),
    w1 = new Uint32Array(n);
  for (let p = 0; p < n; p++) {
    const i = idx[p];
    const s = starts[i] + off,
      e = ends[i];
    let a = 0,
      b = 0;
    for (let k = 0; k < 4; k++) a = (a << 8) | (s + k < e ? bytes[s + k] : 0);
    for (let k = 4; k < 8; k++) b = (b << 8) | (s + k < e ? bytes[s + k] : 0);
    w0[p] = a >>> 0;
    w1[p] = b >>> 0;
  }
  sort64(idx, w0, w1);
  for (let lo = 0; lo < n;) {
    let hi = lo + 1;
    while (hi < n && w0[hi] === w0[lo] && w1[hi] === w1[lo]) hi++;
    if (hi - lo > 1) {
      // Equal chunks of keys that end within them: equal keys (a tie; the caller emulates).
      if (ends[idx[lo]] - starts[idx[lo]] <= off + 8) return true;
      const tie =
        hi - lo <= SMALL_RUN
          ? insertionSort(starts, ends, bytes, idx, lo, hi, off + 8)
          : sortText(t, bytes, idx.subarray(lo, hi), off + 8);
      if (tie) return true;
    }
    lo = hi;
  }
  return false;
}

/**
 * Sorts idx[lo, hi) by the keys' bytes from `off` on (the bytes before are equal); true when two
 * keys are equal.
 */
function insertionSort(
  starts: Int32Array,
  ends: Int32Array,
  bytes: Buffer,
  idx: Int32Array,
  lo: number,
  hi: number,
  off: number,
): boolean {
  let tie = false;
  for (let p = lo + 1; p < hi; p++) {
    const i = idx[p];
    let q = p;
    for (; q > lo; q--) {
      const j = idx[q - 1];
      // Compare key j with key i from off on.
      let a = starts[j] + off,
        b = starts[i] + off;
      const ea = ends[j],
        eb = ends[i];
      while (a < ea && b < eb && bytes[a] === bytes[b]) {
        a++;
        b++;
      }
      const c = a < ea ? (b < eb ? bytes[a] - bytes[b] : 1) : b < eb ? -1 : 0;
      if (c === 0) tie = true;
      if (c <= 0) break;
      idx[q] = j;
    }
    idx[q] = i;
  }
  return tie;
}

/** Strings (no byte store) by code points. */
function stringOrder(s: readonly (string | null)[], rows: Int32Array): Int32Array {
  return Int32Array.from(rows).sort((a, b) => compareCodePoints(s[a]!, s[b]!));
}
