import { MetricError, sameLength } from "./errors.js";

/**
 * Word-level Jaccard of two strings (lower-cased, split on whitespace, as sets). Two empty
 * strings score 0.5, following the Kaggle tweet-sentiment-extraction definition.
 */
export function wordJaccard(a: string, b: string): number {
  const x = new Set(a.toLowerCase().split(/\s+/).filter(Boolean));
  const y = new Set(b.toLowerCase().split(/\s+/).filter(Boolean));
  if (x.size === 0 && y.size === 0) return 0.5;
  let common = 0;
  for (const w of x) if (y.has(w)) common++;
  return common / (x.size + y.size - common);
}

/** Mean word-level Jaccard over paired strings. */
export function meanWordJaccard(truth: readonly string[], pred: readonly string[]): number {
  sameLength(truth, pred);
  if (truth.length === 0) throw new MetricError("no rows");
  let s = 0;
  for (let i = 0; i < truth.length; i++) s += wordJaccard(truth[i], pred[i]);
  return s / truth.length;
}

/** Levenshtein edit distance (insert, delete, substitute cost 1) over code points. */
export function levenshtein(a: string, b: string): number {
  const x = [...a],
    y = [...b];
  if (x.length === 0) return y.length;
  if (y.length === 0) return x.length;
  let prev = new Uint32Array(y.length + 1),
    cur = new Uint32Array(y.length + 1);
  for (let j = 0; j <= y.length; j++) prev[j] = j;
  for (let i = 1; i <= x.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= y.length; j++) {
      const sub = prev[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1);
      cur[j] = Math.min(sub, prev[j] + 1, cur[j - 1] + 1);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[y.length];
}

/** Normalised Levenshtein similarity 1 - d / max(len); two empty strings score 1. */
export function levenshteinSimilarity(a: string, b: string): number {
  const n = Math.max([...a].length, [...b].length);
  return n === 0 ? 1 : 1 - levenshtein(a, b) / n;
}

/** Mean normalised Levenshtein similarity over paired strings. */
export function meanLevenshteinSimilarity(truth: readonly string[], pred: readonly string[]): number {
  sameLength(truth, pred);
  if (truth.length === 0) throw new MetricError("no rows");
  let s = 0;
  for (let i = 0; i < truth.length; i++) s += levenshteinSimilarity(truth[i], pred[i]);
  return s / truth.length;
}

/** Dice coefficient of two binary masks (non-zero = set): 2|A∩B| / (|A|+|B|); both empty → 1. */
export function dice(a: ArrayLike<number>, b: ArrayLike<number>): number {
  sameLength(a, b);
  let both = 0,
    na = 0,
    nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] !== 0,
      y = b[i] !== 0;
    if (x) na++;
    if (y) nb++;
    if (x && y) both++;
  }
  return na + nb === 0 ? 1 : (2 * both) / (na + nb);
}
