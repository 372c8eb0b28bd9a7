/// <reference lib="dom" />
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { medalChange, renderReport } from "../../src/report/markdown.js";
import { bigComparison } from "../helpers/big-comparison.js";
import { commentHtml, MERMAID_JS } from "../helpers/comment-page.js";
import { haveBrowser, launch, watchedPage } from "../helpers/browser.js";

let browser: Browser;
beforeAll(async () => {
  if (haveBrowser) browser = await launch();
}, 120_000);
afterAll(async () => browser?.close());

describe.skipIf(!haveBrowser)("the PR comment rendered as GitHub renders it", () => {
  for (const [n, seeds] of [
    [22, 3],
    [75, 5],
  ] as const) {
    it(`${n} competitions × ${seeds} seeds: changed first, no row wraps at 1,000 px, the chart renders`, async () => {
      const { cmp, links } = bigComparison(n, seeds);
      const md = renderReport(cmp, {
        links,
        viewerUrl: "https://github.com/acme-labs/agent-scaffold/actions/runs/1/artifacts/2",
      });
      expect(md.length).toBeLessThan(65_536);
      const { page, requests, errors } = await watchedPage(browser, 1040);
      await page.setContent(commentHtml(md));
      await page.addScriptTag({ path: MERMAID_JS });
      await page.evaluate(async () => {
        const m = (
          globalThis as unknown as { mermaid: { initialize(o: object): void; run(o: object): Promise<void> } }
        ).mermaid;
        m.initialize({ startOnLoad: false });
        await m.run({ querySelector: "pre.mermaid" });
      });

      // Changed competitions come first (losses, then gains), the rest after them.
      const changed = new Set(
        cmp.competitions.filter((r) => medalChange(r) !== 0).map((r) => r.competitionId),
      );
      expect(changed.size).toBeGreaterThan(0);
      const order = await page.$$eval("table tbody tr td:nth-child(2)", (tds) =>
        tds.map((td) => td.textContent ?? ""),
      );
      // Long ids are cut with "…" in the table.
      const idOf = (t: string) =>
        cmp.competitions.find(
          (r) => r.competitionId === t || (t.endsWith("…") && r.competitionId.startsWith(t.slice(0, -1))),
        )?.competitionId;
      const ids = order.map(idOf).filter((t): t is string => t !== undefined);
      expect(ids).toHaveLength(n);
      expect(new Set(ids.slice(0, changed.size))).toEqual(changed);
      const headings = await page.$$eval("h3", (hs) => hs.map((h) => h.textContent));
      expect(headings[0]).toMatch(/Medals lost|Medals gained/);

      // Open every collapsed section, then measure: one line per row, no table wider than the page.
      await page.$$eval("details", (ds) => ds.forEach((d) => d.setAttribute("open", "")));
      mkdirSync("out", { recursive: true });
      await page.screenshot({ path: join("out", `comment-${n}x${seeds}.png`), fullPage: true });
      // A cell wraps when its text's line boxes span more than one line.
      const wrapped = await page.$$eval("table td, table th", (cells) =>
        cells
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

      // The mermaid chart rendered: an SVG with a bar per competition.
      const bars = await page.$$eval("pre.mermaid svg rect", (rs) => rs.length);
      expect(bars).toBeGreaterThanOrEqual(n);
      expect(requests.filter((u) => !u.startsWith("about:") && !u.startsWith("data:"))).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    }, 180_000);
  }
});
