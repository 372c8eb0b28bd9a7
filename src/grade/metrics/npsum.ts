/**
 * numpy's float64 sum (`add.reduce` over a contiguous array), bit for bit: the array is reduced
 * in buffers of 8192 elements added one after another, each buffer summed pairwise (blocks of up
 * to 128 with eight accumulators, halves above that). Checked against numpy 1.24.
 */
function pairwise(a: ArrayLike<number>, start: number, n: number): number {
  if (n < 8) {
    let res = 0;
    for (let i = 0; i < n; i++) res += a[start + i];
    return res;
  }
  if (n <= 128) {
    let r0 = a[start],
      r1 = a[start + 1],
      r2 = a[start + 2],
      r3 = a[start + 3];
    let r4 = a[start + 4],
      r5 = a[start + 5],
      r6 = a[start + 6],
      r7 = a[start + 7];
    let i = 8;
    for (; i < n - (n % 8); i += 8) {
      const p = start + i;
      r0 += a[p];
      r1 += a[p + 1];
      r2 += a[p + 2];
      r3 += a[p + 3];
      r4 += a[p + 4];
      r5 += a[p + 5];
      r6 += a[p + 6];
      r7 += a[p + 7];
    }
    let res = r0 + r1 + (r2 + r3) + (r4 + r5 + (r6 + r7));
    for (; i < n; i++) res += a[start + i];
    return res;
  }
  let n2 = Math.floor(n / 2);
  n2 -= n2 % 8;
  return pairwise(a, start, n2) + pairwise(a, start + n2, n - n2);
}

export function numpySum(a: ArrayLike<number>): number {
  let res = 0;
  for (let i = 0; i < a.length; i += 8192) res += pairwise(a, i, Math.min(8192, a.length - i));
  return res;
}
