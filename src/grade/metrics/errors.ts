/** A metric's inputs are outside its domain (upstream raises, so the submission is invalid). */
export class MetricError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MetricError";
  }
}

/**
 * The metric is undefined for these answers (e.g. ROC AUC with a single class in the truth):
 * upstream raises too, but the answers are at fault, so this is a grader error, not an invalid
 * submission.
 */
export class UndefinedMetricError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UndefinedMetricError";
  }
}

export type Vec = ArrayLike<number>;

export function sameLength(a: { length: number }, b: { length: number }, what = "inputs"): void {
  if (a.length !== b.length)
    throw new MetricError(`${what} have different lengths: ${a.length} and ${b.length}`);
}

export function requireFinite(a: Vec, what: string): void {
  for (let i = 0; i < a.length; i++) {
    if (!Number.isFinite(a[i])) throw new MetricError(`${what} contains ${a[i]} (row ${i + 1})`);
  }
}
