// The comment's mermaid charts (GitHub renders ```mermaid blocks). Colours are set in the chart
// itself so that they read on GitHub's light and dark backgrounds alike (test/report/comment.browser).
import type { CompetitionRow } from "../compare/compare.js";
import type { TrendPoint } from "../history/history.js";
import { shortName } from "./format.js";
import { stripMarkers } from "./inert.js";

/** At most this many competitions are charted: their labels stay apart at 75 competitions. */
export const CHART_MAX_BARS = 20;
/** Charts of more bars than this start collapsed. */
export const CHART_OPEN_MAX = 10;

/**
 * Bar and line colours, each with a contrast of at least 3:1 against GitHub's light page (#ffffff),
 * its dark page (#0d1117) and mermaid's dark chart background (#333333): gained green, lost red,
 * the shared part grey; the trend's two lines blue and orange.
 */
export const CHART_COLOURS = {
  gained: "#2da44e",
  lost: "#e5534b",
  shared: "#818b98",
  medalRate: "#4493f8",
  percentile: "#db6d28",
} as const;

/** A competition's mean leaderboard percentile as the tables show it: whole points, base and head. */
export interface PercentileChange {
  competitionId: string;
  base: number;
  head: number;
  delta: number;
}

/** Whole percentile points, as the competition tables print them. */
export const wholePoints = (x: number | null) => (x === null ? null : Math.round(x * 100));

/**
 * The competitions whose percentile cell in the tables shows two different numbers ("55 → 61"):
 * comparable, a percentile on both sides, the rounded values differ.
 */
export function percentileChanges(rows: CompetitionRow[]): PercentileChange[] {
  const out: PercentileChange[] = [];
  for (const r of rows) {
    const base = wholePoints(r.basePercentile);
    const head = wholePoints(r.headMeanPercentile);
    if (!r.comparable || base === null || head === null || base === head) continue;
    out.push({ competitionId: r.competitionId, base, head, delta: head - base });
  }
  return out;
}

/** The changes to chart: the `max` largest (by size, then id), ordered from the largest loss to the largest gain. */
export function chartedChanges(changes: PercentileChange[], max = CHART_MAX_BARS): PercentileChange[] {
  const byId = (a: PercentileChange, b: PercentileChange) =>
    a.competitionId < b.competitionId ? -1 : a.competitionId > b.competitionId ? 1 : 0;
  return [...changes]
    .sort((a, b) => Math.abs(b.delta) - Math.abs(a.delta) || byId(a, b))
    .slice(0, max)
    .sort((a, b) => a.delta - b.delta || byId(a, b));
}

const signed = (d: number) => `${d > 0 ? "+" : "−"}${Math.abs(d)}`;

/** A mermaid category: the tables' short name and the change, without characters mermaid would end the string at. */
const categoryLabel = (c: PercentileChange) =>
  `"${shortName(stripMarkers(c.competitionId)).replace(/["\\`\r\n]/g, "")} (${signed(c.delta)})"`;

/** "#2da44e" as "rgb(45 164 78)": no "#" followed by a digit, which GitHub could read as an issue link. */
export const rgbText = (hex: string) =>
  `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(" ")})`;

/** The `%%{init}%%` line: size and series colours (later series are drawn on top). */
const initLine = (width: number, height: number, colours: string[]) =>
  `%%{init: {"xyChart": {"width": ${width}, "height": ${height}}, "themeVariables": {"xyChart": {"plotColorPalette": "${colours.map(rgbText).join(", ")}"}}}}%%`;

export interface PercentileChart {
  /** The ```mermaid block, empty when nothing changed. */
  chart: string;
  /** What the chart shows and what it leaves out, one or two literally true sentences. */
  caption: string;
  /** How many competitions are charted. */
  bars: number;
  /** How many competitions' percentile changed (charted or not). */
  changed: number;
}

/**
 * A horizontal bar chart of the competitions whose percentile changed, largest loss on top: a grey
 * bar up to the lower of base and head, then green up to the head where it rose, red up to the
 * base where it fell. No line joins unrelated competitions.
 */
export function percentileChart(rows: CompetitionRow[], max = CHART_MAX_BARS): PercentileChart {
  const all = percentileChanges(rows);
  const shown = chartedChanges(all, max);
  if (!shown.length) return { chart: "", caption: "", bars: 0, changed: 0 };
  const left = all.filter((c) => !shown.includes(c));
  const chart = [
    "```mermaid",
    initLine(900, 60 + 26 * shown.length, [CHART_COLOURS.gained, CHART_COLOURS.lost, CHART_COLOURS.shared]),
    "xychart-beta horizontal",
    `  x-axis [${shown.map(categoryLabel).join(", ")}]`,
    '  y-axis "mean leaderboard percentile" 0 --> 100',
    `  bar [${shown.map((c) => Math.max(c.head, c.base) * Number(c.delta > 0)).join(", ")}]`,
    `  bar [${shown.map((c) => Math.max(c.head, c.base) * Number(c.delta < 0)).join(", ")}]`,
    `  bar [${shown.map((c) => Math.min(c.head, c.base)).join(", ")}]`,
    "```",
  ].join("\n");
  const n = all.length;
  const which = left.length
    ? `the ${shown.length} largest changes among the ${n} competitions`
    : `the ${n} competition${n === 1 ? "" : "s"}`;
  const what =
    `Mean leaderboard percentile, base → head, of ${which} whose percentile changed (the change in points after each name), sorted by change, the lowest at the top: ` +
    "grey up to the lower of the two, then green up to the head where it rose, red up to the base where it fell.";
  const most = Math.max(0, ...left.map((c) => Math.abs(c.delta)));
  const rest = left.length
    ? ` ${left.length} more changed by ${most} point${most === 1 ? "" : "s"} or less and are not charted.`
    : "";
  return { chart, caption: what + rest, bars: shown.length, changed: n };
}

/** A mermaid line chart of the default-branch trend with this run last. */
export function trendChart(points: TrendPoint[]): string {
  if (points.length < 2) return "";
  const v = (x: number | null) => ((x ?? 0) * 100).toFixed(1);
  return [
    "```mermaid",
    initLine(900, 400, [CHART_COLOURS.medalRate, CHART_COLOURS.percentile]),
    "xychart-beta",
    `  title "Default branch, last ${points.length - 1} results, then this PR"`,
    `  x-axis [${points.map((p, i) => (p.current ? '"PR"' : String(i + 1))).join(", ")}]`,
    '  y-axis "%" 0 --> 100',
    `  line [${points.map((p) => v(p.medalRate)).join(", ")}]`,
    `  line [${points.map((p) => v(p.meanPercentile)).join(", ")}]`,
    "```",
  ].join("\n");
}

/** The trend chart's key (its colours are set in the chart). */
export const TREND_CAPTION = "Blue: medal rate; orange: mean leaderboard percentile.";
