// The viewer of a generated 22 × 3 comparison in headless Chromium, at 1000 and 1400 px: the
// verdict without scrolling, no sideways scroll, the groups in order, filters and sorting that
// hide and order rows, every run page linked to its pair, marker labels that never overlap.
// One browser for the file; generous timeouts (a loaded 2-core machine).
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { writeSuiteViewer } from "../../src/session/viewer.js";
import { compareRuns } from "../../src/compare/compare.js";
import { haveBrowser, launch, watchedPage } from "../helpers/browser.js";
import { buildSuite, OOM_CAUSE, type GeneratedSuite } from "../helpers/viewer-suite.js";

const dir = mkdtempSync(join(tmpdir(), "medalist-viewcmpb-"));
const out = join(dir, "site");
let browser: Browser;
let s: GeneratedSuite;
const url = (p: string) => pathToFileURL(join(out, p)).href;

beforeAll(async () => {
  s = buildSuite(join(dir, "in"));
  const cmp = compareRuns(s.base, s.head, { tolerance: 0.05, alpha: 0.05, failOn: "regression" }, "cache");
  writeSuiteViewer({ ...s, out, comparison: cmp });
  if (haveBrowser) browser = await launch();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

const noSideScroll = (page: Page) =>
  page.evaluate(() => document.scrollingElement!.scrollWidth <= window.innerWidth);

/** The competitions of the rows shown, in page order. */
const shownRows = (page: Page) =>
  page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLTableRowElement>("table.competitions tbody tr"))
      .filter((tr) => tr.offsetParent !== null)
      .map((tr) => ({ id: tr.dataset.competition!, group: tr.dataset.group!, change: tr.dataset.change! })),
  );

/** Pairs of marker labels whose rendered boxes intersect (empty: none overlap). */
const overlappingLabels = (page: Page) =>
  page.evaluate(() => {
    const boxes = Array.from(document.querySelectorAll("#leaderboard text.marker-label")).map((t) => ({
      label: t.textContent,
      r: t.getBoundingClientRect(),
    }));
    const hits: string[] = [];
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, b] = [boxes[i].r, boxes[j].r];
        if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)
          hits.push(`${boxes[i].label} × ${boxes[j].label}`);
      }
    // A marker's line must not run through another marker's label either.
    const lines = Array.from(document.querySelectorAll("#leaderboard line.marker")).map((l) => ({
      label: l.getAttribute("data-label"),
      r: l.getBoundingClientRect(),
    }));
    for (const l of lines)
      for (const b of boxes)
        if (
          b.label !== l.label &&
          l.r.left < b.r.right &&
          b.r.left < l.r.right &&
          l.r.top < b.r.bottom &&
          b.r.top < l.r.bottom
        )
          hits.push(`line ${l.label} × ${b.label}`);
    return { count: boxes.length, hits };
  });

describe.skipIf(!haveBrowser)("the comparison viewer in Chromium", () => {
  for (const width of [1000, 1400])
    it(`at ${width} px: verdict on the first screen, no sideways scroll, groups in order, filters and sort work`, async () => {
      const { page, requests, errors } = await watchedPage(browser, width);
      await page.setViewportSize({ width, height: 800 });
      await page.goto(url("index.html"));
      const verdict = await page.locator("#verdict-word").boundingBox();
      expect(verdict).not.toBeNull();
      expect(verdict!.y + verdict!.height).toBeLessThanOrEqual(800);
      await expect(page.locator("#headline").isVisible()).resolves.toBe(true);
      expect(await noSideScroll(page)).toBe(true);
      const groups = await page
        .locator("section.group")
        .evaluateAll((els) => els.map((e) => e.getAttribute("data-group")));
      expect(groups).toEqual(["lost", "gained", "unchanged", "not-comparable"]);
      const all = await shownRows(page);
      expect(all.length).toBe(22);
      expect(all.map((r) => r.group)).toEqual(
        [...all.map((r) => r.group)].sort((a, b) => groups.indexOf(a) - groups.indexOf(b)),
      );

      // Group checkboxes hide a group's rows; the count says what is shown.
      await page.locator('input[name=group][value="unchanged"]').uncheck();
      let rows = await shownRows(page);
      expect(rows.length).toBe(22 - s.groups.unchanged.length);
      expect(rows.some((r) => r.group === "unchanged")).toBe(false);
      await expect(page.locator("#shown").innerText()).resolves.toBe(
        `${rows.length} of 22 competitions shown`,
      );
      await page.locator('input[name=group][value="unchanged"]').check();

      // Failed or invalid runs: only competitions with a failed or infra-error run.
      await page.selectOption("#filter-runs", "failed");
      rows = await shownRows(page);
      expect(rows.map((r) => r.id).sort()).toEqual(
        [s.ids[4], s.ids[6], s.ids[9], s.ids[11], ...s.groups["not-comparable"]].sort(),
      );
      await page.selectOption("#filter-runs", "all");

      // Percentile change down, then a name filter.
      await page.selectOption("#filter-change", "down");
      rows = await shownRows(page);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => Number(r.change) < 0)).toBe(true);
      await page.selectOption("#filter-change", "all");
      await page.fill("#filter-name", s.ids[4].slice(0, 8));
      rows = await shownRows(page);
      expect(rows.map((r) => r.id)).toEqual(
        s.ids.filter((id) => id.toLowerCase().includes(s.ids[4].slice(0, 8).toLowerCase())),
      );
      await page.fill("#filter-name", "");

      // Sorting orders rows inside each group: the largest drop first.
      await page.selectOption("#sort", "change-asc");
      const lost = (await shownRows(page)).filter((r) => r.group === "lost").map((r) => Number(r.change));
      expect(lost).toEqual([...lost].sort((a, b) => a - b));
      expect(await noSideScroll(page)).toBe(true);

      // A row's links lead to the runs and the diff.
      await page.locator(`tr[data-competition="${s.ids[4]}"] a[href$="head-${s.ids[4]}.s1.html"]`).click();
      await page.waitForURL(/head-.*\.s1\.html$/);
      await expect(page.locator("#cause").innerText()).resolves.toBe(`failed: ${OOM_CAUSE}`);
      expect(await noSideScroll(page)).toBe(true);
      await expect(page.locator("#leaderboard svg").count()).resolves.toBe(0);
      await expect(page.locator("#submission-preview").getAttribute("open")).resolves.toBeNull();
      await expect(page.locator("#submission").isVisible()).resolves.toBe(false);
      await page.locator("#nav-pair").click();
      await page.waitForURL(/base-.*\.s1\.html$/);
      await page.locator("#nav-diff").click();
      await page.waitForURL(/diffs\/.*-s1\.html$/);

      expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(requests.filter((u) => !u.startsWith("file://"))).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    }, 240_000);

  it("without script the grouped tables stand; without a baseline the page says so and filters work", async () => {
    const context = await browser.newContext({
      javaScriptEnabled: false,
      viewport: { width: 1000, height: 800 },
    });
    const bare = await context.newPage();
    await bare.goto(url("index.html"));
    await expect(bare.locator("#controls").isVisible()).resolves.toBe(false);
    expect(await shownRows(bare)).toHaveLength(22);
    expect(await noSideScroll(bare)).toBe(true);
    await context.close();

    const solo = join(dir, "solo");
    writeSuiteViewer({ head: s.head, headDir: s.headDir, out: solo, registry: s.registry });
    const { page, errors } = await watchedPage(browser, 1000);
    await page.goto(pathToFileURL(join(solo, "index.html")).href);
    await expect(page.locator("#verdict").innerText()).resolves.toContain("No baseline");
    expect(await shownRows(page)).toHaveLength(22);
    await page.selectOption("#filter-runs", "failed");
    expect((await shownRows(page)).map((r) => r.id).sort()).toEqual(
      [s.ids[4], s.ids[9], s.ids[11], ...s.groups["not-comparable"]].sort(),
    );
    expect(await noSideScroll(page)).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  }, 240_000);

  it("every run page links to its pair and back, scrolls only down, and its labels never overlap", async () => {
    const { page, requests, errors } = await watchedPage(browser, 1000);
    const pages = readdirSync(join(out, "runs")).filter((f) => f.endsWith(".html"));
    expect(pages.length).toBe(132);
    const problems: string[] = [];
    for (const f of pages) {
      await page.goto(url(`runs/${f}`), { waitUntil: "domcontentloaded" });
      const pair = await page.locator("#nav-pair").getAttribute("href");
      const other = f.startsWith("base-") ? f.replace(/^base-/, "head-") : f.replace(/^head-/, "base-");
      if (pair !== `../runs/${other}`) problems.push(`${f}: pair ${pair}`);
      if (!(await noSideScroll(page))) problems.push(`${f}: scrolls sideways`);
      const labels = await overlappingLabels(page);
      if (labels.hits.length) problems.push(`${f}: ${labels.hits.join(", ")}`);
    }
    expect(problems).toEqual([]);
    // The close thresholds' page: five labels, all drawn, none overlapping, at both widths.
    for (const width of [1000, 1400]) {
      await page.setViewportSize({ width, height: 800 });
      await page.goto(url(`runs/head-${s.ids[0]}.s0.html`));
      const labels = await overlappingLabels(page);
      expect(labels).toEqual({ count: 5, hits: [] });
    }
    // Following the pair link lands on the pair, whose pair link leads back.
    await page.goto(url(`runs/head-${s.ids[3]}.s2.html`));
    await page.locator("#nav-pair").click();
    await page.waitForURL(new RegExp(`base-${s.ids[3]}\\.s2\\.html$`));
    await page.locator("#nav-pair").click();
    await page.waitForURL(new RegExp(`head-${s.ids[3]}\\.s2\\.html$`));
    await page.locator("#nav-next").click();
    await page.waitForURL(new RegExp(`head-${s.ids[4]}\\.s0\\.html$`));
    expect(requests.filter((u) => !u.startsWith("file://"))).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 480_000);
});
