// Viewer pages are bounded: 30 MB of "<" in a journal, a log, code files and events give a run page
// under LIMITS.pageBytes plus the page's own markup, with every cut said; a viewer of 14 such runs
// stays under 14 such pages. Sizes: MEDALIST_VIEW_BOUND_MB (default 30) and MEDALIST_VIEW_BOUND_RUNS
// (default 14).
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeSuiteViewer } from "../../src/session/viewer.js";
import { LIMITS } from "../../src/view/read.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";

const MB = Number(process.env.MEDALIST_VIEW_BOUND_MB ?? 30);
const RUNS = Number(process.env.MEDALIST_VIEW_BOUND_RUNS ?? 14);
/** A run page's own markup (CSS, script, headings, cards) beside the agent text it embeds. */
const CHROME = 64 * 1024;
const PAGE_BOUND = LIMITS.pageBytes + CHROME;

const dir = mkdtempSync(join(tmpdir(), "medalist-bounds-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lt = (bytes: number) => "<".repeat(bytes);

/** A run folder whose journal holds MB megabytes of "<" (in nodes of 1 MB), plus other hostile files. */
function hostileRun(root: string, opts: { log?: number; extras?: boolean }): void {
  for (const d of ["logs", "code", "submission"]) mkdirSync(join(root, d), { recursive: true });
  const node = (i: number) => ({
    id: `n${i}`,
    step: i,
    plan: lt(1000),
    code: lt(1024 * 1024 - 2000),
    term_out: [lt(1000)],
    metric: { value: 0.5, maximize: true },
    is_buggy: false,
  });
  writeFileSync(
    join(root, "logs", "journal.json"),
    JSON.stringify({ nodes: Array.from({ length: MB }, (_, i) => node(i)) }),
  );
  writeFileSync(join(root, "run.log"), `${lt((opts.log ?? 0.01) * 1024 * 1024)}\n`);
  if (!opts.extras) return;
  for (let i = 0; i < 40; i++) writeFileSync(join(root, "code", `f${i}.py`), lt(256 * 1024));
  for (let i = 0; i < 40; i++) writeFileSync(join(root, "logs", `l${i}.txt`), lt(256 * 1024));
  const events = Array.from({ length: 1000 }, (_, i) => ({
    id: i,
    source: "agent",
    action: "run",
    message: lt(2000),
    content: lt(20_000),
  }));
  writeFileSync(join(root, "logs", "trajectory.json"), JSON.stringify(events));
  writeFileSync(
    join(root, "submission", "submission.csv"),
    `id,${lt(100)}\n${`1,${lt(1000)}\n`.repeat(100)}`,
  );
}

const sizeOf = (p: string) => statSync(p).size;
function treeSize(p: string): number {
  let n = 0;
  for (const e of readdirSync(p, { withFileTypes: true }))
    n += e.isDirectory() ? treeSize(join(p, e.name)) : sizeOf(join(p, e.name));
  return n;
}

describe("viewer pages are bounded in size", () => {
  it(`one run with ${MB} MB of "<" in its journal and log, 20 MB of code and logs, 22 MB of events`, () => {
    const runs = [fakeRun("comp", 0, "none")];
    const suite = fakeSuite("head", runs);
    hostileRun(join(dir, "one", runs[0].runDir), { log: MB, extras: true });
    const out = join(dir, "one-site");
    writeSuiteViewer({ head: suite, headDir: join(dir, "one"), out });
    const page = join(out, "runs", "head-comp.s0.html");
    const html = readFileSync(page, "utf8");
    expect(sizeOf(page)).toBeLessThan(PAGE_BOUND);
    // Every cut is said, with where the whole file is.
    expect(html).toMatch(
      /showing the first 64\.0 KiB of 1022\.0 KiB; the full text is in the run&#39;s artifact/,
    );
    expect(html).toMatch(
      /more nodes? not shown: this page reached its 4\.0 MiB size limit; the journal is in the run's artifact/,
    );
    expect(html).toMatch(
      /\d+ more events not shown: this page reached its 4\.0 MiB size limit; the file is in the run's artifact/,
    );
    expect(html).toMatch(/\d+ more files not listed: this page reached its 4\.0 MiB size limit/);
    // The log's pages: "<" costs one byte, and all of them together stay within the per-run bound.
    const logDir = join(out, "runs", "head-comp.s0-log");
    expect(treeSize(logDir)).toBeLessThanOrEqual(LIMITS.logBytes);
    expect(treeSize(logDir)).toBeLessThan(MB * 1024 * 1024 * 1.01 + 64 * 1024);
    expect(readFileSync(join(logDir, "0.js"), "utf8").slice(0, 40)).toMatch(/^medalistLog\(0,"<<<</);
  }, 240_000);

  it(`${RUNS} runs with ${MB} MB of "<" in each journal: the viewer stays under ${RUNS} bounded pages`, () => {
    const runs = Array.from({ length: RUNS }, (_, i) => fakeRun(`c${i}`, 0, "none"));
    const suite = fakeSuite("head", runs);
    hostileRun(join(dir, "many", runs[0].runDir), {});
    for (const r of runs.slice(1)) {
      mkdirSync(join(dir, "many", r.runDir, "logs"), { recursive: true });
      for (const f of ["run.log", "logs/journal.json"])
        copyFileSync(join(dir, "many", runs[0].runDir, f), join(dir, "many", r.runDir, f));
    }
    const out = join(dir, "many-site");
    const before = process.memoryUsage().rss;
    writeSuiteViewer({ head: suite, headDir: join(dir, "many"), out });
    const grown = process.memoryUsage().rss - before;
    for (const f of readdirSync(join(out, "runs")).filter((f) => f.endsWith(".html")))
      expect(sizeOf(join(out, "runs", f)), f).toBeLessThan(PAGE_BOUND);
    expect(treeSize(out)).toBeLessThan(RUNS * PAGE_BOUND + 1024 * 1024);
    // Memory holds about one run at a time, not all of them (the issue measured 3 GB).
    expect(grown).toBeLessThan(1024 ** 3);
  }, 600_000);
});
