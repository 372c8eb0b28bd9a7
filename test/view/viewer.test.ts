import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { viewCommand } from "../../src/cli/commands/view.js";
import { writeSuiteViewer } from "../../src/session/viewer.js";
import { logPages } from "../../src/view/load.js";
import { parseAideJournal, parseEvents, parseMetrics } from "../../src/view/parse.js";
import { buildSite } from "../helpers/viewer-site.js";

const dir = mkdtempSync(join(tmpdir(), "medalist-view-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("writeViewer", () => {
  const s = buildSite(join(dir, "in"));
  const out = join(dir, "site");
  const w = writeSuiteViewer({ head: s.head, headDir: s.headDir, base: s.base, baseDir: s.baseDir, out });
  const read = (p: string) => readFileSync(join(out, p), "utf8");
  const all = () =>
    [
      "index.html",
      ...readdirSync(join(out, "runs"))
        .filter((f) => f.endsWith(".html"))
        .map((f) => `runs/${f}`),
      ...readdirSync(join(out, "diffs")).map((f) => `diffs/${f}`),
    ].map((p) => [p, read(p)] as const);

  it("writes one page per run and one diff per competition and seed", () => {
    expect(w.runs).toBe(8);
    expect(w.diffs).toBe(4);
    const index = read("index.html");
    expect(index).toContain("toy-churn");
    expect(index).toContain(`<tr data-competition="toy-churn" data-group="gained"`);
    expect(index).toContain("diffs/toy-churn-s0.html");
  });

  it("escapes everything the agent wrote: no injected element reaches any page", () => {
    for (const [p, html] of all()) {
      expect(html, p).not.toContain("<script>window.__pwned");
      expect(html, p).not.toContain("<img src=x");
      expect(html.match(/<script>/g)?.length ?? 0, p).toBeLessThanOrEqual(1);
    }
    expect(read("runs/head-toy-churn.s0.html")).toContain("&lt;script&gt;alert(&#39;plan&#39;)");
  });

  it("never follows a link the agent planted", () => {
    const page = read("runs/head-toy-churn.s0.html");
    expect(page).toContain("logs/passwd-link");
    expect(page).toContain("link (not followed)");
    expect(page).not.toContain("root:x:0:0");
  });

  it("shows the AIDE tree, the metric chart, the leaderboard and the why", () => {
    const page = read("runs/head-toy-churn.s0.html");
    expect(page).toContain("AIDE solution tree");
    expect(page).toContain("4 nodes · 1 buggy · 3 with a metric");
    expect(page).toContain('data-label="val_auc"');
    expect(page).toContain('data-label="bronze"');
    expect(page).toContain("1200 Kaggle teams");
    expect(read("runs/base-toy-house-prices.s1.html")).toContain("The agent exited with code 3");
    expect(read("runs/head-toy-house-prices.s0.html")).toContain("stopped at the time limit (60s)");
    expect(read("runs/head-toy-churn.s1.html")).toContain("Event trajectory");
  });

  it("diffs the final code of base and head", () => {
    const d = read("diffs/toy-churn-s0.html");
    expect(d).toContain(`<div class="del">- model = &#39;logreg&#39;</div>`);
    expect(d).toContain(`<div class="add">+ model = &#39;gbm&#39;</div>`);
    expect(d).toContain("1 file unchanged");
  });
});

describe("parsers", () => {
  it("pages a log at line ends and keeps the file's line numbers", () => {
    const text = Array.from({ length: 25 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
    const p = logPages(text, 10);
    expect(p.starts).toEqual([0, 10, 20]);
    expect(p.lines).toBe(25);
    expect(p.pages[2].split("\n")).toEqual(["line 21", "line 22", "line 23", "line 24", "line 25"]);
    const long = logPages(`a\n${"x".repeat(100)}\nb`, 10, 1000, 20);
    expect(long.pages[0]).toContain("[line cut: 80 more characters]");
  });

  it("reads metrics lines leniently", () => {
    const m = parseMetrics('{"step":1,"value":0.5}\nnope\n{"time":"2026-01-01T00:00:00Z","score":1}\n');
    expect(m.points.map((p) => p.value)).toEqual([0.5, 1]);
    expect(m.badLines).toBe(1);
  });

  it("rejects what is not an AIDE journal or an event list", () => {
    expect(parseAideJournal({ nodes: [] })).toBeNull();
    expect(parseAideJournal([1, 2])).toBeNull();
    expect(parseEvents([{ foo: 1 }])).toBeNull();
    expect(
      parseEvents({ history: [{ source: "agent", action: "run", args: { command: "ls" } }] })?.[0].detail,
    ).toBe("ls");
  });
});

describe("medalist view", () => {
  it("writes the site from results files and refuses a missing --out", async () => {
    const s = buildSite(join(dir, "cli"));
    const out = join(dir, "cli-site");
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      const code = await viewCommand.run([
        join(s.headDir, "results.json"),
        "--base",
        join(s.baseDir, "results.json"),
        "--out",
        out,
      ]);
      expect(code).toBe(0);
      expect(log.mock.calls[0][0]).toMatch(/index\.html \(8 run pages, 4 code diffs\)$/);
    } finally {
      log.mockRestore();
    }
    expect(readFileSync(join(out, "index.html"), "utf8")).toContain("toy-house-prices");
    await expect(viewCommand.run([join(s.headDir, "results.json")])).rejects.toThrow("missing --out");
  });
});
