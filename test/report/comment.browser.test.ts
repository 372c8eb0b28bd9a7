/// <reference lib="dom" />
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { COMMENT_LIMIT } from "../../src/github/truncate.js";
import {
  CHART_COLOURS,
  CHART_MAX_BARS,
  CHART_OPEN_MAX,
  chartedChanges,
  percentileChanges,
  rgbText,
} from "../../src/report/charts.js";
import { shortName } from "../../src/report/format.js";
import { medalChange, renderReport } from "../../src/report/markdown.js";
import type { TrendPoint } from "../../src/history/history.js";
import { bigComparison } from "../helpers/big-comparison.js";
import { BACKGROUND, showComment, type Theme } from "../helpers/comment-page.js";
import { haveBrowser, launch, watchedPage } from "../helpers/browser.js";

let browser: Browser;
beforeAll(async () => {
  if (haveBrowser) browser = await launch();
}, 120_000);
afterAll(async () => browser?.close());

/** 30 default-branch results and this PR, the two lines crossing. */
const TREND: TrendPoint[] = Array.from({ length: 31 }, (_, i) => ({
  label: String(i),
  medalRate: 0.3 + 0.01 * i,
  meanPercentile: 0.5 - 0.005 * i,
  current: i === 30,
}));

/** WCAG contrast of two colours given as "#rrggbb", "#rgb" or "rgb(r, g, b)". */
function contrast(a: string, b: string): number {
  const rgb = (c: string) => {
    const m = c.match(/\d+/g);
    if (c.startsWith("rgb") && m) return m.slice(0, 3).map(Number);
    const h = c.length === 4 ? [...c.slice(1)].map((x) => x + x).join("") : c.slice(1);
    return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16));
  };
  const lum = (c: string) => {
    const [r, g, bl] = rgb(c).map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

/** Every text of every rendered mermaid chart, with its box on the page. */
async function chartTexts(page: Page) {
  return page.$$eval("pre.mermaid svg", (svgs) =>
    svgs.map((svg) => {
      const box = svg.getBoundingClientRect();
      return {
        box: { left: box.left, top: box.top, right: box.right, bottom: box.bottom },
        // Computed colours are "rgb(r, g, b)" whatever the SVG says ("white", "#333").
        background: getComputedStyle(svg.querySelector("rect.background")!).fill,
        bars: Array.from(svg.querySelectorAll("g.plot rect")).map((r) => ({
          fill: getComputedStyle(r).fill,
          width: Number(r.getAttribute("width")),
        })),
        lines: Array.from(svg.querySelectorAll("g.plot path")).map((p) => getComputedStyle(p).stroke),
        texts: Array.from(svg.querySelectorAll("text"))
          .filter((t) => (t.textContent ?? "").trim() !== "")
          .map((t) => {
            const r = t.getBoundingClientRect();
            return { text: t.textContent ?? "", left: r.left, top: r.top, right: r.right, bottom: r.bottom };
          }),
      };
    }),
  );
}

type Box = { left: number; top: number; right: number; bottom: number };
const overlap = (a: Box, b: Box) =>
  Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 &&
  Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;

describe.skipIf(!haveBrowser)("the PR comment rendered as GitHub renders it", () => {
  for (const [n, seeds, theme] of [
    [22, 3, "light"],
    [22, 3, "dark"],
    [75, 5, "light"],
    [75, 5, "dark"],
  ] as [number, number, Theme][]) {
    it(`${n} competitions × ${seeds} seeds, ${theme} theme: changed first, nothing wraps at 1,000 px, chart labels apart, bars visible`, async () => {
      const { cmp, links } = bigComparison(n, seeds);
      const md = renderReport(cmp, {
        links,
        viewerUrl: "https://github.com/acme-labs/agent-scaffold/actions/runs/1/artifacts/2",
        trend: n === 75 ? TREND : undefined,
      });
      expect(md.length).toBeLessThan(COMMENT_LIMIT);
      const { page, requests, errors } = await watchedPage(browser, 1040);
      await showComment(page, md, theme);

      // Changed competitions come first (losses, then gains), the rest after them.
      const changed = new Set(
        cmp.competitions.filter((r) => medalChange(r) !== 0).map((r) => r.competitionId),
      );
      expect(changed.size).toBeGreaterThan(0);
      const order = await page.$$eval("table tbody tr td:nth-child(2)", (tds) =>
        tds.map((td) => td.textContent ?? ""),
      );
      // Long ids are cut by the one rule (shortName), in the tables as in the chart.
      const byShort = new Map(cmp.competitions.map((r) => [shortName(r.competitionId), r.competitionId]));
      const ids = order.map((t) => byShort.get(t)).filter((t): t is string => t !== undefined);
      expect(ids).toHaveLength(n);
      expect(new Set(ids.slice(0, changed.size))).toEqual(changed);
      const headings = await page.$$eval("h3", (hs) => hs.map((h) => h.textContent));
      expect(headings[0]).toMatch(/Medals lost|Medals gained/);

      // The chart starts collapsed beyond a size.
      const charted = chartedChanges(percentileChanges(cmp.competitions));
      const chartOpen = await page.$eval("pre.mermaid", (p) => p.closest("details")?.hasAttribute("open"));
      expect(chartOpen).toBe(charted.length <= CHART_OPEN_MAX);

      // Open every collapsed section, then measure: one line per cell, heading and summary.
      await page.$$eval("details", (ds) => ds.forEach((d) => d.setAttribute("open", "")));
      mkdirSync("out", { recursive: true });
      await page.screenshot({ path: join("out", `comment-${n}x${seeds}-${theme}.png`), fullPage: true });
      // An element wraps when its text's line boxes span more than one line.
      const wrapped = await page.$$eval("table td, table th, h2, h3, summary", (els) =>
        els
          .filter((c) => {
            const range = document.createRange();
            range.selectNodeContents(c);
            const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0);
            if (!rects.length) return false;
            const top = Math.min(...rects.map((r) => r.top));
            const bottom = Math.max(...rects.map((r) => r.bottom));
            return bottom - top > 1.8 * Math.max(...rects.map((r) => r.height));
          })
          .map((c) => c.textContent),
      );
      expect(wrapped).toEqual([]);
      const overflow = await page.$$eval(
        "table",
        (ts) => ts.filter((t) => t.scrollWidth > t.clientWidth + 1).length,
      );
      expect(overflow).toBe(0);

      const charts = await chartTexts(page);
      expect(charts).toHaveLength(n === 75 ? 2 : 1);
      for (const chart of charts) {
        // No two labels overlap, and none is cut off by the chart's edge.
        const clashes = chart.texts.flatMap((a, i) =>
          chart.texts.slice(i + 1).flatMap((b) => (overlap(a, b) ? [`${a.text} / ${b.text}`] : [])),
        );
        expect(clashes).toEqual([]);
        for (const t of chart.texts) {
          expect(t.left).toBeGreaterThanOrEqual(chart.box.left - 0.5);
          expect(t.right).toBeLessThanOrEqual(chart.box.right + 0.5);
          expect(t.top).toBeGreaterThanOrEqual(chart.box.top - 0.5);
          expect(t.bottom).toBeLessThanOrEqual(chart.box.bottom + 0.5);
        }
        // Bars and lines stand out from the chart's and the page's background.
        for (const colour of [...chart.bars.map((b) => b.fill), ...chart.lines]) {
          expect(contrast(colour, chart.background)).toBeGreaterThanOrEqual(3);
          expect(contrast(colour, BACKGROUND[theme])).toBeGreaterThanOrEqual(3);
        }
      }

      // The percentile chart: one label per charted competition, in order of change, the change
      // visible as a coloured bar beyond the shared grey one; no line across competitions.
      const [pc] = charts;
      expect(charted.length).toBe(Math.min(CHART_MAX_BARS, percentileChanges(cmp.competitions).length));
      const labels = charted.map(
        (c) => `${shortName(c.competitionId)} (${c.delta > 0 ? "+" : "−"}${Math.abs(c.delta)})`,
      );
      const shown = pc.texts.map((t) => t.text).filter((t) => labels.includes(t));
      expect(shown).toEqual(labels);
      expect(pc.lines).toEqual([]);
      const colours = new Set(pc.bars.filter((b) => b.width > 0.5).map((b) => b.fill));
      const computed = (hex: string) => rgbText(hex).replace(/ /g, ", ");
      expect(colours).toEqual(
        new Set([CHART_COLOURS.gained, CHART_COLOURS.lost, CHART_COLOURS.shared].map(computed)),
      );

      expect(requests.filter((u) => !u.startsWith("about:") && !u.startsWith("data:"))).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    }, 240_000);
  }
});
