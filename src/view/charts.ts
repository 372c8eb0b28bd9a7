import { esc } from "./escape.js";
import { placeLabels } from "./labels.js";

/** Inline SVG charts, drawn here so the site needs no script library. */

export interface Marker {
  label: string;
  value: number;
  /** CSS colour. */
  color: string;
}

const W = 640;
const H = 220;
const PAD = { l: 48, r: 16, t: 24, b: 36 };
/** Height of one row of marker labels. */
const ROW = 12;

function fmt(x: number): string {
  return Number(x.toPrecision(4)).toString();
}

function finite(xs: (number | null)[]): number[] {
  return xs.filter((x): x is number => x !== null && Number.isFinite(x));
}

/**
 * The distribution of leaderboard scores as a histogram, with vertical lines at the thresholds and
 * at the run's score. Returns "" when there are no finite scores.
 */
export function histogramSvg(scores: (number | null)[], markers: Marker[], title: string, bins = 40): string {
  const xs = finite(scores);
  if (!xs.length) return "";
  const marks = markers.filter((m) => Number.isFinite(m.value));
  // The team scores span the axis; a marker far outside (a wild score) is clamped to an edge.
  let lo = Infinity;
  let hi = -Infinity;
  for (const x of xs) {
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  for (const m of marks) {
    if (m.value < lo && lo - m.value < (hi - lo || 1)) lo = m.value;
    if (m.value > hi && m.value - hi < (hi - lo || 1)) hi = m.value;
  }
  if (hi === lo) hi = lo + 1;
  const counts = new Array<number>(bins).fill(0);
  for (const x of xs) counts[Math.min(bins - 1, Math.floor(((x - lo) / (hi - lo)) * bins))]++;
  const top = Math.max(...counts);
  const pw = W - PAD.l - PAD.r;
  const ph = H - PAD.t - PAD.b;
  const xAt = (v: number) => PAD.l + ((Math.min(hi, Math.max(lo, v)) - lo) / (hi - lo)) * pw;
  // Marker labels sit in rows above the plot, placed so that no two overlap (labels.ts).
  const placed = placeLabels(
    marks.map((m) => ({ x: xAt(m.value), text: m.label })),
    W,
  );
  const rows = placed.reduce((n, p) => Math.max(n, p.row + 1), 0);
  const plotTop = 20 + rows * ROW;
  const height = plotTop + ph + PAD.b;
  const bw = pw / bins;
  const bars = counts
    .map((c, i) => {
      const h = top ? (c / top) * ph : 0;
      return `<rect x="${(PAD.l + i * bw).toFixed(1)}" y="${(plotTop + ph - h).toFixed(1)}" width="${Math.max(0.5, bw - 1).toFixed(1)}" height="${h.toFixed(1)}" fill="#9ab"><title>${c} teams</title></rect>`;
    })
    .join("");
  const lines = marks
    .map((m, i) => {
      const x = xAt(m.value).toFixed(1);
      const p = placed[i];
      // Row 0 is the one nearest the plot; the line reaches up to its label.
      const y = plotTop - 4 - p.row * ROW;
      return (
        `<line x1="${x}" x2="${x}" y1="${y + 2}" y2="${plotTop + ph}" stroke="${esc(m.color)}" stroke-width="2" class="marker" data-label="${esc(m.label)}"/>` +
        `<text x="${p.x.toFixed(1)}" y="${y}" font-size="10" text-anchor="${p.anchor}" fill="${esc(m.color)}" class="marker-label">${esc(m.label)}</text>`
      );
    })
    .join("");
  return (
    `<svg class="chart" role="img" aria-label="${esc(title)}" viewBox="0 0 ${W} ${height}" width="${W}" height="${height}" xmlns="http://www.w3.org/2000/svg">` +
    `<text x="${PAD.l}" y="12" font-size="11" fill="#333">${esc(title)}</text>` +
    bars +
    lines +
    `<line x1="${PAD.l}" x2="${W - PAD.r}" y1="${plotTop + ph}" y2="${plotTop + ph}" stroke="#555"/>` +
    `<text x="${PAD.l}" y="${height - 14}" font-size="10" fill="#333">${esc(fmt(lo))}</text>` +
    `<text x="${W - PAD.r}" y="${height - 14}" font-size="10" text-anchor="end" fill="#333">${esc(fmt(hi))}</text>` +
    `<text x="${PAD.l + pw / 2}" y="${height - 2}" font-size="10" text-anchor="middle" fill="#333">score (${xs.length} teams)</text>` +
    `</svg>`
  );
}

export interface Series {
  label: string;
  color: string;
  points: { x: number; y: number }[];
}

/** A line chart of one or more series (x and y numeric). Returns "" with no finite point. */
export function lineSvg(series: Series[], title: string, xLabel: string): string {
  const all = series.flatMap((s) => s.points).filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  if (!all.length) return "";
  let [x0, x1, y0, y1] = [Infinity, -Infinity, Infinity, -Infinity];
  for (const p of all) {
    x0 = Math.min(x0, p.x);
    x1 = Math.max(x1, p.x);
    y0 = Math.min(y0, p.y);
    y1 = Math.max(y1, p.y);
  }
  if (x1 === x0) x1 = x0 + 1;
  if (y1 === y0) y1 = y0 + 1;
  const pw = W - PAD.l - PAD.r;
  const ph = H - PAD.t - PAD.b;
  const X = (v: number) => (PAD.l + ((v - x0) / (x1 - x0)) * pw).toFixed(1);
  const Y = (v: number) => (PAD.t + ph - ((v - y0) / (y1 - y0)) * ph).toFixed(1);
  const paths = series
    .map((s) => {
      const pts = s.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
      if (!pts.length) return "";
      const d = pts.map((p, i) => `${i ? "L" : "M"}${X(p.x)},${Y(p.y)}`).join("");
      const dots =
        pts.length <= 200
          ? pts
              .map(
                (p) =>
                  `<circle cx="${X(p.x)}" cy="${Y(p.y)}" r="2.5" fill="${esc(s.color)}"><title>${esc(fmt(p.x))}: ${esc(fmt(p.y))}</title></circle>`,
              )
              .join("")
          : "";
      return `<path d="${d}" fill="none" stroke="${esc(s.color)}" stroke-width="1.5" class="series" data-label="${esc(s.label)}"/>${dots}`;
    })
    .join("");
  const legend = series
    .map(
      (s, i) =>
        `<text x="${W - PAD.r - i * 110}" y="12" font-size="10" text-anchor="end" fill="${esc(s.color)}">■ ${esc(s.label)}</text>`,
    )
    .join("");
  return (
    `<svg class="chart" role="img" aria-label="${esc(title)}" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" xmlns="http://www.w3.org/2000/svg">` +
    `<text x="${PAD.l}" y="12" font-size="11" fill="#333">${esc(title)}</text>${legend}` +
    `<line x1="${PAD.l}" x2="${PAD.l}" y1="${PAD.t}" y2="${PAD.t + ph}" stroke="#555"/>` +
    `<line x1="${PAD.l}" x2="${W - PAD.r}" y1="${PAD.t + ph}" y2="${PAD.t + ph}" stroke="#555"/>` +
    `<text x="${PAD.l - 4}" y="${PAD.t + 8}" font-size="10" text-anchor="end" fill="#333">${esc(fmt(y1))}</text>` +
    `<text x="${PAD.l - 4}" y="${PAD.t + ph}" font-size="10" text-anchor="end" fill="#333">${esc(fmt(y0))}</text>` +
    `<text x="${PAD.l}" y="${H - 14}" font-size="10" fill="#333">${esc(fmt(x0))}</text>` +
    `<text x="${W - PAD.r}" y="${H - 14}" font-size="10" text-anchor="end" fill="#333">${esc(fmt(x1))}</text>` +
    `<text x="${PAD.l + pw / 2}" y="${H - 2}" font-size="10" text-anchor="middle" fill="#333">${esc(xLabel)}</text>` +
    paths +
    `</svg>`
  );
}
