/**
 * Correctly rounded decimal → double for mantissas of up to 19 digits and |exponent| ≤ 22,
 * without making a string: double-double arithmetic (Dekker's exact products) gives the value
 * to about 2^-100 relative, and when that is too close to a rounding boundary the caller
 * falls back to Number(). Agrees with Number() (tested on millions of random inputs).
 */
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);
const SPLIT = 134217729; // 2^27 + 1
const f64 = new Float64Array(1),
  u32 = new Uint32Array(f64.buffer);

/** Half the unit in the last place, by biased exponent (a table: `2 ** n` is a slow pow call). */
const HALF_ULP = Float64Array.from({ length: 2048 }, (_, e) => 2 ** (e - 1076));

/** Half the unit in the last place of a positive normal double. */
function halfUlp(x: number): number {
  f64[0] = x;
  return HALF_ULP[(u32[1] >>> 20) & 0x7ff];
}

/** p + e = a·b exactly (no overflow assumed). */
let prodErr = 0;
function twoProd(a: number, b: number): number {
  const p = a * b;
  let c = SPLIT * a;
  const ah = c - (c - a),
    al = a - ah;
  c = SPLIT * b;
  const bh = c - (c - b),
    bl = b - bh;
  prodErr = ah * bh - p + ah * bl + al * bh + al * bl;
  return p;
}

/**
 * value = (hi·10^lowDigits + low) · 10^scale, hi < 2^53, low < 10^lowDigits ≤ 10^4.
 * Returns NaN when the result cannot be decided safely (caller uses Number()).
 */
export function decimalToDouble(hi: number, low: number, lowDigits: number, scale: number): number {
  if (scale < -22 || scale > 22 || lowDigits > 4) return NaN;
  // m = s + t exactly (integers).
  const p = twoProd(hi, POW10[lowDigits]);
  const pe = prodErr;
  const s = p + low;
  const bb = s - p;
  const t = p - (s - bb) + (low - bb) + pe;
  let q: number, q2: number;
  if (scale >= 0) {
    const P = POW10[scale];
    q = twoProd(s, P);
    q2 = prodErr + t * P;
  } else {
    const P = POW10[-scale];
    q = s / P;
    const pp = twoProd(q, P);
    q2 = (s - pp - prodErr + t) / P;
  }
  const result = q + q2;
  if (!(result > 2 ** -1000 && result < 2 ** 1000)) return NaN;
  // Exact value ≈ result + residual; unsafe when the residual is near half an ulp.
  const residual = q2 - (result - q);
  const half = halfUlp(result);
  if (Math.abs(Math.abs(residual) - half) <= half * 2 ** -30) return NaN;
  if (Math.abs(residual) > half) return NaN; // should not happen; be safe
  return result;
}
