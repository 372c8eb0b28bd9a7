// Regenerates the README's screenshots (docs/img/*.png) from the test fixtures: the viewer's index
// of a generated 22 × 3 comparison and one run page, the PR comment of a 22 × 3 suite as GitHub renders it,
// and `medalist trend`'s chart page over 12 generated run folders.
// Usage: npx tsx scripts/screenshots.ts   (needs /usr/bin/chromium; see scripts/ci-chromium.sh)
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { writeSuiteViewer } from "../src/session/viewer.js";
import { renderReport } from "../src/report/markdown.js";
import { compareRuns } from "../src/compare/compare.js";
import { buildSite } from "../test/helpers/viewer-site.js";
import { buildSuite } from "../test/helpers/viewer-suite.js";
import { bigComparison } from "../test/helpers/big-comparison.js";
import { showComment } from "../test/helpers/comment-page.js";
import { launch } from "../test/helpers/browser.js";
import { trendFolders } from "../test/helpers/trend-folders.js";
import { buildTrend } from "../src/report/trend.js";
import { readPoints } from "../src/cli/commands/trend.js";
import { trendPage } from "../src/view/trend-page.js";
import { writeFileSync } from "node:fs";

const outDir = join(process.cwd(), "docs", "img");
mkdirSync(outDir, { recursive: true });
const tmp = mkdtempSync(join(tmpdir(), "medalist-shots-"));
const browser = await launch();
try {
  // The index of a generated 22 × 3 comparison, at 1000 px: the verdict, then what changed.
  const suite = buildSuite(join(tmp, "suite"));
  const suiteSite = join(tmp, "suite-site");
  const comparison = compareRuns(
    suite.base,
    suite.head,
    { tolerance: 0.05, alpha: 0.05, failOn: "regression" },
    "cache (base commit 1a2b3c4)",
  );
  writeSuiteViewer({ ...suite, out: suiteSite, comparison });
  const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  await page.goto(pathToFileURL(join(suiteSite, "index.html")).href);
  await page.screenshot({ path: join(outDir, "viewer-index.png") });
  // A run page with every section: the toy fixture's head run of toy-churn, seed 0.
  const s = buildSite(join(tmp, "in"));
  s.base.suite.name = s.head.suite.name = "toy suite"; // the fixture's name is an injection test
  const site = join(tmp, "site");
  writeSuiteViewer({ head: s.head, headDir: s.headDir, base: s.base, baseDir: s.baseDir, out: site });
  await page.goto(pathToFileURL(join(site, "runs", "head-toy-churn.s0.html")).href);
  await page.locator("#log-view div").first().waitFor();
  await page.screenshot({
    path: join(outDir, "viewer-run.png"),
    clip: { x: 0, y: 0, width: 1000, height: 1100 },
  });

  const { cmp, links } = bigComparison(22, 3);
  const md = renderReport(cmp, {
    links,
    viewerUrl: "https://github.com/acme-labs/agent-scaffold/actions/runs/1/artifacts/2",
  });
  const comment = await browser.newPage({ viewport: { width: 1040, height: 700 } });
  await showComment(comment, md, "light");
  // From the title to the end of the percentile chart.
  const chart = await comment.locator("pre.mermaid").first().boundingBox();
  await comment.screenshot({
    path: join(outDir, "comment.png"),
    fullPage: true,
    clip: { x: 0, y: 0, width: 1040, height: Math.ceil((chart ? chart.y + chart.height : 984) + 16) },
  });
  // medalist trend --html over 12 run folders (two of another suite), at 1000 px: the chart and the table.
  const trendFile = join(tmp, "trend.html");
  // Named as a user in that folder would give them: .medalist/nightly-01 … (relative paths).
  const home = process.cwd();
  process.chdir(tmp);
  try {
    const folders = trendFolders(".medalist", 10, "nightly");
    writeFileSync(trendFile, trendPage(buildTrend(folders.flatMap(readPoints))));
  } finally {
    process.chdir(home);
  }
  const trend = await browser.newPage({ viewport: { width: 1000, height: 1000 } });
  await trend.goto(pathToFileURL(trendFile).href);
  await trend.screenshot({ path: join(outDir, "trend.png") });
  console.log(`screenshots written to ${outDir}`);
} finally {
  await browser.close();
  rmSync(tmp, { recursive: true, force: true });
}
