// docs/img/viewer-build-failure.png: a run page of a suite whose agent image did not build, from a
// real results folder (the viewer `medalist run` wrote), e.g. test/fixtures/mlebench-upstream's dummy
// built FROM medalist-test-mlebench-env:1, which has no pip (test/docker/setup-failure.test.ts does the same).
// Usage: npx tsx scripts/screenshot-build-failure.ts RESULTS_DIR   (needs /usr/bin/chromium)
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { launch } from "../test/helpers/browser.js";

const results = process.argv[2];
if (!results) throw new Error("usage: npx tsx scripts/screenshot-build-failure.ts RESULTS_DIR");
const runs = join(resolve(results), "viewer", "runs");
const first = readdirSync(runs)
  .filter((f) => f.endsWith(".html"))
  .sort()[0];
const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
  await page.goto(pathToFileURL(join(runs, first)).href);
  await page.screenshot({
    path: join(process.cwd(), "docs", "img", "viewer-build-failure.png"),
    clip: { x: 0, y: 0, width: 1000, height: 620 },
  });
} finally {
  await browser.close();
}
