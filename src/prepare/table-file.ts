import { closeSync, createReadStream, openSync, readSync, statSync, writeSync } from "node:fs";
import { ColumnTyper, parseCsv, quoteCell, type ColumnType } from "./csv.js";
import { dedupeNames } from "../tabular/csv.js";

/**
 * A raw CSV too large to hold as one string: a first streaming pass records each record's byte
 * offsets and infers column types (pandas rules); records are then read back by index.
 */
export interface ScannedTable {
  file: string;
  header: string[];
  types: ColumnType[];
  /** Start of record i at starts[i]; its end (before the line break) at ends[i]. */
  starts: Float64Array;
  ends: Float64Array;
  n: number;
  /** Distinct raw values of the columns asked for. */
  distinct: Map<string, Set<string>>;
  /** With `groupBy`: the distinct values in order of first appearance, and each record's index among them. */
  groups?: { values: string[]; of: Uint32Array };
}

function grow(a: Float64Array): Float64Array<ArrayBuffer> {
  const b = new Float64Array(Math.max(1024, a.length * 2));
  b.set(a);
  return b;
}

export async function scanTable(
  file: string,
  collect: string[] = [],
  groupBy?: string,
): Promise<ScannedTable> {
  let starts: Float64Array<ArrayBuffer> = new Float64Array(1024);
  let ends: Float64Array<ArrayBuffer> = new Float64Array(1024);
  let n = -1; // the header is record -1
  let header: string[] = [];
  let typers: ColumnTyper[] = [];
  const distinct = new Map<string, Set<string>>(collect.map((c) => [c, new Set<string>()]));
  let collectIdx: [string, number][] = [];
  let groupCol = -1;
  const groupIndex = new Map<string, number>();
  const groupValues: string[] = [];
  let groupOf = new Uint32Array(groupBy ? 1024 : 0);

  let pending: Buffer[] = []; // bytes of the current record so far
  let recStart = 0;
  let pos = 0; // absolute offset of the chunk start
  let inQuotes = false;
  let first = true;

  const finish = (endAbs: number) => {
    let bytes = pending.length === 1 ? pending[0] : Buffer.concat(pending);
    pending = [];
    let end = endAbs;
    if (bytes.length > 0 && bytes[bytes.length - 1] === 13) {
      bytes = bytes.subarray(0, bytes.length - 1);
      end--;
    }
    const text = bytes.toString("utf8");
    if (n === -1) {
      // pandas renames blank and repeated header names (`Unnamed: 2`, `Elevation.1`) and writes them so.
      header = dedupeNames(parseCsv(text.replace(/^\uFEFF/, ""))[0] ?? []);
      typers = header.map(() => new ColumnTyper());
      collectIdx = collect.map((c) => {
        const k = header.indexOf(c);
        if (k < 0) throw new Error(`${file}: no column "${c}" (columns: ${header.join(", ")})`);
        return [c, k];
      });
      if (groupBy !== undefined) {
        groupCol = header.indexOf(groupBy);
        if (groupCol < 0) throw new Error(`${file}: no column "${groupBy}" (columns: ${header.join(", ")})`);
      }
      n = 0;
      return;
    }
    if (text === "" && header.length > 1) return; // pandas skips blank lines
    const cells = parseCsv(text)[0] ?? [""];
    for (let k = 0; k < typers.length; k++) typers[k].add(cells[k] ?? "");
    for (const [c, k] of collectIdx) distinct.get(c)!.add(cells[k] ?? "");
    if (n >= starts.length) {
      starts = grow(starts);
      ends = grow(ends);
    }
    starts[n] = recStart;
    ends[n] = end;
    if (groupCol >= 0) {
      const v = cells[groupCol] ?? "";
      let g = groupIndex.get(v);
      if (g === undefined) {
        g = groupValues.push(v) - 1;
        groupIndex.set(v, g);
      }
      if (n >= groupOf.length) {
        const b = new Uint32Array(groupOf.length * 2);
        b.set(groupOf);
        groupOf = b;
      }
      groupOf[n] = g;
    }
    n++;
  };

  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    let from = 0;
    if (first && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) {
      from = 3;
      recStart = 3;
    }
    first = false;
    for (let i = from; i < chunk.length; i++) {
      const b = chunk[i];
      if (b === 34) inQuotes = !inQuotes;
      else if (b === 10 && !inQuotes) {
        pending.push(chunk.subarray(from, i));
        finish(pos + i);
        from = i + 1;
        recStart = pos + i + 1;
      }
    }
    if (from < chunk.length) pending.push(chunk.subarray(from));
    pos += chunk.length;
  }
  if (pending.some((p) => p.length > 0)) finish(pos);
  if (n < 0) throw new Error(`${file}: empty CSV`);
  const groups = groupCol >= 0 ? { values: groupValues, of: groupOf.subarray(0, n) } : undefined;
  return { file, header, types: typers.map((t) => t.type), starts, ends, n, distinct, groups };
}

/** Reads records back by index: from memory when the file is small enough, else with positioned reads. */
export class RecordReader {
  private readonly buf?: Buffer;
  private readonly fd?: number;

  constructor(private readonly t: ScannedTable) {
    const size = statSync(t.file).size;
    if (size < 1 << 30) {
      this.buf = Buffer.alloc(size);
      const fd = openSync(t.file, "r");
      try {
        let off = 0;
        while (off < size) off += readSync(fd, this.buf, off, size - off, off);
      } finally {
        closeSync(fd);
      }
    } else this.fd = openSync(t.file, "r");
  }

  cells(i: number): string[] {
    const s = this.t.starts[i];
    const e = this.t.ends[i];
    let text: string;
    if (this.buf) text = this.buf.toString("utf8", s, e);
    else {
      const b = Buffer.alloc(e - s);
      readSync(this.fd!, b, 0, e - s, s);
      text = b.toString("utf8");
    }
    return parseCsv(text)[0] ?? [""];
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
  }
}

function quoteAlways(v: string): string {
  return `"${v.replace(/"/g, '""')}"`;
}

/** Buffered line writer for large CSV outputs. */
export class CsvWriter {
  private readonly fd: number;
  private parts: string[] = [];
  private size = 0;

  /** `textColumns`: pandas' QUOTE_NONNUMERIC, quoting the header and every cell of these columns. */
  constructor(
    file: string,
    header: string[],
    private readonly textColumns?: boolean[],
  ) {
    this.fd = openSync(file, "w");
    this.line(header.map((h) => (textColumns ? quoteAlways(h) : quoteCell(h))).join(","));
  }

  /** A row of already rendered cells. */
  row(cells: string[]): void {
    const t = this.textColumns;
    if (t) this.line(cells.map((v, k) => (t[k] ? quoteAlways(v) : quoteCell(v))).join(","));
    else this.line(cells.length === 1 && cells[0] === "" ? '""' : cells.map(quoteCell).join(","));
  }

  private line(s: string): void {
    this.parts.push(s, "\n");
    this.size += s.length + 1;
    if (this.size > 1 << 20) this.flush();
  }

  private flush(): void {
    if (this.parts.length) writeSync(this.fd, this.parts.join(""));
    this.parts = [];
    this.size = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}
