/**
 * CSV reading and writing the way upstream's preparers see it: pandas `read_csv` (type inference,
 * missing-value tokens) followed by `to_csv(index=False)` (minimal quoting, Python float repr).
 */
import { NA_TOKENS, classifyCell, dedupeNames, parseCsvRows } from "../tabular/csv.js";
import { IntPasses } from "../tabular/intpasses.js";

/** The records of CSV text, split by the one reader's tokenizer (src/tabular, pandas rules). */
export function parseCsv(text: string): string[][] {
  return parseCsvRows(text);
}

/** A CSV as header + rows of objects (plain strings, no typing). */
export function parseCsvRecords(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  if (!header) return [];
  return rows
    .filter((r) => !(r.length === 1 && r[0] === ""))
    .map((r) => Object.fromEntries(header.map((h, k) => [h, r[k] ?? ""])));
}

/** pandas' default missing-value tokens (pandas ≥ 2.0: "None" included), shared with grading. */
export { NA_TOKENS };

/** "text-na": object column whose missing-value tokens pandas keeps as text (a uint64 conflict). */
export type ColumnType = "int" | "float" | "bool" | "text" | "text-na";

const CANONICAL_INT = /^(-?[1-9]\d*|0)$/;

/** pandas' type inference over a whole column, fed one raw value at a time (cells typed by src/tabular). */
export class ColumnTyper {
  private anyMissing = false;
  private any = false;
  private allInt = true;
  private allNum = true;
  private allBool = true;
  private sawFloat = false;
  private negative = false;
  private readonly passes = new IntPasses();

  add(v: string): void {
    const cell = classifyCell(v);
    const kind = cell.kind;
    if (kind === "missing") {
      this.anyMissing = true;
      return;
    }
    this.any = true;
    if (kind === "float") this.sawFloat = true;
    else if (kind === "int") {
      if (cell.big) this.passes.big(cell.big, this.sawFloat);
      else if (v.trim().startsWith("-")) this.negative = true;
    }
    if (kind !== "int") this.allInt = false;
    if (kind !== "int" && kind !== "float") this.allNum = false;
    if (kind !== "bool") this.allBool = false;
  }

  get type(): ColumnType {
    if (!this.any) return "float"; // an all-missing column is float64 in pandas
    if (this.allNum) {
      // Integers outside int64: the order of the cells decides (src/tabular/intpasses.ts).
      const outcome = this.passes.outcome(this.sawFloat, this.anyMissing, this.negative);
      if (outcome === "float") return "float";
      if (outcome === "text") return "text";
      if (outcome === "text-keep-na") return "text-na";
    }
    if (this.allInt && !this.anyMissing) return "int";
    if (this.allInt || this.allNum) return "float";
    // pandas keeps booleans beside missing cells as Python bools (written True/False).
    if (this.allBool) return "bool";
    return "text";
  }
}

export function inferType(values: Iterable<string>): ColumnType {
  const t = new ColumnTyper();
  for (const v of values) t.add(v);
  return t.type;
}

/** Python's repr of a double (numpy's shortest round-trip form). */
export function pyFloat(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mant, expText] = x.toExponential().split("e");
  const exp = Number(expText);
  const neg = mant.startsWith("-");
  const digits = mant.replace("-", "").replace(".", "");
  const sign = neg ? "-" : "";
  if (exp >= -4 && exp < 16) {
    if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
    const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
    const frac = digits.slice(exp + 1) || "0";
    return `${sign}${intPart}.${frac}`;
  }
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const e = Math.abs(exp) < 10 ? `0${Math.abs(exp)}` : String(Math.abs(exp));
  return `${sign}${m}e${exp < 0 ? "-" : "+"}${e}`;
}

/** Re-renders one raw cell as pandas would write it for a column of the given type. */
export function renderCell(v: string, type: ColumnType): string {
  if (type === "text-na") return v;
  if (NA_TOKENS.has(v)) return "";
  switch (type) {
    case "int":
      return CANONICAL_INT.test(v) ? v : BigInt(v.trim()).toString();
    case "float":
      return pyFloat(classifyCell(v).value);
    case "bool":
      return classifyCell(v).value === 1 ? "True" : "False";
    default:
      return v;
  }
}

/** Minimal quoting (csv.QUOTE_MINIMAL). */
export function quoteCell(v: string): string {
  return /[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** A table read with pandas semantics: header, raw rows, inferred column types. */
export interface Table {
  header: string[];
  rows: string[][];
  types: ColumnType[];
}

export function readTable(text: string): Table {
  const [raw = [], ...rows] = parseCsv(text);
  const header = dedupeNames(raw);
  const body = rows.filter((r) => !(r.length === 1 && r[0] === "" && header.length > 1));
  const types = header.map((_, k) => inferType(columnValues(body, k)));
  return { header, rows: body, types };
}

function* columnValues(rows: string[][], k: number): Iterable<string> {
  for (const r of rows) yield r[k] ?? "";
}

/** Renders a table: header line + one line per row, "\n" endings. */
export function writeTable(header: string[], rows: Iterable<string[]>): string {
  const out: string[] = [header.map(quoteCell).join(",")];
  for (const r of rows) out.push(r.length === 1 && r[0] === "" ? '""' : r.map(quoteCell).join(","));
  return out.join("\n") + "\n";
}
