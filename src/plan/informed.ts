// The history-informed plan (pure): from the base's own history (runs of the identity the base
// has now, history/history.ts) decide before the head starts
//  - how many head seeds each competition gets (more where the outcome varies),
//  - the order the runs start in (the most informative first, within each seed),
//  - which competitions are covered by a bound from the history instead of runs (opt-in).
// docs/statistics.md ("The history-informed plan") says why each step keeps the verdict's level.
import { logChoose } from "../stats/distributions.js";
import type { ClaimTolerances } from "../stats/stats.js";

export interface HistoryCounts {
  /** Comparable base runs of the base's current identity, and the medals among them. */
  runs: number;
  medals: number;
}

export interface InformedInput {
  competitions: { id: string; secs: number; history: HistoryCounts | null }[];
  /** The most seeds a competition gets (the config's seeds). */
  seeds: number;
  alpha: number;
  tolerance: number;
  /** Base runs of the base's identity a competition needs before the history plans it (default 20). */
  minRuns?: number;
  /** Cover competitions by a history bound instead of runs (default false: see docs/statistics.md). */
  cover?: boolean;
  /** Share of α spent on the history bounds when covering (default 0.2). */
  historyShare?: number;
}

/** A competition the head does not run: the base's medal rate bounded from its history. */
export interface Covered {
  runs: number;
  medals: number;
  /** The base's medal rate is at most `upper` and at least `lower`, each at one-sided level `level`. */
  upper: number;
  lower: number;
  level: number;
}

export interface InformedCompetition {
  id: string;
  /** Head seeds (0 when covered). */
  seeds: number;
  /** Smoothed base rate (x + ½)/(n + 1) from the history; null without enough history (then it gets every seed). */
  rate: number | null;
  /** The history it was planned from (null: none, or too few runs). */
  history: HistoryCounts | null;
  covered: Covered | null;
}

export interface InformedPlan {
  competitions: InformedCompetition[];
  /** One-sided level left for each claim of the runs' analysis, and the part spent on history bounds. */
  alphaRuns: number;
  alphaHistory: number;
  headRuns: number;
  fixedRuns: number;
}

/** P(X ≤ x) for X ~ Binomial(n, p). */
export function binomialCdf(x: number, n: number, p: number): number {
  if (x >= n) return 1;
  if (x < 0) return 0;
  if (p <= 0) return 1;
  if (p >= 1) return 0;
  let s = 0;
  for (let k = 0; k <= x; k++) s += Math.exp(logChoose(n, k) + k * Math.log(p) + (n - k) * Math.log1p(-p));
  return Math.min(1, s);
}

/**
 * Clopper–Pearson one-sided bounds on a binomial rate from x successes in n: P(rate > upper) ≤ a and
 * P(rate < lower) ≤ a, whatever the rate. Bisection on the binomial law (monotone in p).
 */
export function clopperPearson(x: number, n: number, a: number): { lower: number; upper: number } {
  const solve = (f: (p: number) => boolean) => {
    let lo = 0;
    let hi = 1;
    for (let i = 0; i < 60; i++) {
      const mid = (lo + hi) / 2;
      if (f(mid)) lo = mid;
      else hi = mid;
    }
    return lo;
  };
  // upper: the largest p with P(X ≤ x | p) ≥ a; lower: the smallest p with P(X ≥ x | p) ≥ a.
  const upper = x >= n ? 1 : solve((p) => binomialCdf(x, n, p) > a);
  const lower = x <= 0 ? 0 : solve((p) => 1 - binomialCdf(x - 1, n, p) < a);
  return { lower, upper };
}

/**
 * Head seeds where the outcome varies: Neyman's allocation (seeds ∝ the outcome's sd √(p(1−p)),
 * a coin's 0.5 getting every seed), rounded up, at least 1.
 */
export function seedsFor(rate: number, seeds: number): number {
  const sd = Math.sqrt(rate * (1 - rate));
  return Math.min(seeds, Math.max(1, Math.ceil((seeds * sd) / 0.5 - 1e-9)));
}

export function informedPlan(input: InformedInput): InformedPlan {
  const minRuns = input.minRuns ?? 20;
  const eligible = input.competitions.filter((c) => (c.history?.runs ?? 0) >= minRuns);
  const alphaHistory = input.cover && eligible.length > 0 ? input.alpha * (input.historyShare ?? 0.2) : 0;
  // Bonferroni over every competition with enough history, fixed before any outcome is looked at,
  // so choosing which ones to cover (from the same history) cannot break the level.
  const level = eligible.length > 0 ? alphaHistory / eligible.length : 0;
  const m = input.competitions.length;
  const competitions: InformedCompetition[] = input.competitions.map((c) => {
    const h = c.history;
    if (!h || h.runs < minRuns)
      return { id: c.id, seeds: input.seeds, rate: null, history: null, covered: null };
    const rate = (h.medals + 0.5) / (h.runs + 1);
    return { id: c.id, seeds: seedsFor(rate, input.seeds), rate, history: h, covered: null };
  });
  if (alphaHistory > 0) {
    // Cover the never-won competitions whose bound costs the least, while their bounds together
    // use at most half the tolerance (the no-regression claim keeps the rest), `regressed` needs at
    // most twice the tolerance on the run competitions, and two competitions run.
    const candidates = competitions
      .map((c, i) => ({ c, h: input.competitions[i].history }))
      .filter((x) => x.c.rate !== null && x.h!.medals === 0)
      .map((x) => ({ ...x, b: clopperPearson(0, x.h!.runs, level) }))
      .sort((a, b) => a.b.upper - b.b.upper || a.c.id.localeCompare(b.c.id));
    let used = 0;
    let gain = 0;
    let running = m;
    for (const x of candidates) {
      const regressed = (input.tolerance * m + gain + 1 - x.b.lower) / (running - 1);
      if (running <= 2 || used + x.b.upper / m > input.tolerance / 2 || regressed > 2 * input.tolerance)
        break;
      used += x.b.upper / m;
      gain += 1 - x.b.lower;
      running--;
      x.c.covered = { runs: x.h!.runs, medals: 0, upper: x.b.upper, lower: x.b.lower, level };
      x.c.seeds = 0;
    }
  }
  return {
    competitions,
    alphaRuns: input.alpha - alphaHistory,
    alphaHistory,
    headRuns: competitions.reduce((a, c) => a + c.seeds, 0),
    fixedRuns: m * input.seeds,
  };
}

/**
 * The start order within each seed: the competitions whose outcome varies most first (their runs
 * carry the most information), longer runs first among equals. Returned as the scheduler's sort
 * key (larger starts first), seed-major like monitorHooks' so that the first look comes early.
 */
export function informedKey(c: InformedCompetition, seed: number, seeds: number, secs: number): number {
  const sd = c.rate === null ? 0.5 : Math.sqrt(c.rate * (1 - c.rate));
  return (seeds - seed) * 1e9 + Math.round(sd * 1000) * 1e5 + Math.min(Math.round(secs / 3600), 99_999);
}

/** The competitions a plan covers by a history bound (empty without a plan). */
export function coveredIds(plan: InformedPlan | null | undefined): Set<string> {
  return new Set(plan?.competitions.filter((c) => c.covered).map((c) => c.id));
}

/**
 * The tolerances the runs' analysis must meet so that each claim holds for the whole suite, with
 * the covered competitions counted against the head: for `no-regression` each covered one may
 * have dropped by its upper bound; for `regressed` the head may have gained up to 1 − its lower
 * bound there. Null when a claim cannot be reached at all.
 */
export function coveredTolerances(plan: InformedPlan, tolerance: number): ClaimTolerances {
  const m = plan.competitions.length;
  const covered = plan.competitions.filter((c) => c.covered);
  const run = m - covered.length;
  if (covered.length === 0) return { noRegression: tolerance, regressed: tolerance };
  const drop = covered.reduce((a, c) => a + c.covered!.upper, 0);
  const gain = covered.reduce((a, c) => a + 1 - c.covered!.lower, 0);
  const nr = (tolerance * m - drop) / run;
  return { noRegression: nr > 0 ? nr : null, regressed: (tolerance * m + gain) / run };
}

/** Rounded so the sentence stays true: a bound up, a confidence down. */
const up1 = (x: number) => (Math.ceil(x * 1000 - 1e-9) / 10).toFixed(1);
function confidence(level: number): string {
  const digits = Math.max(1, Math.ceil(-Math.log10(level)) - 1);
  const f = 10 ** digits;
  return `${(Math.floor((1 - level) * 100 * f + 1e-9) / f).toFixed(digits)} %`;
}

/**
 * "toy-x: base 0 medals in 42 runs of its current identity; its possible drop ≤ 16.8 points at
 * 99.954 % (one-sided), counted against the head; …". True at its stated level, and all of them
 * together at 1 − alphaHistory (Bonferroni).
 */
export function coveredSentence(id: string, c: Covered): string {
  return `${id}: base ${c.medals} medal${c.medals === 1 ? "" : "s"} in ${c.runs} runs of its current identity; its possible drop ≤ ${up1(c.upper)} points at ${confidence(c.level)} (one-sided), counted against the head; for \`regressed\` it counts as a possible gain of up to ${up1(1 - c.lower)} points for the head.`;
}
