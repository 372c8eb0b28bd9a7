/**
 * The row order pandas gives when sorting by an id column, without emulating numpy's quicksort
 * element by element where that is not needed. When no two present keys are equal, the sorted
 * order is unique: any correct sort gives numpy's. So the keys are sorted by a radix sort (text
 * by UTF-8 bytes, which is code-point order as numpy compares strings; numbers by their IEEE
 * bits, -0 as 0); only when two keys are equal (where quicksort's instability decides which copy
 * comes first) does the exact emulation (`npsort.ts`) run. Missing keys go last, in file order.
 */
import type { Column } from "../tabular/csv.js";
import type { TextStore } from "../tabular/textstore.js";
import { compareCodePoints, pandasSortOrder } from "./npsort.js";

/** Longest id (in bytes) the text radix sort takes; longer ids go through a byte comparison sort. */
const RADIX_MAX_BYTES = 64;
/** From this many keys on, digits are 16 bits wide (fewer passes, 65536+ counters each). */
const WIDE = 1 << 16;

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
  const order =
    c.kind !== "text"
      ? numberOrder(c.values!, rows)
      : c.text
        ? textOrder(c.text, rows)
        : stringOrder(c.strings!, rows);
  if (hasTies(c, order)) return pandasSortOrder(c.kind === "text" ? c.strings! : c.values!, skipIfSorted);
  const out = new Int32Array(n);
  out.set(order);
  for (let k = 0; k < missing.length; k++) out[count + k] = missing[k];
  return out;
}

function isMissing(c: Column, i: number): boolean {
  if (c.kind !== "text") return Number.isNaN(c.values![i]);
  return c.text ? c.text.isMissing(i) : c.strings![i] === null;
}

/** Are two neighbours in a sorted order equal keys? */
function hasTies(c: Column, order: Int32Array): boolean {
  if (c.kind !== "text") {
    const v = c.values!;
    for (let p = 1; p < order.length; p++) if (v[order[p]] === v[order[p - 1]]) return true;
    return false;
  }
  if (c.text) {
    const t = c.text;
    for (let p = 1; p < order.length; p++) if (t.equals(order[p], t, order[p - 1])) return true;
    return false;
  }
  const s = c.strings!;
  for (let p = 1; p < order.length; p++) if (s[order[p]] === s[order[p - 1]]) return true;
  return false;
}

/** A stable LSD radix sort of rows; `digit(row, pass)` in [0, buckets) for passes 0 (least significant) …. */
function radix(
  rows: Int32Array,
  passes: number,
  buckets: number,
  digit: (row: number, pass: number) => number,
): Int32Array {
  let order = Int32Array.from(rows),
    next = new Int32Array(rows.length);
  const counts = new Int32Array(buckets);
  for (let pass = 0; pass < passes; pass++) {
    counts.fill(0);
    for (let p = 0; p < order.length; p++) counts[digit(order[p], pass)]++;
    // A digit every key shares orders nothing: skip the scatter.
    if (order.length > 0 && counts[digit(order[0], pass)] === order.length) continue;
    let sum = 0;
    for (let d = 0; d < buckets; d++) {
      const k = counts[d];
      counts[d] = sum;
      sum += k;
    }
    for (let p = 0; p < order.length; p++) {
      const i = order[p];
      next[counts[digit(i, pass)]++] = i;
    }
    [order, next] = [next, order];
  }
  return order;
}

const f64 = new Float64Array(1),
  u32 = new Uint32Array(f64.buffer);

/** Numbers (no NaN) by value: their bits made unsigned-comparable (negatives flipped), -0 as 0. */
function numberOrder(v: Float64Array, rows: Int32Array): Int32Array {
  const n = v.length;
  const hi = new Uint32Array(n),
    lo = new Uint32Array(n);
  for (let p = 0; p < rows.length; p++) {
    const i = rows[p];
    f64[0] = v[i] === 0 ? 0 : v[i];
    const h = u32[1];
    if (h >>> 31) {
      hi[i] = ~h >>> 0;
      lo[i] = ~u32[0] >>> 0;
    } else {
      hi[i] = (h | 0x80000000) >>> 0;
      lo[i] = u32[0];
    }
  }
  // 16-bit digits for large inputs, 8-bit ones for small (where clearing 65536 counters dominates).
  const bits = rows.length >= WIDE ? 16 : 8,
    mask = (1 << bits) - 1;
  return radix(rows, 64 / bits, 1 << bits, (i, pass) => {
    const shift = pass * bits;
    return ((shift < 32 ? lo[i] : hi[i]) >>> (shift & 31)) & mask;
  });
}

/** Text by UTF-8 bytes, two bytes per pass; a position past an id's end sorts first. */
function textOrder(t: TextStore, rows: Int32Array): Int32Array {
  const starts = t.starts,
    ends = t.ends;
  let width = 0;
  for (let p = 0; p < rows.length; p++) {
    const len = ends[rows[p]] - starts[rows[p]];
    if (len > width) width = len;
  }
  const bytes = t.bytes();
  if (width > RADIX_MAX_BYTES) {
    return Int32Array.from(rows).sort((a, b) => bytes.compare(bytes, starts[b], ends[b], starts[a], ends[a]));
  }
  // Digit per byte: 0 past the end (shorter ids first), else byte + 1; two bytes per pass (base
  // 257) for large inputs, one for small.
  if (rows.length < WIDE) {
    return radix(rows, width, 257, (i, pass) => {
      const a = starts[i] + width - 1 - pass;
      return a < ends[i] ? bytes[a] + 1 : 0;
    });
  }
  const passes = (width + 1) >> 1;
  return radix(rows, passes, 257 * 257, (i, pass) => {
    const a = starts[i] + 2 * (passes - 1 - pass),
      e = ends[i];
    return (a < e ? bytes[a] + 1 : 0) * 257 + (a + 1 < e ? bytes[a + 1] + 1 : 0);
  });
}

/** Strings (no TextStore) by code points. */
function stringOrder(s: readonly (string | null)[], rows: Int32Array): Int32Array {
  return Int32Array.from(rows).sort((a, b) => compareCodePoints(s[a]!, s[b]!));
}
