import { MetricError, requireFinite, sameLength, type Vec } from "./errors.js";

/** Average precision at k of one query (Kaggle's apk); 0 when `actual` is empty. */
export function averagePrecisionAtK<T>(actual: readonly T[], predicted: readonly T[], k: number): number {
  if (actual.length === 0) return 0;
  const want = new Set(actual);
  const seen = new Set<T>();
  let hits = 0,
    score = 0;
  for (let i = 0; i < Math.min(k, predicted.length); i++) {
    const p = predicted[i];
    if (want.has(p) && !seen.has(p)) {
      hits++;
      score += hits / (i + 1);
    }
    seen.add(p);
  }
  return score / Math.min(actual.length, k);
}

/** Mean average precision at k over queries. */
export function mapAtK<T>(
  actual: readonly (readonly T[])[],
  predicted: readonly (readonly T[])[],
  k: number,
): number {
  if (actual.length !== predicted.length) throw new MetricError("different number of queries");
  if (actual.length === 0) throw new MetricError("no queries");
  let s = 0;
  for (let i = 0; i < actual.length; i++) s += averagePrecisionAtK(actual[i], predicted[i], k);
  return s / actual.length;
}

/** Pearson correlation; NaN when either side is constant (as scipy). */
export function pearson(a: Vec, b: Vec): number {
  sameLength(a, b);
  if (a.length < 2) throw new MetricError("at least two rows are needed");
  requireFinite(a, "the first input");
  requireFinite(b, "the second input");
  let ma = 0,
    mb = 0;
  for (let i = 0; i < a.length; i++) {
    ma += a[i];
    mb += b[i];
  }
  ma /= a.length;
  mb /= b.length;
  let sab = 0,
    saa = 0,
    sbb = 0;
  for (let i = 0; i < a.length; i++) {
    const da = a[i] - ma,
      db = b[i] - mb;
    sab += da * db;
    saa += da * da;
    sbb += db * db;
  }
  const r = sab / Math.sqrt(saa * sbb);
  return Math.max(-1, Math.min(1, r));
}

/** Ranks 1..n with ties given their average rank. */
export function averageRanks(x: Vec): Float64Array {
  const n = x.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => x[i] - x[j]);
  const ranks = new Float64Array(n);
  for (let i = 0; i < n;) {
    let j = i;
    while (j + 1 < n && x[order[j + 1]] === x[order[i]]) j++;
    const r = (i + j) / 2 + 1;
    for (let q = i; q <= j; q++) ranks[order[q]] = r;
    i = j + 1;
  }
  return ranks;
}

/** Spearman rank correlation (Pearson on average ranks). */
export function spearman(a: Vec, b: Vec): number {
  requireFinite(a, "the first input");
  requireFinite(b, "the second input");
  return pearson(averageRanks(a), averageRanks(b));
}
