// The best any sequential design could do (issue 30's savings target), in the Brownian approximation
// of the paired estimate that the monitor's guarantee uses (docs/statistics.md, "What no design can do").
//
// The suite's score S = Z·√I after each head run is a Brownian motion in the information I: under a
// true standardized distance θ from the tolerance, S ~ N(μ·I, I) with μ = θ / √I_fixed; at the tolerance
// (the claim's null boundary) S ~ N(0, I). An ORACLE knows θ and every competition's variance and picks
// where to stop and whether to claim by backward induction on a grid of S, minimizing
//   E_θ[cost] − λ·P_θ(claim) + η·P_0(claim),
// with η tuned so P_0(claim) = α exactly and λ raised until P_θ(claim) reaches the fixed design's
// decisive rate. Information is scaled so that the fixed design (3 head seeds, same base) has I = 1,
// cost so that it costs 1.
import { normalCdf, normalQuantile } from "../../src/stats/distributions.js";

/** One look: the information and the cost spent so far (both relative to the fixed design's). */
export interface Look {
  info: number;
  cost: number;
}

/** I = m² / Σ v_i (1/n_b + 1/n_i) with separate base and head variances (the estimate's information). */
export function information(vb: number[], vh: number[], nb: number, n: number[]): number {
  let s = 0;
  for (let i = 0; i < n.length; i++) s += vb[i] / nb + vh[i] / n[i];
  return (n.length * n.length) / s;
}

/** Scale a run sequence's looks by the fixed design's information and cost (3 head seeds each). */
function scaled(
  vb: number[],
  vh: number[],
  hours: number[],
  nb: number,
  order: number[],
  fixedSeeds: number,
): Look[] {
  const m = vb.length;
  const i3 = information(
    vb,
    vh,
    nb,
    vb.map(() => fixedSeeds),
  );
  const c3 = fixedSeeds * hours.reduce((a, b) => a + b, 0);
  const n = vb.map(() => 1); // the first look: every competition has one head run
  let cost = hours.reduce((a, b) => a + b, 0);
  const looks: Look[] = [{ info: information(vb, vh, nb, n) / i3, cost: cost / c3 }];
  for (const i of order.slice(m)) {
    n[i]++;
    cost += hours[i];
    looks.push({ info: information(vb, vh, nb, n) / i3, cost: cost / c3 });
  }
  return looks;
}

/**
 * Even allocation: seed 0 of every competition, then seed 1, …, up to `maxSeeds`; looks from the
 * first run of the last competition on (before it the suite's mean cannot be estimated).
 */
export function evenCurve(
  vb: number[],
  vh: number[],
  hours: number[],
  nb: number,
  maxSeeds: number,
  fixedSeeds = 3,
): Look[] {
  const order: number[] = [];
  for (let k = 0; k < maxSeeds; k++) for (let i = 0; i < vb.length; i++) order.push(i);
  return scaled(vb, vh, hours, nb, order, fixedSeeds);
}

/**
 * The oracle's allocation: one run per competition first, then always the run that adds the most
 * information per GPU-hour, vh_i (1/n_i − 1/(n_i + 1)) / hours_i, at most `maxSeeds` per competition.
 * Σ vh_i / n_i is separable and convex in each n_i, so with equal run times this greedy order has the
 * most information of any allocation at every number of runs.
 */
export function greedyCurve(
  vb: number[],
  vh: number[],
  hours: number[],
  nb: number,
  maxSeeds: number,
  fixedSeeds = 3,
): Look[] {
  const m = vb.length;
  const n = vb.map(() => 1);
  const order = vb.map((_, i) => i);
  for (let r = m; r < m * maxSeeds; r++) {
    let best = -1;
    let gain = -Infinity;
    for (let i = 0; i < m; i++) {
      if (n[i] >= maxSeeds) continue;
      const g = (vh[i] * (1 / n[i] - 1 / (n[i] + 1))) / hours[i];
      if (g > gain) {
        gain = g;
        best = i;
      }
    }
    n[best]++;
    order.push(best);
  }
  return scaled(vb, vh, hours, nb, order, fixedSeeds);
}

/** The drift θ (in units of the fixed design's standard error) at which a one-sided level-α z test has power `p`. */
export const thetaOf = (p: number, alpha: number) => normalQuantile(1 - alpha) + normalQuantile(p);
/** Power of the one-sided level-α z test at information `info` (fixed = 1) and drift θ. */
export const zPower = (theta: number, alpha: number, info = 1) =>
  normalCdf(theta * Math.sqrt(info) - normalQuantile(1 - alpha));

/** A grid over S and the Gaussian transition kernels between consecutive looks, per drift. */
export interface Grid {
  looks: Look[];
  theta: number;
  h: number;
  x: Float64Array;
  /** Kernel half-width (points) and weights between look k and k + 1, under θ and under the null. */
  kernels: { half: number; alt: Float64Array; nul: Float64Array }[];
}

export function makeGrid(looks: Look[], theta: number, h = 0.02): Grid {
  const mu = theta;
  let lo = 0;
  let hi = 0;
  for (const l of looks) {
    const sd = Math.sqrt(l.info);
    lo = Math.min(lo, Math.min(0, mu * l.info) - 7 * sd);
    hi = Math.max(hi, Math.max(0, mu * l.info) + 7 * sd);
  }
  const npts = Math.ceil((hi - lo) / h) + 1;
  const x = new Float64Array(npts);
  for (let i = 0; i < npts; i++) x[i] = lo + i * h;
  const kernels: Grid["kernels"] = [];
  for (let k = 0; k + 1 < looks.length; k++) {
    const d = looks[k + 1].info - looks[k].info;
    const sd = Math.sqrt(Math.max(d, 1e-12));
    const half = Math.ceil((Math.abs(mu * d) + 6 * sd) / h);
    const weights = (shift: number) => {
      const w = new Float64Array(2 * half + 1);
      let sum = 0;
      for (let j = -half; j <= half; j++) {
        const z = (j * h - shift) / sd;
        w[j + half] = Math.exp(-0.5 * z * z);
        sum += w[j + half];
      }
      for (let j = 0; j < w.length; j++) w[j] /= sum;
      return w;
    };
    kernels.push({ half, alt: weights(mu * d), nul: weights(0) });
  }
  return { looks, theta, h, x, kernels };
}

export interface Outcome {
  /** P_θ(claim), P_0(claim) and E_θ[cost] (fixed design = 1). */
  power: number;
  level: number;
  cost: number;
}

/** The Bayes-optimal stopping rule for (λ, η), and its claim probabilities and expected cost. */
export function solve(g: Grid, lambda: number, eta: number): Outcome {
  const { looks, x, kernels } = g;
  const mu = g.theta;
  const L = looks.length;
  const N = x.length;
  // Claim at look k iff λ > η·LR_k(x), LR = f_0/f_θ = exp(−μx + μ²I/2): iff x > cut_k.
  const cut = looks.map((l) => (mu * mu * l.info) / 2 / mu - Math.log(lambda / eta) / mu);
  const stopValue = (k: number, i: number) =>
    looks[k].cost - Math.max(0, lambda - eta * Math.exp(-mu * x[i] + (mu * mu * looks[k].info) / 2));
  const cutIndex = (k: number) => Math.min(N - 1, Math.max(0, Math.round((cut[k] - x[0]) / g.h)));
  const stop: Uint8Array[] = new Array<Uint8Array>(L);
  let V = new Float64Array(N);
  for (let i = 0; i < N; i++) V[i] = stopValue(L - 1, i);
  stop[L - 1] = new Uint8Array(N).fill(1);
  // Where the kernel's reach lies wholly in one stop zone of look k + 1 (no claim, or claim), stopping
  // at k is optimal: continuing costs more and, in the claim zone, E_θ[LR_{k+1}] = LR_k (a martingale).
  // So the convolution is computed only near look k + 1's continuation region and claim cut.
  let band = cutIndex(L - 1);
  let bandLo = band;
  let bandHi = band;
  for (let k = L - 2; k >= 0; k--) {
    const { half, alt } = kernels[k];
    const next = new Float64Array(N);
    const s = new Uint8Array(N).fill(1);
    for (let i = 0; i < N; i++) next[i] = stopValue(k, i);
    const from = Math.max(0, bandLo - half - 1);
    const to = Math.min(N - 1, bandHi + half + 1);
    let lo = N;
    let hi = -1;
    for (let i = from; i <= to; i++) {
      let c = 0;
      if (i - half >= 0 && i + half < N) {
        const o = i - half;
        for (let j = 0; j < alt.length; j++) c += alt[j] * V[o + j];
      } else
        for (let j = -half; j <= half; j++) {
          const at = i + j < 0 ? 0 : i + j >= N ? N - 1 : i + j; // the edge value beyond the grid
          c += alt[j + half] * V[at];
        }
      if (c < next[i]) {
        next[i] = c;
        s[i] = 0;
        if (i < lo) lo = i;
        hi = i;
      }
    }
    band = cutIndex(k);
    bandLo = Math.min(band, lo);
    bandHi = Math.max(band, hi);
    V = next;
    stop[k] = s;
  }
  const forward = (drift: number, kernel: "alt" | "nul") => {
    let dens = new Float64Array(N);
    const sd0 = Math.sqrt(looks[0].info);
    for (let i = 0; i < N; i++) {
      const z = (x[i] - drift * looks[0].info) / sd0;
      dens[i] = (Math.exp(-0.5 * z * z) / (sd0 * Math.sqrt(2 * Math.PI))) * g.h;
    }
    let cost = 0;
    let claim = 0;
    for (let k = 0; k < L; k++) {
      let lo = N;
      let hi = -1;
      for (let i = 0; i < N; i++) {
        if (dens[i] === 0) continue;
        if (stop[k][i]) {
          cost += dens[i] * looks[k].cost;
          // The point stands for [x − h/2, x + h/2]: the part beyond the cut claims (keeps P continuous in η).
          const f = (x[i] + g.h / 2 - cut[k]) / g.h;
          claim += dens[i] * (f >= 1 ? 1 : f <= 0 ? 0 : f);
          dens[i] = 0;
        } else {
          if (i < lo) lo = i;
          hi = i;
        }
      }
      if (k === L - 1 || hi < 0) break;
      const { half } = kernels[k];
      const w = kernels[k][kernel];
      const out = new Float64Array(N);
      for (let i = lo; i <= hi; i++) {
        const d = dens[i];
        if (d === 0) continue;
        const a = Math.max(0, i - half);
        const b = Math.min(N - 1, i + half);
        for (let t = a; t <= b; t++) out[t] += d * w[t - i + half];
      }
      dens = out;
    }
    return { cost, claim };
  };
  const alt = forward(mu, "alt");
  const nul = forward(0, "nul");
  return { power: alt.claim, level: nul.claim, cost: alt.cost };
}

/** η (on the log scale, bracketed and then bisected) so that P_0(claim) = α for this λ. */
export function levelEta(g: Grid, lambda: number, alpha: number, guess = 0): { eta: number; out: Outcome } {
  const at = (le: number) => solve(g, lambda, Math.exp(le));
  let lo = guess - 1;
  let hi = guess + 1;
  let fLo = at(lo);
  while (fLo.level < alpha && lo > -60) {
    hi = lo;
    lo -= 3;
    fLo = at(lo);
  }
  let fHi = at(hi);
  while (fHi.level > alpha && hi < 60) {
    lo = hi;
    fLo = fHi;
    hi += 3;
    fHi = at(hi);
  }
  // P_0(claim) falls as η grows; interpolate on the bracket (Illinois variant of regula falsi).
  let side = 0;
  let best =
    Math.abs(fLo.level - alpha) < Math.abs(fHi.level - alpha) ? { le: lo, o: fLo } : { le: hi, o: fHi };
  let a = fLo.level - alpha;
  let b = fHi.level - alpha;
  for (let it = 0; it < 40 && hi - lo > 1e-7; it++) {
    const le = a === b ? (lo + hi) / 2 : hi - (b * (hi - lo)) / (b - a);
    const o = at(le);
    const f = o.level - alpha;
    if (Math.abs(f) < Math.abs(best.o.level - alpha)) best = { le, o };
    if (Math.abs(f) < 1e-5 * alpha) break;
    if (f > 0) {
      lo = le;
      a = f;
      if (side === 1) b /= 2;
      side = 1;
    } else {
      hi = le;
      b = f;
      if (side === -1) a /= 2;
      side = -1;
    }
  }
  return { eta: Math.exp(best.le), out: best.o };
}

export interface Bound {
  /** The largest saving 1 − (E cost / P) ÷ (1 / p_fixed) found at P_θ(claim) ≥ p_fixed; null when no λ reaches p_fixed. */
  saving: number | null;
  power: number;
  cost: number;
  /** The most decisive the oracle gets (the largest λ tried), at level α. */
  maxPower: number;
}

/**
 * The oracle's best saving at a decisive rate at least `pFixed`: λ bisected (log scale) until
 * P_θ(claim) = pFixed, then a few larger λ (more decisive, more costly) in case the ratio falls.
 */
export function bestSaving(g: Grid, alpha: number, pFixed: number, slack = 0): Bound {
  const target = pFixed - slack;
  let guess = 0;
  const at = (lambda: number) => {
    const r = levelEta(g, lambda, alpha, guess);
    guess = Math.log(r.eta);
    return r.out;
  };
  let hi = 64;
  let oHi = at(hi);
  for (let i = 0; i < 3 && oHi.power < target; i++) {
    hi *= 16;
    oHi = at(hi);
  }
  const maxPower = oHi.power;
  if (oHi.power < target) return { saving: null, power: oHi.power, cost: oHi.cost, maxPower };
  let lo = 0.5;
  for (let i = 0; i < 14 && hi / lo > 1.01; i++) {
    const mid = Math.sqrt(lo * hi);
    const o = at(mid);
    if (o.power >= target) {
      hi = mid;
      oHi = o;
    } else lo = mid;
  }
  let best = oHi;
  for (const f of [2]) {
    const o = at(hi * f);
    if (o.power >= target && o.cost / o.power < best.cost / best.power) best = o;
  }
  return { saving: 1 - (best.cost / best.power) * pFixed, power: best.power, cost: best.cost, maxPower };
}
