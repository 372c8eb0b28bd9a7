import { MetricError, requireFinite, sameLength, type Vec } from "./errors.js";

function checked(a: Vec, b: Vec): void {
  sameLength(a, b);
  if (a.length === 0) throw new MetricError("no rows");
  requireFinite(a, "the answers");
  requireFinite(b, "the predictions");
}

/** Root mean squared error (scikit-learn root_mean_squared_error); NaN/inf throw. */
export function rmse(truth: Vec, pred: Vec): number {
  checked(truth, pred);
  let s = 0;
  for (let i = 0; i < truth.length; i++) {
    const d = truth[i] - pred[i];
    s += d * d;
  }
  return Math.sqrt(s / truth.length);
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
  let s = 0;
  for (let i = 0; i < truth.length; i++) {
    if (truth[i] <= -1 || pred[i] <= -1) throw new MetricError("RMSLE is undefined for values ≤ -1");
    const d = Math.log1p(pred[i]) - Math.log1p(truth[i]);
    s += d * d;
  }
  return Math.sqrt(s / truth.length);
}

/** Mean of per-column RMSLEs. */
export function meanColumnRmsle(truth: Vec[], pred: Vec[]): number {
  if (truth.length !== pred.length || truth.length === 0) throw new MetricError("column counts differ");
  let s = 0;
  for (let k = 0; k < truth.length; k++) s += rmsle(truth[k], pred[k]);
  return s / truth.length;
}
