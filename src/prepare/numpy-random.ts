/**
 * NumPy's legacy `RandomState(seed).permutation(n)` and scikit-learn's `train_test_split` index
 * logic, reproduced exactly (lite-prepare.md §1.8): MT19937 seeded with init_genrand, NumPy's
 * masked rejection sampling for bounded integers, and a Fisher–Yates shuffle from the end.
 */

const N = 624;
const M = 397;

/** Mersenne Twister MT19937 producing 32-bit words. */
export class MT19937 {
  private readonly mt = new Uint32Array(N);
  private index = N;

  constructor(seed: number) {
    const mt = this.mt;
    mt[0] = seed >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
  }

  private twist(): void {
    const mt = this.mt;
    for (let i = 0; i < N; i++) {
      const y = (mt[i] & 0x80000000) | (mt[(i + 1) % N] & 0x7fffffff);
      mt[i] = mt[(i + M) % N] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
    }
    this.index = 0;
  }

  next(): number {
    if (this.index >= N) this.twist();
    let y = this.mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }
}

/** NumPy's bounded draw in [0, max] for max < 2^32: mask to the next 2^k−1, reject above max. */
export function interval(rng: MT19937, max: number): number {
  if (max === 0) return 0;
  let mask = max;
  mask |= mask >>> 1;
  mask |= mask >>> 2;
  mask |= mask >>> 4;
  mask |= mask >>> 8;
  mask |= mask >>> 16;
  mask >>>= 0;
  for (;;) {
    const v = (rng.next() & mask) >>> 0;
    if (v <= max) return v;
  }
}

/** `np.random.RandomState(seed).permutation(n)`. */
export function permutation(n: number, seed: number): Uint32Array {
  if (!Number.isInteger(n) || n < 0 || n >= 2 ** 32)
    throw new RangeError(`permutation size out of range: ${n}`);
  const rng = new MT19937(seed);
  const a = new Uint32Array(n);
  for (let i = 0; i < n; i++) a[i] = i;
  for (let i = n - 1; i >= 1; i--) {
    const j = interval(rng, i);
    const t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
  return a;
}

/** Test-set size as scikit-learn computes it: ceil(t·n) for a fraction, t itself for a count. */
export function testCount(n: number, testSize: number): number {
  const nTest = Number.isInteger(testSize) && testSize >= 1 ? testSize : Math.ceil(testSize * n);
  if (nTest <= 0 || nTest >= n) {
    throw new RangeError(`test_size=${testSize} with ${n} rows leaves an empty train or test set`);
  }
  return nTest;
}

/** `train_test_split(range(n), test_size, random_state=seed)` (shuffled, not stratified). */
export function trainTestSplit(
  n: number,
  testSize: number,
  seed: number,
): { train: Uint32Array; test: Uint32Array } {
  const nTest = testCount(n, testSize);
  const p = permutation(n, seed);
  return { test: p.subarray(0, nTest), train: p.subarray(nTest) };
}
