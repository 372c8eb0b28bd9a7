// Paired base-vs-head statistics (pure). See docs/statistics.md for the reasoning.
//
// Unit of pairing: the competition. Each competition contributes its base runs and its head
// runs (one value per run: 0/1 medal, or a percentile in [0, 1]).
//  - estimate: mean over competitions of (head mean − base mean)
//  - interval: cluster-robust t-interval over per-competition differences (df = competitions − 1)
//  - test:     one-sided permutation test that swaps base/head labels within each competition;
//              exact (convolution of hypergeometric laws) for medals, Monte Carlo for percentiles
//  - power:    simulated (medals) or normal approximation of the same test (percentiles)
//  - verdict:  regressed | no-regression | inconclusive against a tolerance

import {
  convolve,
  hypergeometric,
  logChoose,
  makeRng,
  normalCdf,
  normalQuantile,
  studentTQuantile,
} from "./distributions.js";

export type Verdict = "regressed" | "no-regression" | "inconclusive";

/** One competition's runs on each side. Values: 0/1 (medal) or a score in [0, 1] (percentile). */
export interface CompetitionSample {
  competitionId: string;
  base: number[];
  head: number[];
}

export interface AnalyzeOptions {
  /** One-sided significance level of the test; the interval has confidence 1 − alpha. */
  alpha: number;
  /** Drop (absolute, on the 0..1 scale) tolerated before calling it a regression. */
  tolerance: number;
  /** Seed for every random draw (Monte Carlo permutations, power simulations). Default 1. */
  seed?: number;
  /** Target power for the minimum detectable effect. Default 0.8. */
  power?: number;
  /** Drops for the power table. Default [0.05, 0.10, 0.20]. */
  drops?: number[];
  /** Simulated suites per power figure (medals). Default 1000; 0 skips power and MDE (null). */
  simulations?: number;
  /** Monte Carlo permutations for non-binary values. Default 9999. */
  permutations?: number;
}

export interface PowerPoint {
  /** Drop of head below base, absolute on the 0..1 scale (0.05 = 5 points). */
  drop: number;
  /** Probability that the test flags the drop at alpha; null when the drop is impossible (base rate too low). */
  power: number | null;
}

export interface MetricAnalysis {
  metric: "medal" | "percentile";
  /** Competitions with at least one comparable run on each side. */
  competitions: number;
  baseRuns: number;
  headRuns: number;
  /** Mean over competitions of each side's mean (medal rate, or mean percentile). */
  base: number;
  head: number;
  /** head − base. Negative is worse. */
  delta: number;
  /** Two-sided (1 − alpha) interval for delta; null with fewer than two competitions. */
  interval: { lower: number; upper: number; level: number } | null;
  /** One-sided p-value for "head is worse than base". */
  pValue: number;
  pValueMethod: "exact" | "monte-carlo";
  /** Smallest drop detected with the target power at alpha; null when no drop the data allows would be. */
  mde: number | null;
  power: PowerPoint[];
  /** How power and MDE were obtained. */
  powerMethod: "simulation" | "normal-approximation";
  verdict: Verdict;
  /** One sentence saying why the verdict is what it is. */
  reason: string;
}

export interface Analysis {
  alpha: number;
  tolerance: number;
  seed: number;
  /** Target power of `mde`. */
  targetPower: number;
  medal: MetricAnalysis;
  /** null when no percentile values were given. */
  percentile: MetricAnalysis | null;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));
const isBinary = (xs: number[]) => xs.every((x) => x === 0 || x === 1);

function usable(samples: CompetitionSample[]): CompetitionSample[] {
  return samples.filter((s) => s.base.length > 0 && s.head.length > 0);
}

/** Mean over competitions of (head mean − base mean). */
export function pairedDelta(samples: CompetitionSample[]): number {
  return mean(samples.map((s) => mean(s.head) - mean(s.base)));
}

/** Cluster-robust (1 − alpha) t-interval over per-competition differences, clipped to [−1, 1]. */
export function clusterInterval(samples: CompetitionSample[], alpha: number): MetricAnalysis["interval"] {
  const m = samples.length;
  if (m < 2) return null;
  const d = samples.map((s) => mean(s.head) - mean(s.base));
  const dbar = mean(d);
  const sd = Math.sqrt(d.reduce((a, x) => a + (x - dbar) ** 2, 0) / (m - 1));
  const half = studentTQuantile(1 - alpha / 2, m - 1) * (sd / Math.sqrt(m));
  return { lower: clamp(dbar - half, -1, 1), upper: clamp(dbar + half, -1, 1), level: 1 - alpha };
}

/**
 * Exact one-sided permutation p-value for binary outcomes: within each competition the base/head
 * labels are exchangeable under "no change", so the head's medal count is hypergeometric given the
 * competition's total; the suite's head total is their convolution. p = P(head total ≤ observed).
 */
export function exactPermutationPValue(samples: CompetitionSample[]): number {
  const laws = samples.map((s) =>
    hypergeometric(s.base.length + s.head.length, sum(s.base) + sum(s.head), s.head.length),
  );
  const law = convolve(laws);
  const observed = samples.reduce((a, s) => a + sum(s.head), 0);
  let p = 0;
  for (let i = 0; i <= observed - law.min && i < law.pmf.length; i++) p += law.pmf[i];
  return clamp(p, 0, 1);
}

/** Monte Carlo version of the same test (any values), with the (1 + hits) / (1 + draws) correction. */
export function monteCarloPermutationPValue(
  samples: CompetitionSample[],
  draws: number,
  seed: number,
): number {
  const rng = makeRng(seed);
  const pooled = samples.map((s) => [...s.base, ...s.head]);
  const observed = samples.reduce((a, s) => a + sum(s.head), 0);
  const eps = 1e-9 * Math.max(1, Math.abs(observed));
  let hits = 0;
  for (let r = 0; r < draws; r++) {
    let total = 0;
    for (let i = 0; i < samples.length; i++) {
      const v = pooled[i];
      const k = samples[i].head.length;
      // Partial Fisher–Yates: the first k slots become the relabelled head runs.
      for (let j = 0; j < k; j++) {
        const pick = j + Math.floor(rng() * (v.length - j));
        const t = v[j];
        v[j] = v[pick];
        v[pick] = t;
        total += v[j];
      }
    }
    if (total <= observed + eps) hits++;
  }
  return (1 + hits) / (1 + draws);
}

function decide(
  delta: number,
  interval: MetricAnalysis["interval"],
  pValue: number,
  alpha: number,
  tolerance: number,
  unit: string,
): { verdict: Verdict; reason: string } {
  const pts = (x: number) => `${(Math.abs(x) * 100).toFixed(1)} points`;
  if (pValue <= alpha && delta < -tolerance) {
    return {
      verdict: "regressed",
      reason: `${unit} dropped by ${pts(delta)}, more than the ${pts(tolerance)} tolerance, and the drop is significant (p = ${formatP(pValue)} ≤ α = ${alpha}).`,
    };
  }
  if (interval && interval.lower > -tolerance) {
    return {
      verdict: "no-regression",
      reason: `the ${Math.round(interval.level * 100)}% interval rules out a drop larger than the ${pts(tolerance)} tolerance (lower bound ${signedPts(interval.lower)}).`,
    };
  }
  if (pValue <= alpha) {
    return {
      verdict: "inconclusive",
      reason: `${unit} dropped significantly (p = ${formatP(pValue)}) but by ${pts(delta)}, within the ${pts(tolerance)} tolerance; the interval does not exclude a larger drop.`,
    };
  }
  return {
    verdict: "inconclusive",
    reason: interval
      ? `${delta >= 0 ? `head is ${pts(delta)} better, but` : `the drop is not significant (p = ${formatP(pValue)}), but`} the ${Math.round(interval.level * 100)}% interval (${signedPts(interval.lower)} to ${signedPts(interval.upper)}) still allows a drop larger than the ${pts(tolerance)} tolerance: more seeds or competitions would settle it.`
      : `too few competitions to bound the difference (p = ${formatP(pValue)}).`,
  };
}

export function formatP(p: number): string {
  return p < 0.001 ? "<0.001" : p.toFixed(3);
}

function signedPts(x: number): string {
  const v = x * 100;
  return `${v >= 0 ? "+" : "−"}${Math.abs(v).toFixed(1)} pts`;
}

/** Per-competition base rates for simulations, shrunk away from 0 and 1 (few seeds never prove p = 0). */
function designRates(samples: CompetitionSample[]): number[] {
  return samples.map((s) => (sum(s.base) + 0.5) / (s.base.length + 1));
}

/**
 * Power of the exact test against a drop: head loses the same fraction of the base's medal
 * probability on every competition, so the suite's medal rate falls by `drop`.
 */
function simulatedPower(
  samples: CompetitionSample[],
  rates: number[],
  drop: number,
  alpha: number,
  simulations: number,
  seed: number,
): number | null {
  const avg = mean(rates);
  if (drop > avg + 1e-12) return null;
  const keep = avg > 0 ? 1 - drop / avg : 1;
  const rng = makeRng(seed);
  let rejections = 0;
  for (let r = 0; r < simulations; r++) {
    const sim: CompetitionSample[] = samples.map((s, i) => ({
      competitionId: s.competitionId,
      base: s.base.map(() => (rng() < rates[i] ? 1 : 0)),
      head: s.head.map(() => (rng() < rates[i] * keep ? 1 : 0)),
    }));
    if (exactPermutationPValue(sim) <= alpha) rejections++;
  }
  return rejections / simulations;
}

/** Smallest drop with simulated power ≥ target (bisection, common random numbers). */
function simulatedMde(
  samples: CompetitionSample[],
  rates: number[],
  alpha: number,
  target: number,
  simulations: number,
  seed: number,
): number | null {
  const maxDrop = mean(rates);
  const atMax = simulatedPower(samples, rates, maxDrop, alpha, simulations, seed);
  if (atMax === null || atMax < target) return null;
  let lo = 0;
  let hi = maxDrop;
  while (hi - lo > 0.0025) {
    const mid = (lo + hi) / 2;
    if ((simulatedPower(samples, rates, mid, alpha, simulations, seed) ?? 0) >= target) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * Normal approximation of the permutation test for a uniform shift `drop` of the head's values:
 * the statistic Σ(head sums) has permutation variance Σ nh·nb/(n(n−1))·SS and drifts by −drop·Σ nh·nb/n.
 */
function shiftPowerModel(samples: CompetitionSample[], alpha: number) {
  let variance = 0;
  let slope = 0;
  let logMinP = 0;
  for (const s of samples) {
    const v = [...s.base, ...s.head];
    const n = v.length;
    const nh = s.head.length;
    const nb = s.base.length;
    const vbar = mean(v);
    const ss = v.reduce((a, x) => a + (x - vbar) ** 2, 0);
    if (n > 1) variance += ((nh * nb) / (n * (n - 1))) * ss;
    slope += (nh * nb) / n;
    logMinP -= logChoose(n, nh);
  }
  // The smallest p-value any relabelling can give: above alpha, no drop is ever detected.
  if (Math.exp(logMinP) > alpha) return { power: () => 0, mde: () => null };
  const sd = Math.sqrt(variance);
  const zAlpha = normalQuantile(1 - alpha);
  return {
    // No spread at all (a deterministic agent): any uniform drop separates the sides completely.
    power: (drop: number) => (sd > 0 ? normalCdf((drop * slope) / sd - zAlpha) : drop > 0 ? 1 : 0),
    mde: (target: number): number | null => (sd > 0 ? ((zAlpha + normalQuantile(target)) * sd) / slope : 0),
  };
}

interface Resolved {
  alpha: number;
  tolerance: number;
  seed: number;
  power: number;
  drops: number[];
  simulations: number;
  permutations: number;
}

function emptyMetric(metric: MetricAnalysis["metric"], o: Resolved): MetricAnalysis {
  return {
    metric,
    competitions: 0,
    baseRuns: 0,
    headRuns: 0,
    base: NaN,
    head: NaN,
    delta: NaN,
    interval: null,
    pValue: 1,
    pValueMethod: "exact",
    mde: null,
    power: o.drops.map((drop) => ({ drop, power: null })),
    powerMethod: "simulation",
    verdict: "inconclusive",
    reason: "no competition has comparable runs on both sides.",
  };
}

/** Analysis of one metric (medal or percentile). Exported for tests and for custom reports. */
export function analyzeMetric(
  metric: MetricAnalysis["metric"],
  input: CompetitionSample[],
  options: AnalyzeOptions,
): MetricAnalysis {
  const o = resolve(options);
  const samples = usable(input);
  if (samples.length === 0) return emptyMetric(metric, o);

  const binary = samples.every((s) => isBinary(s.base) && isBinary(s.head));
  const delta = pairedDelta(samples);
  const interval = clusterInterval(samples, o.alpha);
  const pValue = binary
    ? exactPermutationPValue(samples)
    : monteCarloPermutationPValue(samples, o.permutations, o.seed);

  let power: PowerPoint[];
  let mde: number | null;
  let powerMethod: MetricAnalysis["powerMethod"];
  if (binary && o.simulations === 0) {
    power = o.drops.map((drop) => ({ drop, power: null }));
    mde = null;
    powerMethod = "simulation";
  } else if (binary) {
    const rates = designRates(samples);
    power = o.drops.map((drop, i) => ({
      drop,
      power: simulatedPower(samples, rates, drop, o.alpha, o.simulations, o.seed + 1 + i),
    }));
    mde = simulatedMde(
      samples,
      rates,
      o.alpha,
      o.power,
      Math.max(Math.min(200, o.simulations), Math.round(o.simulations / 2)),
      o.seed,
    );
    powerMethod = "simulation";
  } else {
    const model = shiftPowerModel(samples, o.alpha);
    power = o.drops.map((drop) => ({ drop, power: model.power(drop) }));
    const m = model.mde(o.power);
    mde = m !== null && m <= 1 ? m : null;
    powerMethod = "normal-approximation";
  }

  const unit = metric === "medal" ? "the medal rate" : "the mean percentile";
  const { verdict, reason } = decide(delta, interval, pValue, o.alpha, o.tolerance, unit);
  return {
    metric,
    competitions: samples.length,
    baseRuns: samples.reduce((a, s) => a + s.base.length, 0),
    headRuns: samples.reduce((a, s) => a + s.head.length, 0),
    base: mean(samples.map((s) => mean(s.base))),
    head: mean(samples.map((s) => mean(s.head))),
    delta,
    interval,
    pValue,
    pValueMethod: binary ? "exact" : "monte-carlo",
    mde,
    power,
    powerMethod,
    verdict,
    reason,
  };
}

function resolve(o: AnalyzeOptions): Resolved {
  if (!(o.alpha > 0 && o.alpha < 1)) throw new Error(`alpha must be in (0, 1), got ${o.alpha}`);
  if (!(o.tolerance >= 0 && o.tolerance <= 1))
    throw new Error(`tolerance must be in [0, 1], got ${o.tolerance}`);
  return {
    alpha: o.alpha,
    tolerance: o.tolerance,
    seed: o.seed ?? 1,
    power: o.power ?? 0.8,
    drops: o.drops ?? [0.05, 0.1, 0.2],
    simulations: o.simulations ?? 1000,
    permutations: o.permutations ?? 9999,
  };
}

/**
 * Medal-rate analysis (drives the verdict and the gate) plus the same analysis on percentiles.
 * `medals` holds 0/1 per run; `percentiles` (optional) holds a score in [0, 1] per run.
 */
export function analyze(
  data: { medals: CompetitionSample[]; percentiles?: CompetitionSample[] },
  options: AnalyzeOptions,
): Analysis {
  const o = resolve(options);
  return {
    alpha: o.alpha,
    tolerance: o.tolerance,
    seed: o.seed,
    targetPower: o.power,
    medal: analyzeMetric("medal", data.medals, options),
    percentile:
      data.percentiles && usable(data.percentiles).length > 0
        ? analyzeMetric("percentile", data.percentiles, options)
        : null,
  };
}
