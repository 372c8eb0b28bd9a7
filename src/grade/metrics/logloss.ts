import { MetricError, UndefinedMetricError, sameLength, type Vec } from "./errors.js";
import { numpySum } from "./npsum.js";

/** float64 machine epsilon, scikit-learn's clipping bound. */
export const EPS = 2.220446049250313e-16;

const clip = (p: number) => (p < EPS ? EPS : p > 1 - EPS ? 1 - EPS : p);

/**
 * Multi-class log loss, scikit-learn ≥ 1.5: every probability clipped to [eps, 1-eps], no row
 * renormalisation; loss = mean over rows of -Σ_j y_ij·ln(p_ij). Columns are given column-wise
 * (truth[j][i], prob[j][i]); `rows[i]`, when given, is the prediction row paired with truth row i.
 */
export function multiclassLogLoss(truth: Vec[], prob: Vec[], rows?: ArrayLike<number>): number {
  if (truth.length !== prob.length)
    throw new MetricError("different number of classes in truth and predictions");
  if (truth.length === 0) throw new MetricError("no classes");
  const n = truth[0].length;
  if (n === 0) throw new MetricError("no rows");
  // Per-row loss summed over classes in column order (numpy's row sum for ≤ 7 non-zero terms
  // is sequential; one-hot rows have one), then numpy's mean over rows.
  const loss = new Float64Array(n);
  for (let j = 0; j < truth.length; j++) {
    const y = truth[j],
      p = prob[j];
    sameLength(y, p, "truth and predictions");
    if (rows && rows.length === n && !hasNaN(p)) {
      // rows pairs every prediction row (a permutation): no probability is missing, so only
      // the non-zero truths need their prediction, read at random (same terms, same order).
      for (let i = 0; i < n; i++) {
        const yi = y[i];
        if (yi !== 0) loss[i] -= yi * Math.log(clip(p[rows[i]]));
      }
      continue;
    }
    for (let i = 0; i < n; i++) {
      const pi = p[rows ? rows[i] : i];
      if (Number.isNaN(pi)) throw new MetricError(`a probability is missing (row ${i + 1})`);
      const yi = y[i];
      if (yi !== 0) loss[i] -= yi * Math.log(clip(pi));
    }
  }
  return numpySum(loss) / n;
}

function hasNaN(v: Vec): boolean {
  for (let i = 0; i < v.length; i++) if (Number.isNaN(v[i])) return true;
  return false;
}

/** Binary log loss: p = probability of label 1; labels are 0/1. */
export function binaryLogLoss(labels: Vec, p: Vec): number {
  sameLength(labels, p, "labels and predictions");
  if (labels.length === 0) throw new MetricError("no rows");
  for (let i = 0; i < p.length; i++)
    if (Number.isNaN(p[i])) throw new MetricError(`a probability is missing (row ${i + 1})`);
  // scikit-learn learns the labels from y_true: with one label it raises (every version).
  let single = true;
  for (let i = 1; i < labels.length && single; i++) single = labels[i] === labels[0];
  if (single)
    throw new UndefinedMetricError(
      "the answers hold only one label; scikit-learn's log loss is undefined for them",
    );
  const loss = new Float64Array(labels.length);
  for (let i = 0; i < labels.length; i++) {
    const pi = p[i];
    const y = labels[i];
    if (y !== 0 && y !== 1) throw new MetricError(`label ${y} is not 0 or 1`);
    loss[i] = -Math.log(y === 1 ? clip(pi) : clip(1 - pi));
  }
  return numpySum(loss) / labels.length;
}
