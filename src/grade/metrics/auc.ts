import { MetricError, sameLength, type Vec } from "./errors.js";

/**
 * Binary ROC AUC as scikit-learn's roc_auc_score: the positive class is the larger of the two
 * labels; AUC = (pairs ranked right + ½ tied pairs) / (P·N). Positive and negative scores are
 * sorted separately and merged, so no object is built per row. A single-class truth or a
 * missing/infinite score throws (upstream's scikit-learn ≤ 1.5 raises there).
 */
export function rocAuc(yTrue: Vec, yScore: Vec): number {
  sameLength(yTrue, yScore, "labels and scores");
  let lo = NaN,
    hi = NaN;
  for (let i = 0; i < yTrue.length; i++) {
    const v = yTrue[i];
    if (Number.isNaN(v)) throw new MetricError("the true labels contain a missing value");
    if (Number.isNaN(lo)) {
      lo = v;
      hi = v;
    } else if (v !== lo && v !== hi) {
      if (lo !== hi) throw new MetricError("the true labels have more than two classes");
      if (v < lo) lo = v;
      else hi = v;
    }
  }
  if (yTrue.length === 0 || lo === hi)
    throw new MetricError("only one class is present in the true labels; ROC AUC is undefined");
  for (let i = 0; i < yScore.length; i++) {
    if (!Number.isFinite(yScore[i]))
      throw new MetricError(
        `the scores contain ${Number.isNaN(yScore[i]) ? "a missing value" : yScore[i]} (row ${i + 1})`,
      );
  }
  let p = 0;
  for (let i = 0; i < yTrue.length; i++) if (yTrue[i] === hi) p++;
  const pos = new Float64Array(p);
  const neg = new Float64Array(yTrue.length - p);
  for (let i = 0, a = 0, b = 0; i < yTrue.length; i++) {
    if (yTrue[i] === hi) pos[a++] = yScore[i];
    else neg[b++] = yScore[i];
  }
  pos.sort();
  neg.sort();
  // For each positive: negatives strictly below count 1, equal ones ½.
  let below = 0,
    upto = 0,
    twice = 0;
  for (let i = 0; i < pos.length; i++) {
    const s = pos[i];
    while (below < neg.length && neg[below] < s) below++;
    if (upto < below) upto = below;
    while (upto < neg.length && neg[upto] === s) upto++;
    twice += 2 * below + (upto - below);
  }
  return twice / 2 / (pos.length * neg.length);
}

/** Unweighted mean of per-column binary AUCs (scikit-learn average="macro" on 2-D input). */
export function meanColumnAuc(yTrue: Vec[], yScore: Vec[]): number {
  if (yTrue.length !== yScore.length) throw new MetricError("different number of label and score columns");
  let sum = 0;
  for (let k = 0; k < yTrue.length; k++) sum += rocAuc(yTrue[k], yScore[k]);
  return sum / yTrue.length;
}
