import { MetricError, sameLength } from "./errors.js";
import { numpySum } from "./npsum.js";

type Labels = ArrayLike<number> | ArrayLike<string>;

/** Fraction of equal pairs (exact equality). */
export function accuracy(truth: Labels, pred: Labels): number {
  sameLength(truth, pred);
  if (truth.length === 0) throw new MetricError("no rows");
  let hit = 0;
  for (let i = 0; i < truth.length; i++) if (truth[i] === pred[i]) hit++;
  return hit / truth.length;
}

function sortedUnion(a: Labels, b: Labels): (number | string)[] {
  const set = new Set<number | string>();
  for (let i = 0; i < a.length; i++) set.add(a[i]);
  for (let i = 0; i < b.length; i++) set.add(b[i]);
  return [...set].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
}

/**
 * Cohen's kappa with quadratic weights (scikit-learn cohen_kappa_score(weights="quadratic")):
 * labels = sorted union of both columns, weight (a-b)² on label *ranks*; 0/0 gives NaN.
 */
export function quadraticWeightedKappa(a: Labels, b: Labels): number {
  sameLength(a, b);
  if (a.length === 0) throw new MetricError("no rows");
  const labels = sortedUnion(a, b);
  const k = labels.length;
  const index = new Map(labels.map((l, i) => [l, i]));
  const o = new Float64Array(k * k); // o[x·k + y]: a has label x, b has label y
  const sumA = new Float64Array(k),
    sumB = new Float64Array(k);
  for (let i = 0; i < a.length; i++) {
    const x = index.get(a[i])!,
      y = index.get(b[i])!;
    o[x * k + y]++;
    sumA[x]++;
    sumB[y]++;
  }
  // As scikit-learn: expected = outer(column sums, row sums) / n, and numpy sums of the
  // weighted matrices in row-major order, so the double is the same.
  const n = a.length;
  const wo = new Float64Array(k * k),
    we = new Float64Array(k * k);
  for (let x = 0; x < k; x++) {
    for (let y = 0; y < k; y++) {
      const w = (x - y) * (x - y);
      wo[x * k + y] = w * o[x * k + y];
      we[x * k + y] = w * ((sumB[x] * sumA[y]) / n);
    }
  }
  return 1 - numpySum(wo) / numpySum(we);
}

/** Per-class F1 counts over the sorted union of labels. */
function f1Counts(truth: Labels, pred: Labels) {
  sameLength(truth, pred);
  const labels = sortedUnion(truth, pred);
  const index = new Map(labels.map((l, i) => [l, i]));
  const tp = new Float64Array(labels.length),
    fp = new Float64Array(labels.length),
    fn = new Float64Array(labels.length);
  for (let i = 0; i < truth.length; i++) {
    const t = index.get(truth[i])!,
      p = index.get(pred[i])!;
    if (t === p) tp[t]++;
    else {
      fp[p]++;
      fn[t]++;
    }
  }
  return { tp, fp, fn };
}

const f1 = (tp: number, fp: number, fn: number) => (tp + fp + fn === 0 ? 0 : (2 * tp) / (2 * tp + fp + fn));

/** Macro F1: unweighted mean over every label seen in either column (scikit-learn, zero_division=0). */
export function macroF1(truth: Labels, pred: Labels): number {
  const { tp, fp, fn } = f1Counts(truth, pred);
  if (tp.length === 0) throw new MetricError("no rows");
  let s = 0;
  for (let i = 0; i < tp.length; i++) s += f1(tp[i], fp[i], fn[i]);
  return s / tp.length;
}

/** Micro F1 over all labels (equals accuracy for single-label multiclass). */
export function microF1(truth: Labels, pred: Labels): number {
  const { tp, fp, fn } = f1Counts(truth, pred);
  let t = 0,
    f = 0,
    m = 0;
  for (let i = 0; i < tp.length; i++) {
    t += tp[i];
    f += fp[i];
    m += fn[i];
  }
  return f1(t, f, m);
}

/** Binary F1 for the positive label (default 1). */
export function binaryF1(truth: ArrayLike<number>, pred: ArrayLike<number>, positive = 1): number {
  sameLength(truth, pred);
  let tp = 0,
    fp = 0,
    fn = 0;
  for (let i = 0; i < truth.length; i++) {
    const t = truth[i] === positive,
      p = pred[i] === positive;
    if (t && p) tp++;
    else if (p) fp++;
    else if (t) fn++;
  }
  return f1(tp, fp, fn);
}
