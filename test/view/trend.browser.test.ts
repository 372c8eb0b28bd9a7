// medalist trend's chart page in Chromium: nothing leaves the page, every label inside the chart,
// one line per suite (points of two suites never joined), the table beside it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { trendCommand } from "../../src/cli/commands/trend.js";
import { trendFolders } from "../helpers/trend-folders.js";
import { haveBrowser, launch, watchedPage } from "../helpers/browser.js";

const dir = mkdtempSync(join(tmpdir(), "medalist-trendb-"));
let browser: Browser;

beforeAll(async () => {
  if (haveBrowser) browser = await launch();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!haveBrowser)("medalist trend's page in Chromium", () => {
  it("draws each suite as its own line, keeps every label inside the chart, loads nothing", async () => {
    const folders = trendFolders(join(dir, "runs"));
    const out = join(dir, "trend.html");
    const log = console.log;
    console.log = () => {};
    try {
      expect(await trendCommand.run([...folders, "--html", out])).toBe(0);
    } finally {
      console.log = log;
    }
    const { page, requests, errors } = await watchedPage(browser, 1000);
    const url = pathToFileURL(out).href;
    await page.goto(url);
    await expect(page.locator("#trend-chart").isVisible()).resolves.toBe(true);
    // 12 points: 10 of suite A, 2 of suite B, each a dot with its interval bar.
    await expect(page.locator("#trend-chart circle.rate").count()).resolves.toBe(12);
    await expect(page.locator('#trend-chart circle.rate[data-suite="B"]').count()).resolves.toBe(2);
    await expect(page.locator("#trend-chart line.interval").count()).resolves.toBe(12);
    // One solid line per suite, in different colours: A's never passes through B's points.
    const strokes = await page
      .locator("#trend-chart path.rate-line")
      .evaluateAll((ps) => ps.map((p) => [p.getAttribute("data-suite"), p.getAttribute("stroke")]));
    expect(strokes.map((s) => s[0])).toEqual(["A", "B"]);
    expect(strokes[0][1]).not.toBe(strokes[1][1]);
    const aPath = await page.locator('#trend-chart path.rate-line[data-suite="A"]').getAttribute("d");
    const bXs = await page
      .locator('#trend-chart circle.rate[data-suite="B"]')
      .evaluateAll((cs) => cs.map((c) => c.getAttribute("cx")));
    for (const x of bXs) expect(aPath).not.toContain(`${x},`);
    // Every text of the chart lies inside the chart's box, and the chart inside the page's width.
    const fits = await page.locator("#trend-chart").evaluate((svg) => {
      const box = svg.getBoundingClientRect();
      const out = Array.from(svg.querySelectorAll("text"))
        .map((t) => ({ r: t.getBoundingClientRect(), text: t.textContent }))
        .filter(
          ({ r }) =>
            r.left < box.left - 0.5 ||
            r.right > box.right + 0.5 ||
            r.top < box.top - 0.5 ||
            r.bottom > box.bottom + 0.5,
        )
        .map(({ text }) => text);
      return { out, right: box.right, width: document.documentElement.clientWidth };
    });
    expect(fits.out).toEqual([]);
    expect(fits.right).toBeLessThanOrEqual(fits.width);
    // The table: 12 rows, suite B's two marked as another suite.
    await expect(page.locator("#trend-table tbody tr").count()).resolves.toBe(12);
    await expect(page.locator('#trend-table tbody tr[data-suite="B"] td.bad').count()).resolves.toBe(2);
    await expect(page.locator("#trend-notes").innerText()).resolves.toContain("differs from A");
    expect(errors).toEqual([]);
    expect(requests.filter((r) => r !== url)).toEqual([]);
  }, 120_000);
});
