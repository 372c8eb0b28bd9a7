/**
 * The row order pandas' sort_values / sort_index produce (numpy's default "quicksort"
 * argsort: median-of-3 quicksort, insertion sort below 17 elements, heapsort past a depth
 * limit). It is not stable, so rows with equal ids come out in a specific order that decides
 * how duplicated ids pair up; this reproduces that order. Missing keys go last, in file order.
 */

/** Python's str ordering (code points), where JS `<` compares UTF-16 code units. */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i),
      y = b.charCodeAt(i);
    if (x !== y) {
      const fix = (c: number) => (c >= 0xd800 && c <= 0xdfff ? c + 0x2000 : c >= 0xe000 ? c - 0x800 : c);
      return fix(x) - fix(y);
    }
  }
  return a.length - b.length;
}

const SMALL = 15;

function heapsort(idx: Int32Array, lo: number, n: number, less: (i: number, j: number) => boolean): void {
  // 1-based heap over idx[lo .. lo+n-1]
  const at = (k: number) => idx[lo + k - 1];
  const put = (k: number, v: number) => {
    idx[lo + k - 1] = v;
  };
  const sift = (start: number, size: number, tmp: number) => {
    let i = start,
      j = start * 2;
    while (j <= size) {
      if (j < size && less(at(j), at(j + 1))) j++;
      if (less(tmp, at(j))) {
        put(i, at(j));
        i = j;
        j += j;
      } else break;
    }
    put(i, tmp);
  };
  for (let l = n >> 1; l > 0; l--) sift(l, n, at(l));
  for (let size = n; size > 1;) {
    const tmp = at(size);
    put(size, at(1));
    size--;
    sift(1, size, tmp);
  }
}

/** Sorts idx in place by less(), with numpy's quicksort. */
function quicksort(idx: Int32Array, less: (i: number, j: number) => boolean): void {
  const n = idx.length;
  if (n < 2) return;
  const swap = (a: number, b: number) => {
    const t = idx[a];
    idx[a] = idx[b];
    idx[b] = t;
  };
  const stack: number[] = [];
  let pl = 0,
    pr = n - 1;
  let depth = Math.floor(Math.log2(n)) * 2;
  for (;;) {
    if (depth < 0) {
      heapsort(idx, pl, pr - pl + 1, less);
    } else {
      while (pr - pl > SMALL) {
        const pm = pl + ((pr - pl) >> 1);
        if (less(idx[pm], idx[pl])) swap(pm, pl);
        if (less(idx[pr], idx[pm])) swap(pr, pm);
        if (less(idx[pm], idx[pl])) swap(pm, pl);
        const vp = idx[pm];
        let pi = pl,
          pj = pr - 1;
        swap(pm, pj);
        for (;;) {
          do pi++;
          while (less(idx[pi], vp));
          do pj--;
          while (less(vp, idx[pj]));
          if (pi >= pj) break;
          swap(pi, pj);
        }
        swap(pi, pr - 1);
        if (pi - pl < pr - pi) {
          stack.push(pi + 1, pr, --depth);
          pr = pi - 1;
        } else {
          stack.push(pl, pi - 1, --depth);
          pl = pi + 1;
        }
      }
      for (let i = pl + 1; i <= pr; i++) {
        const v = idx[i];
        let j = i;
        while (j > pl && less(v, idx[j - 1])) {
          idx[j] = idx[j - 1];
          j--;
        }
        idx[j] = v;
      }
    }
    if (stack.length === 0) break;
    depth = stack.pop()!;
    pr = stack.pop()!;
    pl = stack.pop()!;
  }
}

/** pandas' sort order of a key column: numbers or strings (null/NaN = missing, placed last). */
export function pandasSortOrder(
  keys: ArrayLike<number> | readonly (string | null)[],
  skipIfSorted = false,
): Int32Array {
  const n = keys.length;
  const present: number[] = [],
    missing: number[] = [];
  for (let i = 0; i < n; i++) {
    const k = keys[i];
    if (k === null || (typeof k === "number" && Number.isNaN(k))) missing.push(i);
    else present.push(i);
  }
  const idx = Int32Array.from(present);
  const text = n > 0 && typeof keys[present[0] ?? 0] === "string";
  const less = text
    ? (i: number, j: number) => compareCodePoints(keys[i] as string, keys[j] as string) < 0
    : (i: number, j: number) => (keys[i] as number) < (keys[j] as number);
  let sorted = skipIfSorted && missing.length === 0;
  for (let p = 1; sorted && p < idx.length; p++) if (less(idx[p], idx[p - 1])) sorted = false;
  if (!sorted) quicksort(idx, less);
  const out = new Int32Array(n);
  out.set(idx);
  out.set(missing, idx.length);
  return out;
}
