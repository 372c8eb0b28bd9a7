/**
 * jigsaw's row selection: both tables indexed by id and sort_index'ed, then the answers' keep
 * mask (a boolean Series indexed by the answers' ids) applied to the submission. pandas 2.2
 * applies it by position when the two indexes are equal; otherwise it aligns the mask to the
 * submission's index (`get_indexer_for`): each submission row gets the mask values of every
 * answers row with its id, so an id the answers repeat yields several values and the aligned mask
 * grows longer than the submission. An all-true mask then keeps every submission row; otherwise
 * the true positions are taken, and one past the submission's end raises (pandas 1.5 raised
 * for any mismatch; upstream pins pandas ≥ 2.2).
 */
import type { Column } from "../tabular/csv.js";
import { SubmissionError } from "./errors.js";
import { idKey, sortedOrder } from "./align.js";

const show = (k: number | string | null) => (typeof k === "string" ? JSON.stringify(k) : String(k));

/** The answers rows kept and the submission rows paired with them, position by position. */
export function maskedRows(
  subId: Column,
  ansId: Column,
  keep: (answerRow: number) => boolean,
): { ansRows: Int32Array; subRows: Int32Array } {
  const so = sortedOrder(subId, true),
    ao = sortedOrder(ansId, true);
  const ansRows = ao.filter(keep);
  let equal = so.length === ao.length;
  for (let p = 0; p < ao.length && equal; p++) equal = idKey(subId, so[p]) === idKey(ansId, ao[p]);
  if (equal) return { ansRows, subRows: so.filter((_, p) => keep(ao[p])) };
  // The mask's positions per id, in the sorted answers' order.
  const positions = new Map<number | string | null, number[]>();
  for (let p = 0; p < ao.length; p++) {
    const k = idKey(ansId, ao[p]);
    const list = positions.get(k);
    if (list) list.push(p);
    else positions.set(k, [p]);
  }
  const aligned: boolean[] = [];
  for (const i of so) {
    const k = idKey(subId, i);
    const list = positions.get(k);
    if (!list) throw new SubmissionError(`submission id ${show(k)} is not in the answers`);
    for (const p of list) aligned.push(keep(ao[p]));
  }
  if (aligned.every(Boolean)) return { ansRows, subRows: so };
  const subRows: number[] = [];
  for (let q = 0; q < aligned.length; q++) {
    if (!aligned[q]) continue;
    if (q >= so.length)
      throw new SubmissionError(
        "the answers repeat an id that the submission does not repeat alike: pandas cannot align the rows",
      );
    subRows.push(so[q]);
  }
  return { ansRows, subRows: Int32Array.from(subRows) };
}
