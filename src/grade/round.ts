/**
 * Python's round(x, 5) on a float: round to 5 decimals, ties to even, decided on the exact
 * binary value of the double. NaN and ±Infinity pass through.
 *
 * `toFixed` works on the exact value but breaks ties away from zero. A decimal tie at the
 * 5th place is representable only when x is an odd multiple of 1/64 (x·64 is an integer), so
 * those values are detected and rounded to even; every other value is already exact.
 */
export function round5(x: number): number {
  if (!Number.isFinite(x)) return x;
  // Doubles of this size are integers already.
  if (Math.abs(x) >= 2 ** 52) return x;
  if (Number.isInteger(x * 64)) {
    const six = Math.abs(x).toFixed(6); // exact: x has at most 6 decimals
    if (six.endsWith("5")) {
      const truncated = six.slice(0, -1);
      const lastDigit = Number(truncated[truncated.length - 1]);
      if (lastDigit % 2 === 0) return x < 0 ? -Number(truncated) : Number(truncated);
    }
  }
  return Number(x.toFixed(5));
}

/**
 * numpy's round(x, 5) (what Python's round does on a numpy float64): x·1e5 rounded half to
 * even, divided by 1e5. Differs from round5 only within about one ulp of a decimal tie.
 */
export function round5Numpy(x: number): number {
  if (!Number.isFinite(x)) return x;
  const y = x * 1e5;
  let r = Math.round(y);
  if (r - y === 0.5 && r % 2 !== 0) r -= 1;
  return r / 1e5;
}
