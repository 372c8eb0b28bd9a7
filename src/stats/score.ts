// The score test and bound on the mean per-competition medal-rate difference (pure).
// docs/statistics.md ("Bounds") gives the reasoning; in short:
//  - delta = mean over competitions of (head rate − base rate); runs are independent draws.
//  - To test "delta = d0", each competition's two rates are estimated by maximum likelihood under
//    the constraint mean(head − base) = d0 (the restricted estimate of a score test, as in
//    Miettinen–Nurminen for one risk difference), with a few pseudo-runs from the empirical-Bayes
//    Beta of the rates added to each side, and the estimate's variance is evaluated there:
//    Var = Σ (p(1 − p)/n_base + q(1 − q)/n_head) / m².
//  - A suite whose differences are mostly 0 (0/3 vs 0/3) thus has, under the null, the variance of
//    the drop the null says is there, which a variance estimated from the observed runs lacks; the
//    pseudo-runs keep the restricted rates from piling that drop onto the few competitions that
//    happened to medal (which would understate it) when the rates spread no more than noise.
//  - For the medal claims the head side also gets two pseudo-runs at the rate the null gives it
//    (its base rate less the null's share, `NULL_RUNS`): the restricted fit alone left the head
//    rates of competitions always won unequal, and their variance too small, in sparse suites.

/** Medal counts of one competition: x of n runs on each side. */
export interface Counts {
  nb: number;
  xb: number;
  nh: number;
  xh: number;
}

/**
 * The rate that maximizes `x log p + (n − x) log(1 − p) + lam·p` on [0, 1]: the root in [0, 1] of
 * lam·p² + (n − lam)·p − x = 0 (lam = 0: x / n), in the form that is stable for either sign.
 */
export function tiltedRate(n: number, x: number, lam: number): number {
  const b = n - lam;
  const s = Math.sqrt(Math.max(0, b * b + 4 * lam * x));
  const p = b >= 0 ? (b + s > 0 ? (2 * x) / (b + s) : 0) : (-b + s) / (2 * lam);
  return Math.min(1, Math.max(0, p));
}

/**
 * Pseudo-runs added to each competition's counts on each side: a medals, b without; `scale`
 * multiplies the competition's variance (default 1: the Bernoulli variance at the null's rates).
 */
export interface Prior {
  a: number;
  b: number;
  scale?: number;
  /**
   * The competition's base rate as the base runs alone estimate it (the medal claims). When every
   * competition has one, the head side also gets `NULL_RUNS` pseudo-runs at the null's rate for it.
   */
  base?: number;
}

/**
 * Pseudo-runs on each competition's head side at the rate the null gives it: its base rate less
 * the null's share, the same share of every competition's base rate, q0 = p·(1 + m·d0/Σp).
 * Without them the restricted fit puts the null's drop on the competitions whose head runs missed;
 * when few did, those whose head runs all won keep rates near 1, and Σ q(1 − q) of such unequal
 * rates falls below that of the equal rates that produced them (false `no-regression` up to 7.8%
 * in suites of 40–75 competitions almost all always or never won, `npm run bench -- exact-level`).
 * Two, the fewest that bring those within α; they also pull a head rate toward its base one, which
 * at no change is where it lies.
 */
export const NULL_RUNS = 2;

/** Each competition's head pseudo-runs (weight, medals) at the null d0; none without base rates. */
function nullRuns(counts: Counts[], d0: number, priors: Prior[]): { w: number; x: number }[] {
  const m = counts.length;
  const base = priors.flatMap((p) => (p.base === undefined ? [] : [p.base]));
  if (m === 0 || priors.length !== m || base.length !== m) return counts.map(() => ({ w: 0, x: 0 }));
  const total = base.reduce((a, p) => a + p, 0);
  const share = total > 0 ? Math.max(0, 1 + (m * d0) / total) : 1;
  return base.map((p) => ({ w: NULL_RUNS, x: NULL_RUNS * Math.min(1, Math.max(0, share * p)) }));
}

/**
 * Rates per competition that maximize the likelihood under mean(head − base) = d0 (|d0| < 1), and
 * the variance of the estimate there. The Lagrange multiplier makes each competition's rates a
 * closed form (`tiltedRate`); the sum is monotone in it, so bisection finds the constraint.
 */
export function restrictedVariance(counts: Counts[], d0: number, priors: Prior[] = []): number {
  const m = counts.length;
  const pa = (i: number) => priors[i]?.a ?? 0;
  const pw = (i: number) => pa(i) + (priors[i]?.b ?? 0);
  const head = nullRuns(counts, d0, priors);
  // Each competition's fitted rates at multiplier lam (with the pseudo-runs of both sides).
  const baseRate = (i: number, lam: number) => tiltedRate(counts[i].nb + pw(i), counts[i].xb + pa(i), lam);
  const headRate = (i: number, lam: number) =>
    tiltedRate(counts[i].nh + pw(i) + head[i].w, counts[i].xh + pa(i) + head[i].x, -lam);
  const target = m * d0;
  const gap = (lam: number) => {
    let s = 0;
    for (let i = 0; i < m; i++) s += headRate(i, lam) - baseRate(i, lam);
    return s - target; // decreasing in lam
  };
  let lo = -1;
  let hi = 1;
  while (gap(lo) < 0 && lo > -1e12) lo *= 4;
  while (gap(hi) > 0 && hi < 1e12) hi *= 4;
  for (let i = 0; i < 100 && hi - lo > 1e-12 * Math.max(1, Math.abs(lo), Math.abs(hi)); i++) {
    const mid = (lo + hi) / 2;
    if (gap(mid) > 0) lo = mid;
    else hi = mid;
  }
  const lam = (lo + hi) / 2;
  let v = 0;
  for (let i = 0; i < m; i++) {
    const p = baseRate(i, lam);
    const q = headRate(i, lam);
    v += (priors[i]?.scale ?? 1) * ((p * (1 - p)) / counts[i].nb + (q * (1 - q)) / counts[i].nh);
  }
  return v / (m * m);
}

/**
 * The medal claims' continuity correction: how far the estimate must pass d0 before its distance
 * counts. The estimate moves on a lattice (steps of 1/m with one run a side), and with one or two
 * runs a side the normal approximation of that lattice let a claim's exact level pass α (up to
 * 5.5% at 5%, `npm run bench -- exact-level`). Each competition adds a quarter of a step with one
 * run a side, weighted by how far its mean 1/runs lies above that of three runs a side: 1 with one
 * run a side, ¼ with two, ½ with 3 base and 1 head, 0 with three or more.
 */
export function discreteness(counts: Counts[]): number {
  const m = counts.length;
  const w = counts.reduce((a, c) => a + 1.5 * Math.max(0, (1 / c.nb + 1 / c.nh) / 2 - 1 / 3), 0);
  return m ? w / (4 * m * m) : 0;
}

/**
 * Whether the score test rejects "delta ≤ d0" (side "lower": the estimate is far enough above d0)
 * or "delta ≥ d0" (side "upper": far enough below), at critical value `crit`; the estimate's
 * distance from d0 is first shortened by `correction` (`discreteness`; 0 for percentiles).
 */
export function scoreRejects(
  counts: Counts[],
  d0: number,
  side: "lower" | "upper",
  crit: number,
  priors: Prior[] = [],
  correction = 0,
): boolean {
  const m = counts.length;
  const est = counts.reduce((a, c) => a + c.xh / c.nh - c.xb / c.nb, 0) / m;
  const excess = (side === "lower" ? est - d0 : d0 - est) - correction;
  if (!(excess > 0)) return false;
  if (!(d0 > -1 && d0 < 1)) return true; // the extremes have no variance: any excess rejects
  return excess > crit * Math.sqrt(restrictedVariance(counts, d0, priors));
}

/**
 * The score bound on one side: where the test's statistic crosses `crit`, found by bisection
 * bracketed at `at` (the tolerance being judged), so that the bound lies beyond `at` exactly when
 * the test at `at` rejects. Lower side: the bound is above `at` iff "delta ≤ at" is rejected.
 */
export function scoreBound(
  counts: Counts[],
  side: "lower" | "upper",
  crit: number,
  at: number,
  priors: Prior[] = [],
  correction = 0,
): number {
  const rejects = (d0: number) => scoreRejects(counts, d0, side, crit, priors, correction);
  // Lower side: rejected points lie below the bound. Bracket [r, a] with r rejected, a accepted.
  const sign = side === "lower" ? 1 : -1;
  const edge = -sign; // −1 (lower) or +1 (upper): the far end, rejected unless the estimate is there
  let r: number;
  let a: number;
  if (rejects(at)) {
    r = at;
    a = sign; // +1 (lower): "delta ≤ 1" is never rejected
  } else {
    r = edge;
    a = at;
    if (!rejects(edge)) return edge;
  }
  for (let i = 0; i < 50 && Math.abs(a - r) > 1e-9; i++) {
    const mid = (r + a) / 2;
    if (rejects(mid)) r = mid;
    else a = mid;
  }
  return r;
}
