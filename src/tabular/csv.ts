/**
 * A streaming CSV reader with pandas `read_csv` defaults (see docs/grading.md):
 * comma separator, `"` quotes with `""` escapes, CRLF/LF/CR line ends, leading BOM ignored,
 * blank lines skipped, pandas' NA tokens, duplicate header names renamed `name.1`, …, and a
 * per-column type (int, float, bool, text) inferred over the whole file.
 *
 * The file is read in chunks; numeric columns go straight into Float64Arrays and only text
 * columns keep strings. A column that turns out to be text after numeric-looking rows is
 * filled by a second pass over the file, so no object is ever built per row.
 */
import { openSync, readSync, closeSync, fstatSync, statSync } from "node:fs";
import { isUtf8 } from "node:buffer";
import { CsvError } from "./errors.js";
import { TextStore } from "./textstore.js";
import { decimalToDouble } from "./decimal.js";
import { IntPasses, bigIntKind, type BigIntKind } from "./intpasses.js";

export { CsvError, TextStore };

export type ColumnKind = "int" | "float" | "bool" | "text";

export interface Column {
  name: string;
  kind: ColumnKind;
  /** int/float/bool columns: the values (bool as 1/0), NaN where missing. */
  values: Float64Array | null;
  /** text columns: the original strings, null where missing (made on first use). */
  readonly strings: (string | null)[] | null;
  /** text columns: the same cells as UTF-8 bytes. */
  text?: TextStore;
}

/** A text column whose strings are only made when first read. */
function textColumn(name: string, store: TextStore): Column {
  let cache: (string | null)[] | null = null;
  return {
    name,
    kind: "text",
    values: null,
    text: store,
    get strings() {
      cache ??= store.strings();
      return cache;
    },
  };
}

export class Table {
  constructor(
    /** Column names after de-duplication, in file order (including columns not kept). */
    readonly names: string[],
    readonly columns: Column[],
    readonly rowCount: number,
  ) {}

  column(name: string): Column | undefined {
    return this.columns.find((c) => c.name === name);
  }

  has(name: string): boolean {
    return this.names.includes(name);
  }
}

export interface ReadOptions {
  /** Which columns to materialise (by de-duplicated name and position); all when absent. */
  keep?: (name: string, index: number) => boolean;
  /** Bytes per read (default 4 MiB). */
  chunkSize?: number;
  /** Longest line accepted, in bytes (default 16 MiB). */
  maxLineBytes?: number;
  /** Stop with a CsvError past this many data rows (a submission longer than the answers). */
  maxRows?: number;
}

export const NA_TOKENS = new Set([
  "",
  "#N/A",
  "#N/A N/A",
  "#NA",
  "-1.#IND",
  "-1.#QNAN",
  "-NaN",
  "-nan",
  "1.#IND",
  "1.#QNAN",
  "<NA>",
  "N/A",
  "NA",
  "NULL",
  "NaN",
  "None",
  "n/a",
  "nan",
  "null",
]);
// pandas' C parser: booleans and infinities match case-insensitively, without spaces.
const SPECIAL_FLOAT = /^([+-]?)(inf|infinity)$/i;
const NUMBER_TEXT = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

const QUOTE = 0x22,
  COMMA = 0x2c,
  LF = 0x0a,
  CR = 0x0d,
  SPACE = 0x20,
  TAB = 0x09;
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

// Result of parsing a cell as a number: the value goes in `numValue`.
const NOT_NUMBER = 0,
  IS_INT = 1,
  IS_FLOAT = 2;
let numValue = 0;
/** For an integer outside int64, its class (pandas' integer passes decide the column's type); else null. */
let numBig: BigIntKind | null = null;

/** Parses bytes [s, e) as a pandas number; fast exact path for ≤15 digits, else Number(). */
function parseNumber(b: Buffer, s: number, e: number): number {
  while (s < e && (b[s] === SPACE || b[s] === TAB)) s++;
  while (e > s && (b[e - 1] === SPACE || b[e - 1] === TAB)) e--;
  numBig = null;
  if (s >= e) return NOT_NUMBER;
  const start = s;
  let neg = false;
  if (b[s] === 0x2b || b[s] === 0x2d) {
    neg = b[s] === 0x2d;
    s++;
  }
  let hi = 0,
    low = 0,
    sig = 0,
    lowDigits = 0,
    intDigits = 0,
    fracDigits = 0,
    exact = true;
  let isInt = true;
  for (;;) {
    while (s < e && b[s] >= 0x30 && b[s] <= 0x39) {
      const d = b[s] - 0x30;
      if (isInt) intDigits++;
      else fracDigits++;
      if (sig < 15) {
        if (sig > 0 || d > 0) {
          hi = hi * 10 + d;
          sig++;
        }
      } else {
        if (sig < 19) {
          low = low * 10 + d;
          lowDigits++;
        }
        sig++;
      }
      s++;
    }
    if (isInt && s < e && b[s] === 0x2e) {
      isInt = false;
      s++;
      continue;
    }
    break;
  }
  if (intDigits + fracDigits === 0) return NOT_NUMBER;
  let exp = 0;
  if (s < e && (b[s] === 0x65 || b[s] === 0x45)) {
    isInt = false;
    s++;
    let eneg = false;
    if (s < e && (b[s] === 0x2b || b[s] === 0x2d)) {
      eneg = b[s] === 0x2d;
      s++;
    }
    const es = s;
    while (s < e && b[s] >= 0x30 && b[s] <= 0x39) {
      exp = exp * 10 + (b[s] - 0x30);
      s++;
      if (exp > 1e6) exact = false;
    }
    if (s === es) return NOT_NUMBER;
    if (eneg) exp = -exp;
  }
  if (s !== e) return NOT_NUMBER;
  // Up to 15 significant digits are exact, and one multiplication or division by an exact
  // power of ten is correctly rounded (Clinger's fast path); up to 19 go through
  // double-double arithmetic; otherwise Number() decides.
  const scale = exp - fracDigits;
  if (exact && scale >= -22 && scale <= 22 && sig <= 19) {
    const v =
      sig <= 15
        ? scale >= 0
          ? hi * POW10[scale]
          : hi / POW10[-scale]
        : decimalToDouble(hi, low, lowDigits, scale);
    if (!Number.isNaN(v)) {
      numValue = neg ? -v : v;
      if (!isInt || intDigits <= 18) return isInt ? IS_INT : IS_FLOAT;
    }
  }
  const text = b.toString("latin1", start, e);
  numValue = Number(text);
  // Outside int64 the column's type depends on the order of its cells (see intpasses.ts).
  if (isInt && intDigits > 18) numBig = bigIntKind(text);
  // Overflow: pandas' round-trip parser flags only +HUGE_VAL as an error, so `1e400` stays text
  // while `-1e400` is -inf.
  if (numValue === Infinity) return NOT_NUMBER;
  return isInt ? IS_INT : IS_FLOAT;
}

/** Bytes [s, e) as a string; ASCII takes the cheaper latin1 path. */
function text(b: Buffer, s: number, e: number): string {
  for (let i = s; i < e; i++) if (b[i] >= 0x80) return b.toString("utf8", s, e);
  return b.toString("latin1", s, e);
}

/** Decodes a raw field: strips the quoting pandas-style (`"a""b"c` → `a"bc`). */
function decodeField(b: Buffer, s: number, e: number, complex: boolean): string {
  if (!complex) return text(b, s, e);
  let out = "";
  let i = s;
  if (b[i] === QUOTE) {
    i++;
    let segStart = i;
    for (;;) {
      if (i >= e) {
        out += b.toString("utf8", segStart, e);
        return out;
      }
      if (b[i] === QUOTE) {
        out += b.toString("utf8", segStart, i);
        if (i + 1 < e && b[i + 1] === QUOTE) {
          out += '"';
          i += 2;
          segStart = i;
          continue;
        }
        i++;
        break;
      }
      i++;
    }
  }
  return out + b.toString("utf8", i, e);
}

/** pandas' renaming of duplicate header names (`a`, `a` → `a`, `a.1`) and blank ones. */
export function dedupeNames(raw: string[]): string[] {
  const names = raw.map((n, i) => (n === "" ? `Unnamed: ${i}` : n));
  const counts = new Map<string, number>();
  return names.map((name) => {
    let col = name;
    let count = counts.get(col) ?? 0;
    while (count > 0) {
      counts.set(col, count + 1);
      col = `${col}.${count}`;
      count = counts.get(col) ?? 0;
    }
    counts.set(col, count + 1);
    return col;
  });
}

/** Headers wider than this are rejected (no lite competition has more than 121 columns). */
const MAX_COLUMNS = 1_000_000;

const EMPTY = 0,
  NUM = 1,
  BOOL = 2,
  TEXT = 3;

class ColumnBuilder {
  state = EMPTY;
  sawFloat = false;
  sawMissing = false;
  values = new Float64Array(64);
  text: TextStore | null = null;
  /** Rows before this one must be re-read as strings (second pass); -1 when not needed. */
  backfillUntil = -1;
  /** Integers outside int64 seen while numeric (their order decides the type). */
  readonly passes = new IntPasses();
  /** The second pass keeps missing-value tokens as text (pandas' uint64 conflict). */
  keepNaTokens = false;
  constructor(readonly name: string) {}

  /** Grows the value array to hold `rows` rows at once (avoids repeated doubling). */
  reserve(rows: number): void {
    if (this.state === TEXT) {
      this.text!.reserve(rows);
      return;
    }
    if (rows <= this.values.length) return;
    const bigger = new Float64Array(rows);
    bigger.set(this.values);
    this.values = bigger;
  }

  setValue(row: number, v: number): void {
    if (row >= this.values.length) {
      const bigger = new Float64Array(Math.max(this.values.length * 2, row + 1));
      bigger.set(this.values);
      this.values = bigger;
    }
    this.values[row] = v;
  }

  /** A number cell outside int64 in a numeric column. */
  noteBig(kind: BigIntKind): void {
    this.passes.big(kind, this.sawFloat);
  }

  /** After the first pass: the type pandas gives a numeric column with integers outside int64. */
  settleBigInts(rows: number): void {
    if (this.state !== NUM || !this.passes.any) return;
    let negative = false;
    for (let i = 0; i < rows && !negative; i++) {
      const v = this.values[i];
      negative = v < 0 || Object.is(v, -0);
    }
    const outcome = this.passes.outcome(this.sawFloat, this.sawMissing, negative);
    if (outcome === "float") this.sawFloat = true;
    else if (outcome !== "usual") {
      this.toText(rows);
      this.keepNaTokens = outcome === "text-keep-na";
    }
  }

  toText(row: number): void {
    if (this.state !== EMPTY) this.backfillUntil = row;
    this.text = new TextStore();
    this.text.padTo(row);
    this.state = TEXT;
  }

  finish(rows: number): Column {
    if (this.state === TEXT) {
      this.text!.trim(rows);
      return textColumn(this.name, this.text!);
    }
    // A view when the spare capacity is small (the row-count estimate was good), else a copy.
    const values =
      this.values.length <= rows * 1.25 + 1024 ? this.values.subarray(0, rows) : this.values.slice(0, rows);
    if (this.state === BOOL) return { name: this.name, kind: "bool", values, strings: null };
    if (this.state === EMPTY) {
      // pandas: an all-missing column is float; a column with no rows at all is text (object).
      if (rows === 0) return textColumn(this.name, new TextStore(0));
      return { name: this.name, kind: "float", values: values.fill(NaN), strings: null };
    }
    const kind = this.sawFloat || this.sawMissing ? "float" : "int";
    // All-integer columns are parsed as int64 first, where "-0" is 0.
    if (!this.sawFloat) for (let i = 0; i < values.length; i++) if (values[i] === 0) values[i] = 0;
    return { name: this.name, kind, values, strings: null };
  }
}

/** Receives complete rows as field boundaries into the current buffer. */
type RowSink = (
  buf: Buffer,
  starts: Int32Array,
  ends: Int32Array,
  complex: Uint8Array,
  count: number,
  nums: Float64Array,
) => void;

/** `complex` flag values: 0 plain, 1 needs unquoting; 2/3 plain and already parsed as int/float into nums. */
const PARSED_INT = 2,
  PARSED_FLOAT = 3;

/** Splits byte chunks into rows (quote-aware), skipping blank lines; calls sink per row. */
class Tokenizer {
  private rest: Buffer = Buffer.alloc(0);
  private starts = new Int32Array(64);
  private ends = new Int32Array(64);
  private complex = new Uint8Array(64);
  private nums = new Float64Array(64);
  /** Bytes of the rows emitted so far (for estimating the row count). */
  rowBytes = 0;
  /** Field positions (1 = skip) whose cells are dropped: no number is parsed for them. */
  dropped: Uint8Array | null = null;
  private first = true;
  private utf8Tail: Buffer = Buffer.alloc(0);
  private bytesSeen = 0;

  constructor(
    private readonly sink: RowSink,
    private readonly source: string,
    private readonly maxLineBytes: number,
  ) {}

  private head: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): void {
    if (this.first) {
      // Hold the first bytes until a BOM can be recognised.
      chunk = this.head.length ? Buffer.concat([this.head, chunk]) : chunk;
      if (chunk.length < 3) {
        this.head = Buffer.from(chunk);
        return;
      }
      this.first = false;
      this.head = Buffer.alloc(0);
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) {
        chunk = chunk.subarray(3);
        this.bytesSeen = 3; // offsets count from the file's first byte
      }
    }
    this.checkText(chunk, false);
    const buf = this.rest.length ? this.join(chunk) : chunk;
    const used = this.scan(buf, false);
    this.rest = Buffer.from(buf.subarray(used));
    if (this.rest.length > this.maxLineBytes) {
      throw new CsvError(
        `${this.source}: a line is longer than ${this.maxLineBytes} bytes (not a CSV file?)`,
      );
    }
  }

  /**
   * The unscanned bytes of the last chunk followed by `chunk`: the row they start is finished
   * from the chunk's first line on its own, so the chunk itself is not copied (unless that line
   * ends inside quotes: then the rows already emitted are dropped and the rest is joined).
   */
  private join(chunk: Buffer): Buffer {
    const lf = chunk.indexOf(LF);
    if (lf === -1) return Buffer.concat([this.rest, chunk]);
    const joint = Buffer.concat([this.rest, chunk.subarray(0, lf + 1)]);
    const used = this.scan(joint, false);
    const after = chunk.subarray(lf + 1);
    return used === joint.length ? after : Buffer.concat([joint.subarray(used), after]);
  }

  end(): void {
    if (this.first && this.head.length) {
      const head = this.head;
      this.first = false;
      this.head = Buffer.alloc(0);
      this.push(head);
    }
    this.checkText(Buffer.alloc(0), true);
    if (this.rest.length) this.scan(this.rest, true);
    this.rest = Buffer.alloc(0);
  }

  /** Rejects NUL bytes and invalid UTF-8 (checked line-feed to line-feed, so no character is split). */
  private checkText(chunk: Buffer, final: boolean): void {
    if (chunk.indexOf(0) !== -1) {
      throw new CsvError(`${this.source}: contains NUL bytes (a binary file, not a CSV)`);
    }
    // The offset of the first bad byte, counted from the start of the file.
    const bad = (segment: Buffer, base: number) =>
      new CsvError(
        `${this.source}: not valid UTF-8 text (at byte offset ${base + firstInvalidUtf8(segment)})`,
      );
    if (final) {
      if (!isUtf8(this.utf8Tail)) throw bad(this.utf8Tail, this.bytesSeen);
      this.utf8Tail = Buffer.alloc(0);
      return;
    }
    const firstLf = chunk.indexOf(LF);
    if (firstLf === -1) {
      this.utf8Tail = Buffer.concat([this.utf8Tail, chunk]);
    } else {
      const lastLf = chunk.lastIndexOf(LF);
      const head = Buffer.concat([this.utf8Tail, chunk.subarray(0, firstLf + 1)]);
      if (!isUtf8(head)) throw bad(head, this.bytesSeen);
      const body = chunk.subarray(firstLf + 1, lastLf + 1);
      if (!isUtf8(body)) throw bad(body, this.bytesSeen + head.length);
      this.bytesSeen += this.utf8Tail.length + lastLf + 1;
      this.utf8Tail = Buffer.from(chunk.subarray(lastLf + 1));
    }
    if (this.utf8Tail.length > this.maxLineBytes) {
      throw new CsvError(
        `${this.source}: a line is longer than ${this.maxLineBytes} bytes (not a CSV file?)`,
      );
    }
  }

  private grow(): void {
    const n = this.starts.length * 2;
    const s = new Int32Array(n);
    s.set(this.starts);
    this.starts = s;
    const e = new Int32Array(n);
    e.set(this.ends);
    this.ends = e;
    const c = new Uint8Array(n);
    c.set(this.complex);
    this.complex = c;
    const v = new Float64Array(n);
    v.set(this.nums);
    this.nums = v;
  }

  /** Emits every complete row of buf; returns the offset of the first unconsumed byte. */
  private scan(b: Buffer, final: boolean): number {
    const n = b.length;
    let i = 0;
    let starts = this.starts,
      ends = this.ends,
      cplx = this.complex,
      nums = this.nums;
    const dropped = this.dropped;
    for (;;) {
      // Skip blank and whitespace-only lines.
      let j = i;
      while (j < n && (b[j] === SPACE || b[j] === TAB)) j++;
      if (j < n && (b[j] === LF || b[j] === CR)) {
        i = j + 1;
        continue;
      }
      if (j >= n) return final ? n : i;
      const rowStart = i;
      let count = 0;
      let pos = i;
      let complete = false;
      for (;;) {
        // Runs of single-digit cells ("0,1,0,…", one-hot answers) in a tight loop; the same
        // record as the general path below makes for them.
        while (pos + 1 < n && count < starts.length) {
          const d = b[pos] - 0x30;
          if (d < 0 || d > 9 || b[pos + 1] !== COMMA) break;
          starts[count] = pos;
          ends[count] = pos + 1;
          cplx[count] = PARSED_INT;
          nums[count] = d;
          count++;
          pos += 2;
        }
        if (count >= starts.length) {
          this.grow();
          starts = this.starts;
          ends = this.ends;
          cplx = this.complex;
          nums = this.nums;
        }
        const fs = pos;
        let cx = 0;
        if (pos < n && b[pos] === QUOTE) {
          // Quoted part, then anything up to the delimiter is literal.
          cx = 1;
          pos++;
          let closed = false;
          while (pos < n) {
            if (b[pos] === QUOTE) {
              if (pos + 1 < n && b[pos + 1] === QUOTE) {
                cx = 2;
                pos += 2;
                continue;
              }
              if (pos + 1 >= n && !final) break; // might be an escaped quote across chunks
              pos++;
              closed = true;
              break;
            }
            pos++;
          }
          if (!closed) {
            if (!final) return rowStart;
            throw new CsvError(`${this.source}: a quoted field is never closed (end of file inside quotes)`);
          }
        }
        // Fused fast path for plain decimals (-?digits[.digits], mantissa ≤ 2^53): parsed while
        // scanning, so the common numeric cell is read once. Anything else is left to parseNumber.
        let parsed = 0,
          numEnd = -1,
          value = 0;
        const d0 = pos < n ? b[pos] - 0x30 : -1,
          next = pos + 1 < n ? b[pos + 1] : -1;
        if (cx === 0 && d0 >= 0 && d0 <= 9 && (next === COMMA || next === LF || next === CR)) {
          // A single digit (0/1 labels, one-hot answers): no number machinery.
          parsed = PARSED_INT;
          value = d0;
          pos++;
          numEnd = pos;
        } else if (cx === 0 && (dropped === null || count >= dropped.length || dropped[count] === 0)) {
          // Up to 15 significant digits in hi (exact), the next 4 in low; more → parseNumber.
          let q = pos,
            neg = false,
            hi = 0,
            low = 0,
            sig = 0,
            lowDigits = 0,
            any = 0,
            frac = 0,
            d = 0;
          if (q < n && b[q] === 0x2d) {
            neg = true;
            q++;
          }
          let isInt = true;
          if (q + 1 < n && b[q] === 0x30 && b[q + 1] === 0x2e) {
            // "0.ddd" (probabilities): skip the leading zeros, then bounded loops for the first
            // 15 significant digits, the next 4 and the rest, without per-digit bookkeeping.
            isInt = false;
            any = 1;
            q += 2;
            const fs = q;
            while (q < n && b[q] === 0x30) q++;
            const fz = q;
            const lim = fz + 15 < n ? fz + 15 : n;
            while (q < lim) {
              d = b[q] - 0x30;
              if (d < 0 || d > 9) break;
              hi = hi * 10 + d;
              q++;
            }
            if (q === fz + 15) {
              const lim2 = fz + 19 < n ? fz + 19 : n;
              while (q < lim2) {
                d = b[q] - 0x30;
                if (d < 0 || d > 9) break;
                low = low * 10 + d;
                q++;
              }
              lowDigits = q - fz - 15;
              while (q < n) {
                d = b[q] - 0x30;
                if (d < 0 || d > 9) break;
                q++;
              }
            }
            sig = q - fz;
            frac = q - fs;
          } else
            for (;;) {
              const q0 = q;
              while (q < n) {
                d = b[q] - 0x30;
                if (d < 0 || d > 9) break;
                if (sig < 15) {
                  if (sig > 0 || d > 0) {
                    hi = hi * 10 + d;
                    sig++;
                  }
                } else {
                  if (sig < 19) {
                    low = low * 10 + d;
                    lowDigits++;
                  }
                  sig++;
                }
                q++;
              }
              any += q - q0;
              if (!isInt) frac += q - q0;
              if (isInt && q < n && b[q] === 0x2e) {
                isInt = false;
                q++;
                continue;
              }
              break;
            }
          // Integers of 19+ digits may lie outside int64: parseNumber classifies them.
          if (any > 0 && frac <= 22 && (!isInt || sig <= 18)) {
            if (sig <= 15) value = frac === 0 ? hi : hi / POW10[frac];
            else value = sig <= 19 ? decimalToDouble(hi, low, lowDigits, -frac) : NaN;
            if (!Number.isNaN(value)) {
              if (neg) value = -value;
              parsed = isInt ? PARSED_INT : PARSED_FLOAT;
              numEnd = q;
            }
          }
          pos = q;
        }
        while (pos < n && b[pos] !== COMMA && b[pos] !== LF && b[pos] !== CR) {
          if (cx === 1) cx = 2;
          pos++;
        }
        if (cx === 1) {
          starts[count] = fs + 1;
          ends[count] = pos - 1;
          cplx[count] = 0;
        } else if (parsed !== 0 && pos === numEnd && (pos < n || final)) {
          starts[count] = fs;
          ends[count] = pos;
          cplx[count] = parsed;
          nums[count] = value;
        } else {
          starts[count] = fs;
          ends[count] = pos;
          cplx[count] = cx === 2 ? 1 : 0;
        }
        count++;
        if (pos >= n) {
          if (!final) return rowStart;
          complete = true;
          i = n;
          break;
        }
        if (b[pos] === COMMA) {
          pos++;
          continue;
        }
        if (b[pos] === CR) {
          if (pos + 1 >= n && !final) return rowStart; // \r\n split across chunks
          pos += pos + 1 < n && b[pos + 1] === LF ? 2 : 1;
        } else pos++;
        complete = true;
        i = pos;
        break;
      }
      this.rowBytes += i - rowStart;
      if (complete) this.sink(b, starts, ends, cplx, count, nums);
      if (i >= n) return n;
    }
  }
}

/** Index of the first byte of `b` that is not part of a valid UTF-8 sequence (b.length if none). */
export function firstInvalidUtf8(b: Buffer): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i];
    let n: number, min: number;
    if (c < 0x80) {
      i++;
      continue;
    } else if (c >= 0xc2 && c <= 0xdf) [n, min] = [1, 0x80];
    else if (c >= 0xe0 && c <= 0xef) [n, min] = [2, 0x800];
    else if (c >= 0xf0 && c <= 0xf4) [n, min] = [3, 0x10000];
    else return i;
    if (i + n >= b.length) return i; // cut short
    let cp = c & (0x3f >> n);
    for (let k = 1; k <= n; k++) {
      const d = b[i + k];
      if ((d & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (d & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return b.length;
}

type ChunkSource = (visit: (chunk: Buffer) => boolean | void) => void;

function fileSource(path: string, chunkSize: number): ChunkSource {
  return (visit) => {
    let fd: number;
    try {
      fd = openSync(path, "r");
    } catch (e) {
      throw new CsvError(`cannot open ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) throw new CsvError(`${path} is not a regular file`);
      const size = Math.max(1, Math.min(chunkSize, st.size + 1));
      // One buffer for every read: the tokenizer copies what it keeps of a chunk, and memory
      // already touched is much cheaper than a fresh allocation per chunk.
      const chunk = Buffer.allocUnsafe(size);
      for (;;) {
        const got = readSync(fd, chunk, 0, size, null);
        if (got === 0) break;
        if (visit(chunk.subarray(0, got)) === false) break;
      }
    } finally {
      closeSync(fd);
    }
  };
}

function bufferSource(buf: Buffer, chunkSize: number): ChunkSource {
  return (visit) => {
    for (let i = 0; i < buf.length; i += chunkSize)
      if (visit(buf.subarray(i, i + chunkSize)) === false) break;
  };
}

class StopReading extends Error {}

function readFrom(source: ChunkSource, name: string, opts: ReadOptions, totalBytes: number): Table {
  const maxLine = opts.maxLineBytes ?? 16 * 1024 * 1024;
  let names: string[] | null = null;
  let builders: (ColumnBuilder | null)[] = [];
  let row = 0;
  // pandas: extra fields on the first data row (beyond the header) become index columns, dropped here.
  let offset = -1;

  const sink: RowSink = (b, starts, ends, complex, count, nums) => {
    if (names === null) {
      const raw: string[] = [];
      for (let k = 0; k < count; k++) raw.push(decodeField(b, starts[k], ends[k], complex[k] === 1));
      if (raw.length > MAX_COLUMNS) throw new CsvError(`${name}: more than ${MAX_COLUMNS} columns`);
      names = dedupeNames(raw);
      builders = names.map((nm, k) => (opts.keep && !opts.keep(nm, k) ? null : new ColumnBuilder(nm)));
      return;
    }
    if (opts.maxRows !== undefined && row >= opts.maxRows) {
      throw new CsvError(`${name}: more than ${opts.maxRows} data rows (the answers have ${opts.maxRows})`);
    }
    if (offset === -1) {
      offset = Math.max(0, count - names.length);
      if (opts.keep) tok.dropped = droppedFields(builders, offset);
    }
    if (row === 2048 && totalBytes > 0) {
      // Size the value arrays once from the bytes per row so far.
      const estimate = Math.ceil((totalBytes / (tok.rowBytes / 2049)) * 1.05) + 16;
      for (const c of builders) c?.reserve(Math.min(estimate, opts.maxRows ?? estimate));
    }
    if (count - offset > names.length) {
      throw new CsvError(`${name}: expected ${names.length} fields on data row ${row + 1}, saw ${count}`);
    }
    // Locals, not closure variables, in the per-cell loop.
    const bs = builders,
      r = row,
      off = offset;
    for (let k = 0; k < bs.length; k++) {
      const col = bs[k];
      if (col === null) continue;
      const at = k + off;
      if (at >= count) {
        // short row: missing cells
        col.sawMissing = true;
        if (col.state === TEXT) col.text!.setMissing(r);
        else col.setValue(r, NaN);
        continue;
      }
      const f = complex[at];
      if (f >= PARSED_INT) {
        const state = col.state;
        if (state === NUM || state === EMPTY) {
          // Already parsed by the tokenizer.
          if (state === EMPTY) col.state = NUM;
          if (f === PARSED_FLOAT) col.sawFloat = true;
          const values = col.values;
          if (r < values.length) values[r] = nums[at];
          else col.setValue(r, nums[at]);
          continue;
        }
      }
      cell(col, r, b, starts[at], ends[at], f === 1);
    }
    row++;
  };

  const tok = new Tokenizer(sink, name, maxLine);
  source((chunk) => tok.push(chunk));
  tok.end();
  if (names === null) throw new CsvError(`${name}: the file is empty (no header row)`);
  const finalNames: string[] = names;

  for (const c of builders) c?.settleBigInts(row);
  // Second pass: original strings of rows read before a column turned out to be text.
  const backfill = builders.filter((c): c is ColumnBuilder => c !== null && c.backfillUntil > 0);
  if (backfill.length) {
    const index = backfill.map((c) => builders.indexOf(c));
    const until = Math.max(...backfill.map((c) => c.backfillUntil));
    let header = true;
    let r = 0;
    const sink2: RowSink = (b, starts, ends, complex, count) => {
      if (header) {
        header = false;
        return;
      }
      if (r >= until) throw new StopReading();
      for (let q = 0; q < backfill.length; q++) {
        const col = backfill[q],
          k = index[q] + offset;
        if (r >= col.backfillUntil || k >= count) continue;
        const s = decodeField(b, starts[k], ends[k], complex[k] === 1);
        if (NA_TOKENS.has(s) && !col.keepNaTokens) col.text!.setMissing(r);
        else col.text!.setString(r, s);
      }
      r++;
    };
    const tok2 = new Tokenizer(sink2, name, maxLine);
    try {
      source((chunk) => tok2.push(chunk));
      tok2.end();
    } catch (e) {
      if (!(e instanceof StopReading)) throw e;
    }
  }

  const columns = builders.filter((c): c is ColumnBuilder => c !== null).map((c) => c.finish(row));
  return new Table(finalNames, columns, row);
}

/** 1 for each field position whose column is not kept (index columns included). */
function droppedFields(builders: (ColumnBuilder | null)[], offset: number): Uint8Array {
  const dropped = new Uint8Array(offset + builders.length).fill(1, 0, offset);
  for (let k = 0; k < builders.length; k++) if (builders[k] === null) dropped[k + offset] = 1;
  return dropped;
}

function specialValue(m: RegExpExecArray): number {
  return m[1] === "-" ? -Infinity : Infinity;
}

function cell(col: ColumnBuilder, row: number, b: Buffer, s: number, e: number, complex: boolean): void {
  // A text column keeps any long plain cell as is: no number parsing (NA tokens are ≤ 9 bytes).
  if (!complex && col.state === TEXT && e - s > 9) {
    col.text!.setBytes(row, b, s, e);
    return;
  }
  if (!complex) {
    const kind = parseNumber(b, s, e);
    if (kind !== NOT_NUMBER) {
      if (col.state === TEXT) {
        col.text!.setBytes(row, b, s, e);
        return;
      }
      if (col.state === BOOL) {
        col.toText(row);
        col.text!.setBytes(row, b, s, e);
        return;
      }
      col.state = NUM;
      if (kind === IS_FLOAT) col.sawFloat = true;
      else if (numBig !== null) col.noteBig(numBig);
      col.setValue(row, numValue);
      return;
    }
  }
  // NA, boolean and infinity tokens are at most 9 bytes: longer plain fields are text as is.
  if (!complex && e - s > 9) {
    if (col.state !== TEXT) col.toText(row);
    col.text!.setBytes(row, b, s, e);
    return;
  }
  const str = decodeField(b, s, e, complex);
  if (NA_TOKENS.has(str)) {
    col.sawMissing = true;
    if (col.state === TEXT) col.text!.setMissing(row);
    else col.setValue(row, NaN);
    return;
  }
  if (col.state === TEXT) {
    col.text!.setString(row, str);
    return;
  }
  if (complex && NUMBER_TEXT.test(str)) {
    const kind = parseNumber(Buffer.from(str, "latin1"), 0, str.length);
    if (kind !== NOT_NUMBER) {
      if (col.state === BOOL) {
        col.toText(row);
        col.text!.setString(row, str);
        return;
      }
      col.state = NUM;
      if (kind === IS_FLOAT) col.sawFloat = true;
      else if (numBig !== null) col.noteBig(numBig);
      col.setValue(row, numValue);
      return;
    }
  }
  const special = SPECIAL_FLOAT.exec(str);
  if (special) {
    if (col.state === BOOL) {
      col.toText(row);
      col.text!.setString(row, str);
      return;
    }
    col.state = NUM;
    col.sawFloat = true;
    col.setValue(row, specialValue(special));
    return;
  }
  const lower = str.length === 4 || str.length === 5 ? str.toLowerCase() : "";
  const isTrue = lower === "true";
  if (isTrue || lower === "false") {
    if (col.state === NUM) {
      col.toText(row);
      col.text!.setString(row, str);
      return;
    }
    col.state = BOOL;
    col.setValue(row, isTrue ? 1 : 0);
    return;
  }
  col.toText(row);
  col.text!.setString(row, str);
}

/** Reads a CSV file in chunks. Throws CsvError with a plain reason on malformed input. */
export function readCsvFile(path: string, opts: ReadOptions = {}): Table {
  let size = 0;
  try {
    size = statSync(path).size;
  } catch {
    // fileSource reports the problem
  }
  return readFrom(fileSource(path, opts.chunkSize ?? 4 * 1024 * 1024), path, opts, size);
}

/** Reads CSV text held in memory (tests, small files). */
export function readCsvText(text: string | Buffer, source = "csv", opts: ReadOptions = {}): Table {
  const buf = typeof text === "string" ? Buffer.from(text, "utf8") : text;
  return readFrom(bufferSource(buf, opts.chunkSize ?? 4 * 1024 * 1024), source, opts, buf.length);
}

/** How pandas reads one cell's text (quotes already removed): its kind and, for numbers and bools, its value. */
export type CellKind = "missing" | "int" | "float" | "bool" | "text";

/**
 * `big` classes an integer outside int64: such a cell alone does not decide the column's type
 * (see intpasses.ts).
 */
export function classifyCell(str: string): { kind: CellKind; value: number; big?: BigIntKind } {
  if (NA_TOKENS.has(str)) return { kind: "missing", value: NaN };
  if (NUMBER_TEXT.test(str)) {
    const kind = parseNumber(Buffer.from(str, "latin1"), 0, str.length);
    if (kind === IS_INT && numBig !== null) return { kind: "int", value: numValue, big: numBig };
    if (kind !== NOT_NUMBER) return { kind: kind === IS_INT ? "int" : "float", value: numValue };
  }
  const special = SPECIAL_FLOAT.exec(str);
  if (special) return { kind: "float", value: specialValue(special) };
  const lower = str.length === 4 || str.length === 5 ? str.toLowerCase() : "";
  if (lower === "true" || lower === "false") return { kind: "bool", value: lower === "true" ? 1 : 0 };
  return { kind: "text", value: NaN };
}

/**
 * The records of CSV text as strings, split as the reader splits them (pandas rules: a leading BOM
 * dropped, blank lines skipped, quotes only at the start of a field, `""` inside quotes).
 */
export function parseCsvRows(text: string | Buffer, source = "csv"): string[][] {
  const rows: string[][] = [];
  const tok = new Tokenizer(
    (b, starts, ends, complex, count) => {
      const row: string[] = new Array<string>(count);
      for (let k = 0; k < count; k++) row[k] = decodeField(b, starts[k], ends[k], complex[k] === 1);
      rows.push(row);
    },
    source,
    Number.MAX_SAFE_INTEGER,
  );
  tok.push(typeof text === "string" ? Buffer.from(text, "utf8") : text);
  tok.end();
  return rows;
}

/**
 * Checks a CSV stream chunk by chunk without keeping its rows (the format-check endpoint): the
 * header's column names, the row count, and the first structural problem (CsvError) — the same
 * tokenizer and limits as grading. Feed chunks with push(), then call end().
 */
export class CsvChecker {
  names: string[] | null = null;
  rows = 0;
  private offset = 0;
  private readonly tok: Tokenizer;

  constructor(source = "csv", opts: { maxRows?: number; maxLineBytes?: number } = {}) {
    this.tok = new Tokenizer(
      (b, starts, ends, complex, count) => {
        if (this.names === null) {
          const raw: string[] = [];
          for (let k = 0; k < count; k++) raw.push(decodeField(b, starts[k], ends[k], complex[k] === 1));
          if (raw.length > MAX_COLUMNS) throw new CsvError(`${source}: more than ${MAX_COLUMNS} columns`);
          this.names = dedupeNames(raw);
          return;
        }
        // As the reader: extra fields on the first data row are index columns.
        if (this.rows === 0) this.offset = Math.max(0, count - this.names.length);
        if (count - this.offset > this.names.length)
          throw new CsvError(
            `${source}: expected ${this.names.length} fields on data row ${this.rows + 1}, saw ${count}`,
          );
        this.rows++;
        if (opts.maxRows !== undefined && this.rows > opts.maxRows)
          throw new CsvError(`${source}: more than ${opts.maxRows} data rows`);
      },
      source,
      opts.maxLineBytes ?? 16 * 1024 * 1024,
    );
  }

  push(chunk: Buffer): void {
    this.tok.push(chunk);
  }

  end(): { names: string[]; rows: number } {
    this.tok.end();
    if (this.names === null) throw new CsvError("the file is empty (no header row)");
    return { names: this.names, rows: this.rows };
  }
}
