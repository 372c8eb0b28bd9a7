// `medalist trend`: earlier results as points in time, through the real CLI entry.
import { describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeResults } from "../../src/suite/store.js";
import { entryOf, HISTORY_VERSION } from "../../src/history/history.js";
import { clopperPearson } from "../../src/plan/informed.js";
import type { RunResult, SuiteResults } from "../../src/results/schema.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";
import { runCli } from "../helpers/cli.js";

const tmp = () => mkdtempSync(join(tmpdir(), "medalist-trend-"));

/** A suite of `ids` × 2 seeds finished at `day`, `medals` of its runs won one. */
function suite(
  day: string,
  medals: number,
  ids = ["c0", "c1"],
  opts: { sha?: string; hash?: string; run?: Partial<RunResult> } = {},
): SuiteResults {
  const runs = ids.flatMap((id, i) =>
    [0, 1].map((seed) =>
      fakeRun(id, seed, i * 2 + seed < medals ? "gold" : "none", {
        durationMs: 30 * 60_000,
        gpus: ["0"],
        ...opts.run,
      }),
    ),
  );
  for (const r of runs) if (r.grade) r.grade.percentile = r.grade.any_medal ? 0.95 : 0.4;
  const s = fakeSuite("head", runs, opts.hash ?? "hash-a");
  return { ...s, finishedAt: `${day}T12:00:00.000Z`, git: { sha: opts.sha ?? null, ref: null } };
}

/** A folder as `medalist run --out DIR` leaves it: DIR/head/results.json. */
function runFolder(root: string, name: string, s: SuiteResults): string {
  const dir = join(root, name);
  mkdirSync(join(dir, "head"), { recursive: true });
  writeResults(join(dir, "head", "results.json"), s);
  return dir;
}

const rowsOf = (stdout: string) => stdout.split("\n").filter((l) => /^\| +\d+ \|/.test(l));

describe("medalist trend", () => {
  it("orders run folders by time: medal rate with its Clopper–Pearson interval, percentile, agent time, GPU-hours", async () => {
    const root = tmp();
    // Given newest first: the table is oldest first.
    const late = runFolder(root, "late", suite("2026-03-01", 3, undefined, { sha: "c".repeat(40) }));
    const early = runFolder(root, "early", suite("2026-01-01", 1, undefined, { sha: "a".repeat(40) }));
    const mid = runFolder(root, "mid", suite("2026-02-01", 2, undefined, { sha: "b".repeat(40) }));
    const r = await runCli("trend", late, early, mid);
    expect(r.code).toBe(0);
    const rows = rowsOf(r.stdout);
    expect(rows).toHaveLength(3);
    const cp = clopperPearson(1, 4, 0.025);
    const iv = `${(cp.lower * 100).toFixed(1)}–${(cp.upper * 100).toFixed(1)}%`;
    const cells = (l: string) => l.split("|").map((c) => c.trim());
    expect(cells(rows[0]).slice(1, 11)).toEqual([
      "1",
      "2026-01-01 12:00",
      "aaaaaaa",
      "A",
      "25.0% (1/4)",
      iv,
      "53.8%", // (0.95 + 3 × 0.4) ÷ 4
      "2h 0m",
      "2.00",
      "—",
    ]);
    expect(cells(rows[0])[11]).toBe(join(early, "head", "results.json"));
    expect(cells(rows[1])[3]).toBe("bbbbbbb");
    expect(cells(rows[2])).toContain("75.0% (3/4)");
    expect(r.stdout).toContain('All 3 points are of one suite (A: "s", 2 competitions, 2 seeds');
    expect(r.stdout).toContain("95% Clopper–Pearson");
  });

  it("marks points of other suites (other competitions, seeds) with their letter and says how they differ", async () => {
    const root = tmp();
    const a1 = runFolder(root, "a1", suite("2026-01-01", 1));
    const b = runFolder(root, "b", suite("2026-01-15", 4, ["c0", "c2"], { hash: "hash-b" }));
    const a2 = runFolder(root, "a2", suite("2026-02-01", 2));
    const r = await runCli("trend", a1, b, a2);
    expect(r.code).toBe(0);
    const suites = rowsOf(r.stdout).map((l) => l.split("|")[4].trim());
    expect(suites).toEqual(["A", "B", "A"]);
    expect(r.stdout).toContain(
      "⚠ The points are of 2 different suites: only points of the same suite are comparable",
    );
    expect(r.stdout).toContain(
      'Suite B (1 point): "s", 2 competitions, 2 seeds, hash hash-b; differs from A: 2 competitions, 1 of them in suite A; not in A: c2; missing A\'s c1.',
    );
    // JSON: the same points, each with its suite letter, and the suites' differences.
    const j = await runCli("trend", a1, b, a2, "--json");
    const doc = JSON.parse(j.stdout) as {
      rows: { suite: string; medalRate: number; interval: { lower: number; upper: number } }[];
      suites: { letter: string; differences: string[] }[];
    };
    expect(doc.rows.map((x) => x.suite)).toEqual(["A", "B", "A"]);
    expect(doc.rows[1].medalRate).toBe(1);
    expect(doc.rows[1].interval.upper).toBe(1);
    expect(doc.suites[1].differences[0]).toMatch(/^2 competitions, 1 of them in suite A/);
  });

  it("reads the action's history file (one point per entry) beside a results.json; GPU-hours unknown there", async () => {
    const root = tmp();
    const entries = [
      suite("2026-01-01", 0, undefined, { sha: "1".repeat(40) }),
      suite("2026-01-02", 2, undefined, { sha: "2".repeat(40) }),
    ].map(entryOf);
    const history = join(root, "history.json");
    writeFileSync(history, JSON.stringify({ version: HISTORY_VERSION, entries }));
    const now = join(root, "results.json");
    writeResults(now, suite("2026-01-03", 4, undefined, { sha: "3".repeat(40) }));
    const r = await runCli("trend", history, now);
    expect(r.code).toBe(0);
    const rows = rowsOf(r.stdout).map((l) => l.split("|").map((c) => c.trim()));
    expect(rows.map((c) => c[5])).toEqual(["0.0% (0/4)", "50.0% (2/4)", "100.0% (4/4)"]);
    expect(rows.map((c) => c[9])).toEqual(["unknown", "unknown", "2.00"]);
    expect(rows[0][11]).toBe(`${history} entry 1`);
    // All one suite: the history entry's hash is the results' hash.
    expect(rows.map((c) => c[4])).toEqual(["A", "A", "A"]);
    // The same run given twice (history and its own file) counts once, and is said.
    const again = await runCli("trend", history, now, now);
    expect(rowsOf(again.stdout)).toHaveLength(3);
    expect(again.stdout).toContain(`Counted once: ${now} (the same run as ${now})`);
  });

  it("imported runs (no times upstream): agent time and GPU-hours 'unknown'", async () => {
    const root = tmp();
    const imported = suite("2026-01-01", 1, undefined, {
      run: { durationMs: 0, gpus: [], details: { source: "mlebench" } },
    });
    const file = join(root, "imported.json");
    writeResults(file, imported);
    const r = await runCli("trend", file);
    const row = rowsOf(r.stdout)[0]
      .split("|")
      .map((c) => c.trim());
    expect(row.slice(8, 10)).toEqual(["unknown", "unknown"]);
    expect(r.stdout).toContain("Runs imported from MLE-bench have no recorded time");
  });

  it("a bad input is one sentence naming the path (and the field), exit 2", async () => {
    const root = tmp();
    const missing = await runCli("trend", join(root, "nope"));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`medalist trend: not found: ${join(root, "nope")}`);
    const empty = join(root, "empty");
    mkdirSync(empty);
    const e = await runCli("trend", empty);
    expect(e.code).toBe(2);
    expect(e.stderr).toContain(`${empty} holds no head/results.json, results.json or history.json`);
    const bad = join(root, "bad.json");
    const doc = JSON.parse(JSON.stringify(suite("2026-01-01", 1)));
    doc.runs[1].grade.score = "oops";
    writeFileSync(bad, JSON.stringify(doc));
    const b = await runCli("trend", bad);
    expect(b.code).toBe(2);
    expect(b.stderr).toBe(`medalist trend: ${bad}: runs[1].grade.score: expected a number or null`);
    const history = join(root, "history.json");
    writeFileSync(history, JSON.stringify({ version: HISTORY_VERSION, entries: [{ sha: null }] }));
    const h = await runCli("trend", history);
    expect(h.code).toBe(2);
    expect(h.stderr).toMatch(
      new RegExp(
        `^medalist trend: ${history.replace(/[.]/g, "\\.")}: entries\\[0\\]\\.finishedAt: expected a string`,
      ),
    );
    const junk = join(root, "junk.json");
    writeFileSync(junk, "{ not json \u001b[2J");
    const jn = await runCli("trend", junk);
    expect(jn.stderr).toBe(`medalist trend: ${junk}: not a results or history file (not valid JSON)`);
    for (const x of [missing, e, b, h, jn]) expect(x.stderr.split("\n")).toHaveLength(1);
  });

  it("text from a results file cannot write escape sequences to the terminal or break the table", async () => {
    const root = tmp();
    const s = suite("2026-01-01", 1);
    s.suite.name = "evil\u001b[2J|name";
    const file = join(root, "results.json");
    writeResults(file, s);
    const r = await runCli("trend", file);
    expect(r.stdout).not.toContain("\u001b");
    expect(r.stdout).toContain('"evil [2J\\|name"');
    // …nor add markup to the chart page.
    s.suite.name = "<script>alert(1)</script><img src=x onerror=alert(2)>";
    s.agent.description = "</title><script>alert(3)</script>";
    writeResults(file, s);
    const html = join(root, "t.html");
    expect((await runCli("trend", file, "--html", html)).code).toBe(0);
    const page = readFileSync(html, "utf8");
    expect(page).not.toMatch(/<script|<img/);
    expect(page).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });

  it("--html writes one self-contained page: inline SVG, the viewer's CSP, no script, no remote URL", async () => {
    const root = tmp();
    const a = runFolder(root, "a", suite("2026-01-01", 1));
    const b = runFolder(root, "b", suite("2026-01-15", 4, ["c0", "c2"], { hash: "hash-b" }));
    const c = runFolder(root, "c", suite("2026-02-01", 2));
    const out = join(root, "trend.html");
    const r = await runCli("trend", a, b, c, "--html", out);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`chart: ${out}`);
    const html = readFileSync(out, "utf8");
    expect(html).toContain("Content-Security-Policy");
    expect(html).toContain('<svg class="chart" id="trend-chart"');
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    // One line per suite: A's two points joined, B's one point alone.
    expect(html.match(/class="rate-line" data-suite="A"/g)).toHaveLength(1);
    expect(html).not.toContain('class="rate-line" data-suite="B"');
    expect(html.match(/<circle[^>]*class="rate"/g)).toHaveLength(3);
    expect(html.match(/class="interval"/g)).toHaveLength(3);
    expect(html).toContain("The points are of 2 different suites");
  });
});
