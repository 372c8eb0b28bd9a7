/**
 * Where to put the text labels of vertical chart markers (thresholds, the run's score) so that no
 * two overlap: each label goes on the first row where its box clears every label already there,
 * and flips to the left of its line when it would cross the chart's right edge. Pure arithmetic on
 * a conservative width estimate; the browser test measures the rendered boxes.
 */

/** Room between a label and another marker's line (lines are 2 px wide, centred on x). */
const LINE_GAP = 2;

export interface LabelIn {
  /** The marker's x position (its line). */
  x: number;
  text: string;
}

export interface LabelOut {
  /** The text's anchor x. */
  x: number;
  anchor: "start" | "end";
  /** 0 is the row nearest the plot. */
  row: number;
  /** The box the label takes, [left, right]. */
  left: number;
  right: number;
}

/** Width of `text` at `fontSize` px, over-estimated (wide glyphs count 0.7 em, the rest 0.6 em). */
export function textWidth(text: string, fontSize: number): number {
  let em = 0;
  for (const c of text) em += /[mwMW@%]/.test(c) ? 0.9 : /[A-Z0-9]/.test(c) ? 0.7 : 0.6;
  return em * fontSize;
}

/**
 * Rows and anchors for `labels` in a chart `width` wide, keeping `gap` px between boxes and
 * `offset` px between a line and its text. Each marker's line runs from its label down to the plot,
 * so it crosses every row below its label: a label is put where its box overlaps no other label and
 * no other marker's line, on the lowest row, right of its line if no other line is there, else
 * left; only when no row up to the number of labels has room does it ignore the lines. Returned in
 * the input's order.
 */
export function placeLabels(
  labels: LabelIn[],
  width: number,
  fontSize = 10,
  gap = 4,
  offset = 3,
): LabelOut[] {
  const order = labels.map((l, i) => ({ l, i })).sort((a, b) => a.l.x - b.l.x);
  const placed: LabelOut[] = [];
  const lineX: number[] = [];
  const out: LabelOut[] = new Array<LabelOut>(labels.length);
  const boxAt = (x: number, w: number, anchor: "start" | "end") => {
    const left = anchor === "start" ? Math.min(x + offset, width - w) : Math.max(0, x - offset - w);
    return { left, right: left + w };
  };
  const fits = (left: number, right: number, row: number, x: number, lines: boolean) =>
    placed.every((p, k) => {
      if (p.row === row && left < p.right + gap && p.left < right + gap) return false;
      if (!lines) return true;
      // Another line through this box (it runs below its own label), or this line through another's.
      if (p.row > row && lineX[k] > left - LINE_GAP && lineX[k] < right + LINE_GAP) return false;
      return !(p.row < row && x > p.left - LINE_GAP && x < p.right + LINE_GAP);
    });
  for (const { l, i } of order) {
    const w = textWidth(l.text, fontSize);
    // Right of the line unless that box would cover another marker's line (then left first: in a
    // tight cluster the labels stack up on the left, the rightmost one goes right) or the edge.
    const fitsRight = l.x + offset + w <= width;
    const fitsLeft = l.x - offset - w >= 0;
    const crowded = labels.some((o) => o !== l && o.x > l.x - LINE_GAP && o.x < l.x + offset + w + LINE_GAP);
    const anchors: ("start" | "end")[] = !fitsRight
      ? ["end"]
      : !fitsLeft
        ? ["start"]
        : crowded
          ? ["end", "start"]
          : ["start", "end"];
    let best: LabelOut | null = null;
    for (const lines of [true, false]) {
      for (const anchor of anchors)
        for (let row = 0; row <= labels.length && !best; row++) {
          const { left, right } = boxAt(l.x, w, anchor);
          if (fits(left, right, row, l.x, lines))
            best = { x: anchor === "start" ? left : right, anchor, row, left, right };
        }
      if (best) break;
    }
    placed.push(best!);
    lineX.push(l.x);
    out[i] = best!;
  }
  return out;
}
