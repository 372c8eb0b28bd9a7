import { MetricError, UndefinedMetricError, sameLength, type Vec } from "./errors.js";
import { numpySum } from "./npsum.js";
import { sortDoubles } from "./radix.js";

/**
 * Binary ROC AUC as scikit-learn's roc_auc_score: the positive class is the larger of the two
 * labels; AUC = (pairs ranked right + ½ tied pairs) / (P·N), computed the way scikit-learn does
 * (ROC points, trapezoids, numpy's sum) so the double is the same. Positive and negative scores
 * are sorted separately and merged, so no object is built per row. A missing/infinite score throws
 * MetricError; a single-class truth UndefinedMetricError (upstream's scikit-learn ≤ 1.5 raises there).
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
  // scikit-learn checks the scores before the classes.
  for (let i = 0; i < yScore.length; i++) {
    if (!Number.isFinite(yScore[i]))
      throw new MetricError(
        `the scores contain ${Number.isNaN(yScore[i]) ? "a missing value" : yScore[i]} (row ${i + 1})`,
      );
  }
  if (yTrue.length === 0 || lo === hi)
    throw new UndefinedMetricError(
      "the answers have only one class in the scored rows; ROC AUC is undefined for them",
    );
  let p = 0;
  for (let i = 0; i < yTrue.length; i++) if (yTrue[i] === hi) p++;
  const pos = new Float64Array(p);
  const neg = new Float64Array(yTrue.length - p);
  for (let i = 0, a = 0, b = 0; i < yTrue.length; i++) {
    if (yTrue[i] === hi) pos[a++] = yScore[i];
    else neg[b++] = yScore[i];
  }
  sortDoubles(pos);
  sortDoubles(neg);
  // ROC points at each distinct score, from the highest down (scikit-learn's roc_curve).
  const tps = new Float64Array(pos.length + neg.length),
    fps = new Float64Array(pos.length + neg.length);
  let i = pos.length - 1,
    j = neg.length - 1,
    tp = 0,
    fp = 0,
    points = 0;
  while (i >= 0 || j >= 0) {
    const v = i < 0 ? neg[j] : j < 0 ? pos[i] : Math.max(pos[i], neg[j]);
    while (i >= 0 && pos[i] === v) {
      tp++;
      i--;
    }
    while (j >= 0 && neg[j] === v) {
      fp++;
      j--;
    }
    tps[points] = tp;
    fps[points] = fp;
    points++;
  }
  return trapezoidAuc(tps.subarray(0, points), fps.subarray(0, points));
}

/**
 * scikit-learn's AUC from cumulative counts, bit for bit: drop collinear points
 * (drop_intermediate), prepend (0, 0), divide by the totals, and numpy's trapezoid rule with
 * numpy's summation. The value can differ from the exact pair count by a few ulps, which
 * matters when it sits on a 5-decimal rounding tie.
 */
function trapezoidAuc(tps: Float64Array, fps: Float64Array): number {
  const n = tps.length;
  // Kept points (drop_intermediate): the ends and every point where the curve bends.
  const keep = new Int32Array(n);
  let m = 0;
  if (n > 2) {
    keep[m++] = 0;
    for (let k = 0; k + 2 < n; k++) {
      const d2f = fps[k + 2] - fps[k + 1] - (fps[k + 1] - fps[k]);
      const d2t = tps[k + 2] - tps[k + 1] - (tps[k + 1] - tps[k]);
      if (d2f !== 0 || d2t !== 0) keep[m++] = k + 1;
    }
    keep[m++] = n - 1;
  } else for (let k = 0; k < n; k++) keep[m++] = k;
  const totalT = tps[n - 1],
    totalF = fps[n - 1];
  // (0, 0) first, then the kept points as rates.
  const tpr = new Float64Array(m + 1),
    fpr = new Float64Array(m + 1);
  for (let k = 0; k < m; k++) {
    tpr[k + 1] = tps[keep[k]] / totalT;
    fpr[k + 1] = fps[keep[k]] / totalF;
  }
  const terms = new Float64Array(m);
  for (let k = 0; k < m; k++) terms[k] = ((fpr[k + 1] - fpr[k]) * (tpr[k + 1] + tpr[k])) / 2.0;
  return numpySum(terms);
}

/** Unweighted mean of per-column binary AUCs (scikit-learn average="macro" on 2-D input; numpy mean). */
export function meanColumnAuc(yTrue: Vec[], yScore: Vec[]): number {
  if (yTrue.length !== yScore.length) throw new MetricError("different number of label and score columns");
  return numpySum(yTrue.map((y, k) => rocAuc(y, yScore[k]))) / yTrue.length;
}
