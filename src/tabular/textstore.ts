/**
 * A text column kept as UTF-8 bytes in one growing arena (start/end per row, start -1 =
 * missing) instead of one JS string per row: less memory, no per-row garbage, and ids can be
 * hashed and compared as bytes. Strings are made only when asked for.
 */
export class TextStore {
  private arena: Buffer = Buffer.allocUnsafe(256);
  private used = 0;
  starts: Int32Array;
  ends: Int32Array;
  count = 0;

  constructor(capacity = 64) {
    this.starts = new Int32Array(capacity);
    this.ends = new Int32Array(capacity);
  }

  private ensureRows(n: number): void {
    if (n <= this.starts.length) return;
    const size = Math.max(n, this.starts.length * 2);
    const s = new Int32Array(size);
    s.set(this.starts);
    this.starts = s;
    const e = new Int32Array(size);
    e.set(this.ends);
    this.ends = e;
  }

  private ensureBytes(n: number): void {
    if (this.used + n <= this.arena.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.arena.length * 2, this.used + n));
    this.arena.copy(bigger, 0, 0, this.used);
    this.arena = bigger;
  }

  /** Grows to hold `rows` rows at once, the bytes sized by the rows so far (avoids repeated doubling). */
  reserve(rows: number): void {
    if (rows <= this.count) return;
    this.ensureRows(rows);
    const perRow = this.count > 0 ? this.used / this.count : 0;
    this.ensureBytes(Math.ceil(perRow * (rows - this.count) * 1.05));
  }

  /** Fills rows [count, row) as missing. */
  padTo(row: number): void {
    this.ensureRows(row + 1);
    while (this.count < row) {
      this.starts[this.count] = -1;
      this.ends[this.count] = -1;
      this.count++;
    }
  }

  setBytes(row: number, b: Uint8Array, s: number, e: number): void {
    if (row === this.count && row < this.starts.length) this.count++;
    else this.padTo(row);
    this.ensureBytes(e - s);
    const a = this.arena;
    if (e - s <= 64)
      for (let k = s, o = this.used; k < e; k++, o++) a[o] = b[k]; // no subarray object per cell
    else a.set(b.subarray(s, e), this.used);
    this.starts[row] = this.used;
    this.used += e - s;
    this.ends[row] = this.used;
    if (row >= this.count) this.count = row + 1;
  }

  setString(row: number, str: string): void {
    const bytes = Buffer.from(str, "utf8");
    this.setBytes(row, bytes, 0, bytes.length);
  }

  setMissing(row: number): void {
    this.padTo(row);
    this.starts[row] = -1;
    this.ends[row] = -1;
    if (row >= this.count) this.count = row + 1;
  }

  isMissing(i: number): boolean {
    return this.starts[i] < 0;
  }

  get(i: number): string | null {
    const s = this.starts[i];
    if (s < 0) return null;
    const e = this.ends[i];
    for (let k = s; k < e; k++) if (this.arena[k] >= 0x80) return this.arena.toString("utf8", s, e);
    return this.arena.toString("latin1", s, e);
  }

  /** Every row as a string (null = missing). */
  strings(): (string | null)[] {
    const out = new Array<string | null>(this.count);
    for (let i = 0; i < this.count; i++) out[i] = this.get(i);
    return out;
  }

  /** FNV-1a hash of row i's bytes. */
  hash(i: number): number {
    let h = 0x811c9dc5;
    const a = this.arena;
    for (let k = this.starts[i], e = this.ends[i]; k < e; k++) h = Math.imul(h ^ a[k], 0x01000193);
    return (h ^ (h >>> 15)) >>> 0;
  }

  /** hash(i) of every row into out (as int32); false when a row is missing (nothing else checked). */
  hashAll(out: Int32Array): boolean {
    const a = this.arena,
      st = this.starts,
      en = this.ends;
    for (let i = 0; i < this.count; i++) {
      const s = st[i];
      if (s < 0) return false;
      let h = 0x811c9dc5;
      for (let k = s, e = en[i]; k < e; k++) h = Math.imul(h ^ a[k], 0x01000193);
      out[i] = h ^ (h >>> 15);
    }
    return true;
  }

  /** The arena holding every row's bytes (rows at starts[i]..ends[i]); read only. */
  bytes(): Buffer {
    return this.arena;
  }

  /** Byte equality of row i here and row j of other (missing never equals). */
  equals(i: number, other: TextStore, j: number): boolean {
    const s = this.starts[i],
      t = other.starts[j];
    if (s < 0 || t < 0) return false;
    const len = this.ends[i] - s;
    if (other.ends[j] - t !== len) return false;
    const a = this.arena,
      b = other.arena;
    for (let k = 0; k < len; k++) if (a[s + k] !== b[t + k]) return false;
    return true;
  }

  /** Releases spare capacity once reading is done. */
  trim(rows: number): void {
    this.padTo(rows);
    this.count = rows;
    if (this.arena.length > this.used * 1.25 + 4096)
      this.arena = Buffer.from(this.arena.subarray(0, this.used));
  }
}
