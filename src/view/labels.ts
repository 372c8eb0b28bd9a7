/**
 * Where to put the text labels of vertical chart markers (thresholds, the run's score) so that no
 * two overlap: each label goes on the first row where its box clears every label already there,
 * and flips to the left of its line when it would cross the chart's right edge. Pure arithmetic on
 * a conservative width estimate; the browser test measures the rendered boxes.
 */

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
 * `offset` px between a line and its text. Returned in the input's order.
 */
export function placeLabels(
  labels: LabelIn[],
  width: number,
  fontSize = 10,
  gap = 4,
  offset = 3,
): LabelOut[] {
  const order = labels.map((l, i) => ({ l, i })).sort((a, b) => a.l.x - b.l.x);
  const rows: [number, number][][] = [];
  const out: LabelOut[] = new Array<LabelOut>(labels.length);
  for (const { l, i } of order) {
    const w = textWidth(l.text, fontSize);
    const anchor = l.x + offset + w > width ? "end" : "start";
    const left = anchor === "start" ? l.x + offset : Math.max(0, l.x - offset - w);
    const right = left + w;
    let row = 0;
    while (rows[row]?.some(([a, b]) => left < b + gap && a < right + gap)) row++;
    (rows[row] ??= []).push([left, right]);
    out[i] = { x: anchor === "start" ? left : right, anchor, row, left, right };
  }
  return out;
}
