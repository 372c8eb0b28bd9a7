/**
 * What pandas' C parser makes of a column holding an integer outside int64 (checked against
 * pandas 1.5.3 and 2.2.3, which agree). It tries int64, then (on an overflow) uint64, then
 * float64, then bool, then object, each pass scanning the cells in file order and stopping at the
 * first cell it cannot read. So the outcome depends on which cell comes first:
 *
 * - a float cell before any out-of-range integer: the column is float64 (`1.5, 1e20` → 1e+20);
 * - an out-of-range integer first: the uint64 pass runs; its first unreadable cell decides: a
 *   float → float64; an integer beyond uint64 → object (text);
 * - no such cell (only integers and missing values): uint64 values beside a negative number or a
 *   missing value conflict → object, and then pandas keeps even the missing-value tokens as text
 *   (`9223372036854775808, NA` → the strings "9223372036854775808" and "NA"); a negative number
 *   below int64 (with or without missing values) → object; else uint64.
 */

/** Integer cells outside int64: in uint64 only, below int64's minimum, beyond uint64. */
export type BigIntKind = "uint" | "below" | "beyond";

/** The column's type after the passes: as usual (int or float by the cells), float, text, text with NA tokens kept. */
export type IntOutcome = "usual" | "float" | "text" | "text-keep-na";

export class IntPasses {
  /** Did an out-of-range integer come before any float cell? (null: none seen yet) */
  private bigFirst: boolean | null = null;
  /** Was a float cell seen before the first integer beyond uint64? (null: none beyond yet) */
  private floatBeforeBeyond: boolean | null = null;
  private uint = false;
  private below = false;

  /** Notes an out-of-range integer cell; `floatSoFar`: a float cell came earlier in the column. */
  big(kind: BigIntKind, floatSoFar: boolean): void {
    if (this.bigFirst === null) this.bigFirst = !floatSoFar;
    if (kind === "uint") this.uint = true;
    else if (kind === "below") this.below = true;
    else if (this.floatBeforeBeyond === null) this.floatBeforeBeyond = floatSoFar;
  }

  get any(): boolean {
    return this.bigFirst !== null;
  }

  /**
   * The outcome for a column whose cells are all numbers or missing (text and bool cells make it
   * text anyway). `negative`: some integer cell has a minus sign (`-0` included).
   */
  outcome(sawFloat: boolean, sawMissing: boolean, negative: boolean): IntOutcome {
    if (this.bigFirst === null) return "usual";
    if (!this.bigFirst) return "float";
    if (this.floatBeforeBeyond !== null) return this.floatBeforeBeyond ? "float" : "text";
    if (sawFloat) return "float";
    const signed = negative || this.below;
    if (this.uint && (signed || sawMissing)) return "text-keep-na";
    if (signed) return "text";
    return "usual";
  }
}

const INT64_MAX = 9223372036854775807n,
  UINT64_MAX = 18446744073709551615n,
  INT64_MIN = -9223372036854775808n;

/** The class of an integer literal's value outside int64, or null inside it. */
export function bigIntKind(text: string): BigIntKind | null {
  const big = BigInt(text.trim());
  if (big < INT64_MIN) return "below";
  if (big <= INT64_MAX) return null;
  if (big > UINT64_MAX) return "beyond";
  return "uint";
}
