import { pct } from "../report/format.js";
import {
  trendColumns,
  agentTimeText,
  dollarsText,
  gpuText,
  intervalText,
  trendNotes,
  whenText,
  type Trend,
  type TrendRow,
} from "../report/trend.js";
import { esc } from "./escape.js";
import { page } from "./layout.js";

/**
 * `medalist trend --html`: one self-contained page in the viewer's style (its CSS and strict CSP,
 * no script, no network): an inline SVG chart of the medal rate with its interval and the mean
 * percentile, one line per suite, then the table and the notes the terminal prints.
 */

/** Each suite's colour (A first); a suite past the list reuses one, its letter still says which. */
const SUITE_COLOURS = ["#0969da", "#8250df", "#1a7f37", "#bf3989", "#9a6700", "#57606a"];
const W = 920;
const H = 320;
const PAD = { l: 44, r: 34, t: 34, b: 56 };

const colourOf = (letter: string, t: Trend) =>
  SUITE_COLOURS[
    Math.max(
      0,
      t.suites.findIndex((s) => s.letter === letter),
    ) % SUITE_COLOURS.length
  ];

/** The chart: x = the points in time order (evenly spaced), y = 0–100%. */
export function trendSvg(t: Trend): string {
  const n = t.rows.length;
  const pw = W - PAD.l - PAD.r;
  const ph = H - PAD.t - PAD.b;
  const X = (i: number) => PAD.l + (n === 1 ? pw / 2 : (i / (n - 1)) * pw);
  const Y = (v: number) => PAD.t + ph - v * ph;
  const f = (x: number) => x.toFixed(1);
  const grid = [0, 0.25, 0.5, 0.75, 1]
    .map(
      (v) =>
        `<line x1="${PAD.l}" x2="${W - PAD.r}" y1="${f(Y(v))}" y2="${f(Y(v))}" stroke="#d0d7de" stroke-width="${v === 0 ? 1.2 : 0.6}"/>` +
        `<text x="${PAD.l - 4}" y="${f(Y(v) + 3)}" font-size="10" text-anchor="end" fill="#333">${v * 100}%</text>`,
    )
    .join("");
  // At most about 16 x labels: every k-th point, the last always.
  const every = Math.max(1, Math.ceil(n / 16));
  const xLabels = t.rows
    .map((r, i) =>
      i % every === 0 || i === n - 1
        ? `<text x="${f(X(i))}" y="${H - PAD.b + 14}" font-size="10" text-anchor="middle" fill="#333">${i + 1}</text>` +
          `<text x="${f(X(i))}" y="${H - PAD.b + 26}" font-size="9" text-anchor="middle" fill="#59636e">${esc(r.commit ? r.commit.slice(0, 7) : whenText(r.finishedAt).slice(5, 10))}</text>`
        : "",
    )
    .join("");
  const lines = t.suites
    .map((s) => {
      const pts = t.rows.map((r, i) => ({ r, i })).filter((p) => p.r.suite === s.letter);
      const colour = colourOf(s.letter, t);
      const path = (get: (r: TrendRow) => number | null, cls: string, stroke: string, dash: string) => {
        // A point without a value breaks the line: it is never bridged.
        let d = "";
        let open = false;
        for (const p of pts) {
          const v = get(p.r);
          if (v === null || !Number.isFinite(v)) {
            open = false;
            continue;
          }
          d += `${open ? "L" : "M"}${f(X(p.i))},${f(Y(v))}`;
          open = true;
        }
        return d.includes("L")
          ? `<path d="${d}" fill="none" stroke="${stroke}" stroke-width="1.6"${dash} class="${cls}" data-suite="${s.letter}"/>`
          : "";
      };
      const whiskers = pts
        .filter((p) => p.r.interval)
        .map(
          (p) =>
            `<line x1="${f(X(p.i))}" x2="${f(X(p.i))}" y1="${f(Y(p.r.interval!.lower))}" y2="${f(Y(p.r.interval!.upper))}" stroke="${colour}" stroke-width="1" opacity="0.55" class="interval"/>`,
        )
        .join("");
      const dots = pts
        .filter((p) => p.r.medalRate !== null)
        .map(
          (p) =>
            `<circle cx="${f(X(p.i))}" cy="${f(Y(p.r.medalRate!))}" r="3.5" fill="${colour}" class="rate" data-suite="${s.letter}">` +
            `<title>${esc(`#${p.i + 1} (suite ${s.letter}): medal rate ${pct(p.r.medalRate)}, ${Math.round(t.level * 100)}% interval ${intervalText(p.r.interval)}`)}</title></circle>`,
        )
        .join("");
      const pctDots = pts
        .filter((p) => p.r.meanPercentile !== null)
        .map(
          (p) =>
            `<rect x="${f(X(p.i) - 2.5)}" y="${f(Y(p.r.meanPercentile!) - 2.5)}" width="5" height="5" fill="${colour}" class="percentile" data-suite="${s.letter}"><title>${esc(`#${p.i + 1} (suite ${s.letter}): mean percentile ${pct(p.r.meanPercentile)}`)}</title></rect>`,
        )
        .join("");
      return (
        whiskers +
        path((r) => r.medalRate, "rate-line", colour, "") +
        path((r) => r.meanPercentile, "percentile-line", colour, ` stroke-dasharray="5 4" opacity="0.8"`) +
        dots +
        pctDots
      );
    })
    .join("");
  // The key: each suite's colour, then what solid and dashed mean.
  const key = t.suites
    .slice(0, 4)
    .map((s) => ({ text: `■ suite ${s.letter}`, colour: colourOf(s.letter, t) }));
  if (t.suites.length > 4) key.push({ text: `+${t.suites.length - 4} more suites`, colour: "#59636e" });
  const legend =
    key
      .map(
        (k, i) =>
          `<text x="${PAD.l + i * 90}" y="14" font-size="11" fill="${k.colour}">${esc(k.text)}</text>`,
      )
      .join("") +
    `<text x="${W - PAD.r}" y="14" font-size="11" text-anchor="end" fill="#333">● solid: medal rate (bar: ${Math.round(t.level * 100)}% interval) · ■ dashed: mean percentile</text>`;
  return (
    `<svg class="chart" id="trend-chart" role="img" aria-label="Medal rate and mean percentile over ${n} point${n === 1 ? "" : "s"}" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" xmlns="http://www.w3.org/2000/svg">` +
    legend +
    grid +
    xLabels +
    `<text x="${PAD.l + pw / 2}" y="${H - 6}" font-size="10" text-anchor="middle" fill="#333">point (oldest first; commit or date below)</text>` +
    lines +
    `</svg>`
  );
}

function tableHtml(t: Trend): string {
  const head = trendColumns(t);
  const body = t.rows
    .map((r, i) => {
      const other = r.suite !== "A";
      const cells = [
        `<td class="num">${i + 1}</td>`,
        `<td>${esc(whenText(r.finishedAt))}</td>`,
        `<td class="mono">${esc(r.commit ? r.commit.slice(0, 7) : "—")}</td>`,
        `<td${other ? ` class="bad" title="another suite than the newest point's: not comparable with suite A"` : ""}>${esc(r.suite)}${other ? " ⚠" : ""}</td>`,
        `<td class="num">${esc(r.medalRate === null ? "—" : `${pct(r.medalRate)} (${r.medals}/${r.comparable})`)}</td>`,
        `<td class="num">${esc(intervalText(r.interval))}</td>`,
        `<td class="num">${esc(pct(r.meanPercentile))}</td>`,
        `<td class="num">${esc(agentTimeText(r))}</td>`,
        `<td class="num">${esc(gpuText(r))}</td>`,
        `<td class="num">${esc(dollarsText(r))}</td>`,
        `<td class="mono">${esc(r.source)}</td>`,
      ];
      return `<tr data-suite="${esc(r.suite)}">${cells.join("")}</tr>`;
    })
    .join("");
  return (
    `<div class="tablebox"><table id="trend-table" class="nowrap"><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join("")}</tr></thead>` +
    `<tbody>${body}</tbody></table></div>`
  );
}

/** The whole page. */
export function trendPage(t: Trend): string {
  const n = t.rows.length;
  const last = t.rows.at(-1);
  const cards = last
    ? `<div class="cards">` +
      `<div class="card">latest medal rate<b>${esc(pct(last.medalRate))}</b><span class="muted">${esc(intervalText(last.interval))}</span></div>` +
      `<div class="card">latest mean percentile<b>${esc(pct(last.meanPercentile))}</b></div>` +
      `<div class="card">points<b>${n}</b><span class="muted">${t.suites.length} suite${t.suites.length === 1 ? "" : "s"}</span></div>` +
      `</div>`
    : "";
  const notes = trendNotes(t)
    .map((l) => `<p${l.startsWith("⚠") ? ` class="cause bad"` : ""}>${esc(l.replace(/\\\|/g, "|"))}</p>`)
    .join("");
  const body =
    `<h1>Medal-rate trend</h1>` +
    cards +
    `<h2>Medal rate and mean percentile</h2>` +
    trendSvg(t) +
    `<p class="muted">Dots on the solid line: the medal rate, with its ${Math.round(t.level * 100)}% interval as a vertical bar; squares on the dashed line: the mean leaderboard percentile. Each suite has its own colour and lines: points of different suites are never joined.</p>` +
    `<h2>Points</h2>` +
    tableHtml(t) +
    `<h2>Notes</h2><div id="trend-notes">${notes}</div>`;
  return page("trend", body);
}
