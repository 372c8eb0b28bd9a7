// Small, dependency-free numerics for the statistics: a seeded PRNG, normal and
// Student-t quantiles, and the hypergeometric law used by the exact permutation test.

/** Seeded 32-bit PRNG (splitmix32 style). Returns floats in [0, 1). */
export function makeRng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    z = (z ^ (z >>> 16)) >>> 0;
    return z / 4294967296;
  };
}

/** Standard normal CDF (Taylor series; exact to ~1e-12 for |x| < 8). */
export function normalCdf(x: number): number {
  if (x < -8) return 0;
  if (x > 8) return 1;
  let term = x;
  let sum = x;
  for (let i = 1; i < 200 && Math.abs(term) > 1e-16 * Math.abs(sum); i++) {
    term *= (x * x) / (2 * i + 1);
    sum += term;
  }
  return 0.5 + sum * Math.exp(-0.5 * x * x - 0.5 * Math.log(2 * Math.PI));
}

/** Student-t CDF for integer degrees of freedom (closed-form series). */
export function studentTCdf(t: number, df: number): number {
  if (!Number.isInteger(df) || df < 1)
    throw new Error(`studentTCdf: df must be a positive integer, got ${df}`);
  if (df > 400) return normalCdf(t);
  const theta = Math.atan(Math.abs(t) / Math.sqrt(df));
  const s = Math.sin(theta);
  const c2 = Math.cos(theta) ** 2;
  let inside: number; // P(|T| < |t|)
  if (df % 2 === 1) {
    let sum = 0;
    let term = Math.cos(theta);
    for (let k = 3; k <= df; k += 2) {
      sum += term;
      term *= (c2 * (k - 1)) / k;
    }
    inside = (2 / Math.PI) * (theta + s * sum);
  } else {
    let sum = 0;
    let term = 1;
    for (let k = 2; k <= df; k += 2) {
      sum += term;
      term *= (c2 * (k - 1)) / k;
    }
    inside = s * sum;
  }
  return t >= 0 ? 0.5 + inside / 2 : 0.5 - inside / 2;
}

function invert(cdf: (x: number) => number, p: number): number {
  if (!(p > 0 && p < 1)) throw new Error(`quantile: p must be in (0, 1), got ${p}`);
  let lo = -1000;
  let hi = 1000;
  for (let i = 0; i < 200 && hi - lo > 1e-10; i++) {
    const mid = (lo + hi) / 2;
    if (cdf(mid) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

export function normalQuantile(p: number): number {
  return invert(normalCdf, p);
}

export function studentTQuantile(p: number, df: number): number {
  return invert((x) => studentTCdf(x, df), p);
}

const logFactorials: number[] = [0];
function logFactorial(n: number): number {
  for (let i = logFactorials.length; i <= n; i++) logFactorials.push(logFactorials[i - 1] + Math.log(i));
  return logFactorials[n];
}

export function logChoose(n: number, k: number): number {
  return logFactorial(n) - logFactorial(k) - logFactorial(n - k);
}

/**
 * Law of the number of successes among `draws` items drawn without replacement from
 * `total` items of which `successes` are successes. Returns { min, pmf } with pmf[i] = P(X = min + i).
 */
export function hypergeometric(
  total: number,
  successes: number,
  draws: number,
): { min: number; pmf: number[] } {
  const min = Math.max(0, draws - (total - successes));
  const max = Math.min(draws, successes);
  const denom = logChoose(total, draws);
  const pmf: number[] = [];
  for (let k = min; k <= max; k++) {
    pmf.push(Math.exp(logChoose(successes, k) + logChoose(total - successes, draws - k) - denom));
  }
  return { min, pmf };
}

/** Convolution of independent integer-valued laws given as { min, pmf }. */
export function convolve(laws: { min: number; pmf: number[] }[]): { min: number; pmf: number[] } {
  let acc = { min: 0, pmf: [1] };
  for (const law of laws) {
    const out = new Array<number>(acc.pmf.length + law.pmf.length - 1).fill(0);
    for (let i = 0; i < acc.pmf.length; i++) {
      const a = acc.pmf[i];
      if (a === 0) continue;
      for (let j = 0; j < law.pmf.length; j++) out[i + j] += a * law.pmf[j];
    }
    acc = { min: acc.min + law.min, pmf: out };
  }
  return acc;
}

/** Standard normal draw (Box–Muller) from a uniform PRNG. */
export function normalDraw(rng: () => number): number {
  const u = 1 - rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

/** Gamma(shape, 1) draw (Marsaglia–Tsang; shape < 1 boosted by U^(1/shape)). */
export function gammaDraw(shape: number, rng: () => number): number {
  if (shape < 1) return gammaDraw(shape + 1, rng) * Math.pow(1 - rng(), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = normalDraw(rng);
    const v = (1 + c * x) ** 3;
    if (v <= 0) continue;
    const u = 1 - rng();
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
}

/** Beta(a, b) draw; a or b of 0 gives the point mass at 1 or 0. */
export function betaDraw(a: number, b: number, rng: () => number): number {
  if (a <= 0) return 0;
  if (b <= 0) return 1;
  const x = gammaDraw(a, rng);
  const y = gammaDraw(b, rng);
  return x + y > 0 ? x / (x + y) : a / (a + b);
}

/** Binomial(n, p) draw for the small n of a suite (seeds per side). */
export function binomialDraw(n: number, p: number, rng: () => number): number {
  let k = 0;
  for (let i = 0; i < n; i++) if (rng() < p) k++;
  return k;
}
