import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";

/** Debian's chromium, driven by playwright-core (nothing is downloaded). */
export const CHROMIUM = process.env.MEDALIST_CHROMIUM ?? "/usr/bin/chromium";

/** Browser tests run when chromium is installed; CI installs it, so there they must run. */
export const haveBrowser = existsSync(CHROMIUM) || process.env.CI === "true";

export async function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
}

/** A page that records every request and every console error. */
export async function watchedPage(
  browser: Browser,
  width = 1200,
): Promise<{ page: Page; requests: string[]; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const requests: string[] = [];
  const errors: string[] = [];
  page.on("request", (r) => requests.push(r.url()));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  return { page, requests, errors };
}
