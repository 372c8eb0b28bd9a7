import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { writeSuiteViewer } from "../../src/session/viewer.js";
import { buildSite } from "../helpers/viewer-site.js";
import { haveBrowser, launch, watchedPage } from "../helpers/browser.js";

const dir = mkdtempSync(join(tmpdir(), "medalist-viewb-"));
const shots = join(process.cwd(), "out");
let browser: Browser;

beforeAll(async () => {
  if (haveBrowser) browser = await launch();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!haveBrowser)("viewer in Chromium", () => {
  it("shows the runs, a run page with its charts and tree, the code diff; nothing leaves the page", async () => {
    const s = buildSite(join(dir, "in"));
    const out = join(dir, "site");
    writeSuiteViewer({ head: s.head, headDir: s.headDir, base: s.base, baseDir: s.baseDir, out });
    const { page, requests, errors } = await watchedPage(browser);
    mkdirSync(shots, { recursive: true });

    await page.goto(pathToFileURL(join(out, "index.html")).href);
    await expect(page.locator("table.competitions tbody tr").count()).resolves.toBe(2);
    await expect(page.locator("#verdict-word").isVisible()).resolves.toBe(true);
    await expect(page.locator('tr[data-competition="toy-churn"]').getAttribute("data-group")).resolves.toBe(
      "gained",
    );
    await page.screenshot({ path: join(shots, "viewer-index.png"), fullPage: true });

    await page.locator('tr[data-competition="toy-churn"] a[href="runs/head-toy-churn.s0.html"]').click();
    await page.waitForURL(/head-toy-churn\.s0\.html/);
    for (const label of ["median", "bronze", "silver", "gold", "this run"])
      await expect(page.locator(`#leaderboard line.marker[data-label="${label}"]`).count()).resolves.toBe(1);
    await expect(page.locator("#leaderboard svg").isVisible()).resolves.toBe(true);
    await expect(page.locator('#metrics path.series[data-label="val_auc"]').isVisible()).resolves.toBe(true);
    await expect(page.locator("#aide li.node").count()).resolves.toBe(4);
    await expect(page.locator('#aide li.node[data-buggy="true"]').count()).resolves.toBe(1);
    await expect(page.locator("#log-view div").first().innerText()).resolves.toContain("medalist started");
    await expect(page.locator("#log-view").innerText()).resolves.toContain(
      '<img src=x onerror="window.__pwned=2">',
    );
    await expect(page.locator("#submission").isVisible()).resolves.toBe(false);
    await page.locator("#submission-preview summary").click();
    await expect(page.locator("#submission").innerText()).resolves.toContain("</script>");
    await page.screenshot({ path: join(shots, "viewer-run.png"), fullPage: true });

    await page.goto(pathToFileURL(join(out, "runs", "head-toy-churn.s1.html")).href);
    await expect(page.locator("#events tr").count()).resolves.toBe(5);

    await page.goto(pathToFileURL(join(out, "diffs", "toy-churn-s0.html")).href);
    await expect(page.locator(".diff .del").first().innerText()).resolves.toBe("- model = 'logreg'");
    await expect(page.locator(".diff .add").first().innerText()).resolves.toBe("+ model = 'gbm'");

    for (const p of ["index.html", "runs/base-toy-house-prices.s1.html", "runs/head-toy-churn.s0.html"]) {
      await page.goto(pathToFileURL(join(out, p)).href);
      await expect(
        page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned),
      ).resolves.toBeUndefined();
    }
    expect(requests.filter((u) => !u.startsWith("file://"))).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);

  it("searches a 50 MB log without freezing the page", async () => {
    const mb = Number(process.env.MEDALIST_BIG_LOG_MB ?? 50);
    const s = buildSite(join(dir, "big"), 20);
    // Replace one run's log with a big one; the needle sits on the last line.
    const line = "2026-01-01T00:00:00.000Z stdout step loss=0.123456 acc=0.987654 lr=0.001 batch=128\n";
    const n = Math.ceil((mb * 1024 * 1024) / line.length);
    const logPath = join(s.headDir, "runs", "toy-churn.s0", "run.log");
    writeFileSync(logPath, line.repeat(n) + "2026-01-01T00:00:01.000Z stderr NEEDLE found here\n");
    const out = join(dir, "bigsite");
    writeSuiteViewer({ head: s.head, headDir: s.headDir, out });
    const { page, requests, errors } = await watchedPage(browser);
    await page.goto(pathToFileURL(join(out, "runs", "head-toy-churn.s0.html")).href);
    await page.locator("#log-view div").first().waitFor();
    // A timer that records the longest gap between its ticks: a frozen page shows a long gap.
    await page.evaluate(() => {
      const w = globalThis as unknown as { maxGap: number };
      w.maxGap = 0;
      let last = performance.now();
      setInterval(() => {
        const now = performance.now();
        w.maxGap = Math.max(w.maxGap, now - last);
        last = now;
      }, 20);
    });
    await page.fill("#log-search", "needle");
    await page.locator("#log-status", { hasText: /^1 match$/ }).waitFor({ timeout: 120_000 });
    const gap = await page.evaluate(() => (globalThis as unknown as { maxGap: number }).maxGap);
    expect(gap).toBeLessThan(3000);
    await page.locator("#log-results a").first().click();
    await expect(page.locator("#log-view .hit").innerText()).resolves.toContain("NEEDLE found here");
    expect(requests.filter((u) => !u.startsWith("file://"))).toEqual([]);
    expect(errors).toEqual([]);
    console.log(`50 MB log search: ${n + 1} lines, longest pause ${Math.round(gap)} ms`);
    await page.close();
  }, 240_000);
});
