import { MetricError, requireFinite, sameLength, type Vec } from "./errors.js";
import { numpySum } from "./npsum.js";

function checked(a: Vec, b: Vec): void {
  sameLength(a, b);
  if (a.length === 0) throw new MetricError("no rows");
  requireFinite(a, "the answers");
  requireFinite(b, "the predictions");
}

/** Root mean squared error (scikit-learn root_mean_squared_error, numpy's mean); NaN/inf throw. */
export function rmse(truth: Vec, pred: Vec): number {
  checked(truth, pred);
  const sq = new Float64Array(truth.length);
  for (let i = 0; i < truth.length; i++) {
    const d = truth[i] - pred[i];
    sq[i] = d * d;
  }
  return Math.sqrt(numpySum(sq) / truth.length);
}

/** Mean squared error. */
export function mse(truth: Vec, pred: Vec): number {
  const r = rmse(truth, pred);
  return r * r;
}

/** Mean absolute error. */
export function mae(truth: Vec, pred: Vec): number {
  checked(truth, pred);
  let s = 0;
  for (let i = 0; i < truth.length; i++) s += Math.abs(truth[i] - pred[i]);
  return s / truth.length;
}

/**
 * Root mean squared log error (scikit-learn ≥ 1.6 domain: values ≤ -1 throw; 1.4–1.5 rejected
 * any negative value — the vectors avoid (-1, 0)).
 */
export function rmsle(truth: Vec, pred: Vec): number {
  checked(truth, pred);
  for (let i = 0; i < truth.length; i++) {
    if (truth[i] <= -1 || pred[i] <= -1) throw new MetricError("RMSLE is undefined for values ≤ -1");
  }
  const lt = Float64Array.from(truth, Math.log1p);
  const lp = Float64Array.from(pred, Math.log1p);
  return rmse(lt, lp);
}

/** Mean of per-column RMSLEs (as upstream: their sum over the count). */
export function meanColumnRmsle(truth: Vec[], pred: Vec[]): number {
  if (truth.length !== pred.length || truth.length === 0) throw new MetricError("column counts differ");
  let s = 0;
  for (let k = 0; k < truth.length; k++) s += rmsle(truth[k], pred[k]);
  return s / truth.length;
}
