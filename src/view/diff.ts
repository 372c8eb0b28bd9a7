/** Line diffs (Myers' O(ND) algorithm) shown as unified hunks. */

export type DiffLine = { kind: " " | "-" | "+"; text: string; a: number | null; b: number | null };

export interface Hunk {
  aStart: number;
  bStart: number;
  lines: DiffLine[];
}

/** The shortest edit script between two line arrays, or null when it exceeds `maxEdits`. */
export function diffLines(a: string[], b: string[], maxEdits = 2000): DiffLine[] | null {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, maxEdits);
  const off = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    trace.push(v.slice(off - d - 1, off + d + 2)); // the frontier after round d − 1: k ∈ [−d−1, d+1]
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[off + k - 1] < v[off + k + 1]) ? v[off + k + 1] : v[off + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) return null;
  // Walk back through the saved frontiers.
  const out: DiffLine[] = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const vd = trace[d];
    const at = (kk: number) => vd[kk + d + 1];
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const px = at(prevK);
    const py = px - prevK;
    while (x > px && y > py) out.push({ kind: " ", text: a[--x], a: x + 1, b: --y + 1 });
    if (x === px) out.push({ kind: "+", text: b[--y], a: null, b: y + 1 });
    else out.push({ kind: "-", text: a[--x], a: x + 1, b: null });
  }
  while (x > 0 && y > 0) out.push({ kind: " ", text: a[--x], a: x + 1, b: --y + 1 });
  return out.reverse();
}

/** Groups a diff into hunks with `context` unchanged lines around each change. */
export function hunks(lines: DiffLine[], context = 3): Hunk[] {
  const out: Hunk[] = [];
  const changed = lines.map((l) => l.kind !== " ");
  let i = 0;
  while (i < lines.length) {
    if (!changed[i]) {
      i++;
      continue;
    }
    const start = Math.max(0, i - context);
    let end = i;
    // Extend while another change lies within 2×context lines.
    for (let j = i; j < lines.length; j++) {
      if (changed[j]) end = j;
      else if (j - end > 2 * context) break;
    }
    const stop = Math.min(lines.length, end + context + 1);
    const slice = lines.slice(start, stop);
    const first = slice[0];
    out.push({ aStart: first.a ?? 0, bStart: first.b ?? 0, lines: slice });
    i = stop;
  }
  return out;
}

/** Splits text into lines without the trailing empty line of a final newline. */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  return lines;
}
