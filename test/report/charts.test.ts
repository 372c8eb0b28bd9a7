import { describe, expect, it } from "vitest";
import { compareRuns } from "../../src/compare/compare.js";
import {
  CHART_COLOURS,
  CHART_MAX_BARS,
  CHART_OPEN_MAX,
  chartedChanges,
  percentileChanges,
  percentileChart,
  rgbText,
  trendChart,
} from "../../src/report/charts.js";
import { MEDAL_ICON, NAME_MAX, cellWidth, medals, shortName } from "../../src/report/format.js";
import { renderReport } from "../../src/report/markdown.js";
import { VERDICT_TITLE } from "../../src/report/verdict.js";
import { bigComparison } from "../helpers/big-comparison.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";

const gate = { tolerance: 0.05, alpha: 0.05, failOn: "regression" as const };

/** A comparison where competition i's head percentile moves by deltas[i] points from 50. */
function moved(deltas: number[], ids = deltas.map((_, i) => `comp-${String(i).padStart(2, "0")}`)) {
  const base = fakeSuite(
    "base",
    ids.map((id) => fakeRun(id, 0, "none", { score: 0.5 })),
  );
  const head = fakeSuite(
    "head",
    ids.map((id, i) => fakeRun(id, 0, "none", { score: 0.5 + deltas[i] / 100 })),
  );
  return compareRuns(base, head, gate);
}

/** Relative luminance and contrast ratio (WCAG 2). */
function contrast(a: string, b: string): number {
  const lum = (hex: string) => {
    const [r, g, bl] = [1, 3, 5].map((i) => {
      const c = parseInt(hex.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

describe("shortName: the one rule for cutting competition names", () => {
  it("keeps short names, cuts long ones in the middle to exactly the limit, keeping both ends", () => {
    expect(shortName("spaceship-titanic")).toBe("spaceship-titanic");
    const id = "3d-object-detection-for-autonomous-vehicles";
    const s = shortName(id);
    expect(Array.from(s)).toHaveLength(NAME_MAX);
    expect(s).toMatch(/^3d-object-detection-f.*….*-vehicles$/);
    expect(shortName("x".repeat(NAME_MAX))).toBe("x".repeat(NAME_MAX));
    expect(Array.from(shortName("x".repeat(NAME_MAX + 1)))).toHaveLength(NAME_MAX);
  });

  it("keeps names that differ only at the end apart, and never splits a character", () => {
    const a = shortName("google-research-identify-contrails-reduce-global-warming-2019");
    const b = shortName("google-research-identify-contrails-reduce-global-warming-2020");
    expect(a).not.toBe(b);
    expect(shortName("🥇".repeat(40), 10)).toBe(`${"🥇".repeat(6)}…${"🥇".repeat(3)}`);
  });

  it("is what both the tables and the chart show", () => {
    const long = "tabular-playground-series-dec-2021-with-a-long-tail";
    const cmp = moved([10, -3], [long, "short"]);
    const text = renderReport(cmp);
    const cut = shortName(long);
    expect(cut).not.toBe(long);
    expect(text).toContain(`| ${cut} `); // the table row
    expect(text).toContain(`"${cut} (+10)"`); // the chart's label
    expect(text).not.toMatch(/tabular-playground-series-dec-2021-with-a-long-tail/);
  });
});

describe("the comment's glyphs", () => {
  it("'no medal' has its own mark; '·' is only a separator", () => {
    expect(Object.values(MEDAL_ICON)).not.toContain("·");
    const { cmp } = bigComparison(22, 3);
    const text = renderReport(cmp);
    for (const r of cmp.competitions) expect(medals(r.base) + medals(r.head)).not.toContain("·");
    // The legend names every mark the tables use.
    const key = text.split("\n").find((l) => l.includes("one mark per seed"))!;
    for (const icon of Object.values(MEDAL_ICON)) expect(key).toContain(icon);
    expect(key).toContain(`${MEDAL_ICON.none} no medal`);
    expect(key).toContain("⚠ not comparable");
  });

  it("a run that is not comparable (a grader failure too) shows ⚠, not 'no medal'", () => {
    const cell = (medal: "gold" | "none", comparable: boolean) => ({
      seed: 0,
      outcome: "completed" as const,
      medal,
      score: null,
      valid: comparable,
      percentile: null,
      error: comparable ? null : "the grader failed",
      runDir: "runs/a.s0",
      comparable,
    });
    const cells = [cell("gold", true), cell("none", false), cell("none", true)];
    expect(medals(cells)).toBe("🥇⚠➖");
  });

  it("raw table rows line up: picture emoji count two columns, the ⚠ text glyph one", () => {
    expect(cellWidth("🥇➖🥉")).toBe(6);
    expect(cellWidth("⚠")).toBe(1);
    expect(cellWidth("⚠️")).toBe(2);
    expect(cellWidth("35 → 90")).toBe(7);
    const text = renderReport(moved([10, -10]));
    const rows = text.split("\n").filter((l) => /^\| +[🟢🔴]/u.test(l));
    expect(rows).toHaveLength(2);
    // Every "|" of a row sits at the same column as in the next row.
    const bars = (l: string) => {
      const cols: number[] = [];
      let c = 0;
      for (const ch of l) {
        if (ch === "|") cols.push(c);
        c += cellWidth(ch);
      }
      return cols;
    };
    expect(bars(rows[0])).toEqual(bars(rows[1]));
  });

  it("every verdict has a saturated glyph, none of them the pale ❔", () => {
    expect(Object.values(VERDICT_TITLE).join(" ")).not.toMatch(/❔|❓/);
    expect(VERDICT_TITLE.inconclusive).toBe("🟡 inconclusive");
  });
});

describe("the percentile chart", () => {
  it("charts only what changed in the tables' whole points, sorted by change", () => {
    const cmp = moved([0, 0.3, 12, -7, 0.8, -20]);
    const changes = percentileChanges(cmp.competitions);
    expect(changes.map((c) => [c.competitionId, c.delta])).toEqual([
      ["comp-02", 12],
      ["comp-03", -7],
      ["comp-04", 1],
      ["comp-05", -20],
    ]);
    const { chart, caption, bars } = percentileChart(cmp.competitions);
    expect(bars).toBe(4);
    expect(chart).toContain('x-axis ["comp-05 (−20)", "comp-03 (−7)", "comp-04 (+1)", "comp-02 (+12)"]');
    // Gained (green), lost (red), then the shared part on top (grey).
    expect(chart).toContain("bar [0, 0, 51, 62]");
    expect(chart).toContain("bar [50, 50, 0, 0]");
    expect(chart).toContain("bar [30, 43, 50, 50]");
    expect(chart).toContain(
      `"plotColorPalette": "${rgbText(CHART_COLOURS.gained)}, ${rgbText(CHART_COLOURS.lost)}, ${rgbText(CHART_COLOURS.shared)}"`,
    );
    expect(chart).not.toMatch(/^\s*line/m);
    expect(caption).toMatch(/^Mean leaderboard percentile, base → head, of the 4 competitions whose/);
    expect(caption).not.toContain("not charted");
  });

  it("charts at most the largest changes and says truly how many it left out and how small they were", () => {
    const deltas = Array.from({ length: 30 }, (_, i) => (i % 2 ? -1 : 1) * (i + 1));
    const cmp = moved(deltas);
    const shown = chartedChanges(percentileChanges(cmp.competitions));
    expect(shown).toHaveLength(CHART_MAX_BARS);
    expect(Math.min(...shown.map((c) => Math.abs(c.delta)))).toBe(11);
    const { caption } = percentileChart(cmp.competitions);
    expect(caption).toContain(`the ${CHART_MAX_BARS} largest changes among the 30 competitions`);
    expect(caption).toContain("10 more changed by 10 points or less and are not charted.");
    expect(renderReport(cmp)).toContain(
      `<details><summary>Percentile change in 30 competitions (chart of the ${CHART_MAX_BARS} largest)</summary>`,
    );
  });

  it("draws nothing when no percentile changed", () => {
    expect(percentileChart(moved([0, 0.2]).competitions).chart).toBe("");
    expect(renderReport(moved([0, 0.2]))).not.toContain("```mermaid");
  });

  it("starts collapsed beyond a size", () => {
    const few = renderReport(moved([5, -5]));
    expect(few).toContain("<details open><summary>Percentile change in 2 competitions (chart)</summary>");
    const many = renderReport(moved(Array.from({ length: CHART_OPEN_MAX + 1 }, (_, i) => i + 2)));
    expect(many).toContain(
      `<details><summary>Percentile change in ${CHART_OPEN_MAX + 1} competitions (chart)`,
    );
  });

  it("uses colours that keep 3:1 contrast on GitHub's light and dark backgrounds and mermaid's dark chart", () => {
    for (const c of Object.values(CHART_COLOURS)) {
      expect(contrast(c, "#ffffff")).toBeGreaterThanOrEqual(3);
      expect(contrast(c, "#0d1117")).toBeGreaterThanOrEqual(3);
      expect(contrast(c, "#333333")).toBeGreaterThanOrEqual(3);
    }
  });

  it("names the trend's lines by colour, not by a position that may not hold", () => {
    const chart = trendChart([
      { label: "a", medalRate: 0.6, meanPercentile: 0.5, current: false },
      { label: "this run", medalRate: 0.3, meanPercentile: 0.55, current: true },
    ]);
    expect(chart).not.toContain("upper");
    expect(chart).toContain('"plotColorPalette": "rgb(68 147 248), rgb(219 109 40)"');
    expect(chart).toContain("line [60.0, 30.0]");
  });
});
