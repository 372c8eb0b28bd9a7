// Cost is self-reported by the agent (logs/usage.json): labelled so, counted per run, unusable
// values ignored with a reason, and never a better/worse mark of its own.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareRuns, summarize } from "../../src/compare/compare.js";
import { renderReport, renderResults } from "../../src/report/markdown.js";
import { readUsage } from "../../src/suite/run-files.js";
import { renderRun } from "../../src/view/pages.js";
import { renderIndex } from "../../src/view/index-page.js";
import type { RunResult } from "../../src/results/schema.js";
import type { RunData, SiteData } from "../../src/view/model.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";

const gate = { tolerance: 0.05, alpha: 0.05, failOn: "regression" as const };

function usageFile(json: string): RunResult["usage"] {
  const dir = mkdtempSync(join(tmpdir(), "medalist-cost-"));
  mkdirSync(join(dir, "logs"));
  writeFileSync(join(dir, "logs", "usage.json"), json);
  return readUsage(dir);
}

const side = (label: string, usages: RunResult["usage"][]) =>
  fakeSuite(
    label,
    usages.map((usage, i) => fakeRun(`c${i}`, 0, "none", { usage })),
  );

/** The headline's cost row of a base-vs-head report. */
const costRow = (text: string) => text.split("\n").find((l) => l.startsWith("| Cost"))!;

describe("reading usage.json", () => {
  it("keeps usable numbers and names the fields it ignored", () => {
    expect(usageFile('{"tokens": 1200, "dollars": 0.42}')).toEqual({ tokens: 1200, dollars: 0.42 });
    expect(usageFile('{"dollars": 0}')).toEqual({ dollars: 0 });
    expect(usageFile('{"dollars": 1e308, "tokens": 5}')).toEqual({ tokens: 5, ignored: ["dollars"] });
    expect(usageFile('{"dollars": 1e999}')).toEqual({ ignored: ["dollars"] });
    expect(usageFile('{"dollars": -3}')).toEqual({ ignored: ["dollars"] });
    expect(usageFile('{"dollars": "NaN", "tokens": "Infinity"}')).toEqual({ ignored: ["tokens", "dollars"] });
    expect(usageFile('{"dollars": "0.5"}')).toEqual({ ignored: ["dollars"] });
    expect(usageFile("[1, 2]")).toBeNull();
    expect(usageFile("{not json")).toBeNull();
  });
});

describe("self-reported cost in the comment", () => {
  it("dollars: 0 on the head never marks it better", () => {
    const base = side("base", [{ dollars: 5 }, { dollars: 5 }, { dollars: 5 }]);
    const head = side("head", [{ dollars: 0 }, { dollars: 0 }, { dollars: 0 }]);
    const text = renderReport(compareRuns(base, head, gate));
    const row = costRow(text);
    expect(row).toContain("−$15.00 unverified");
    expect(row).not.toMatch(/🟢|🔴|⚪/);
    expect(text).toContain(
      "Base: $15.00 self-reported by 3 of 3 runs. Head: $0.00 self-reported by 3 of 3 runs.",
    );
  });

  it("only 1 of 3 runs reporting: the total says so and nothing is compared", () => {
    const base = side("base", [{ dollars: 2 }, { dollars: 2 }, { dollars: 2 }]);
    const head = side("head", [{ dollars: 1.2 }, null, null]);
    const cmp = compareRuns(base, head, gate);
    expect(cmp.head).toMatchObject({ dollars: 1.2, dollarsRuns: 1, dollarsIgnored: 0 });
    const text = renderReport(cmp);
    expect(costRow(text)).toMatch(/\$1\.20 \(1 of 3\) +\| not compared/);
    expect(text).toContain("Head: $1.20 self-reported by 1 of 3 runs.");
  });

  it("1e308, negative and NaN-ish values are ignored with the reason, never summed into $Infinity", () => {
    const head = side("head", [
      { ignored: ["dollars"] }, // what readUsage keeps of 1e308, -1 or "NaN"
      { dollars: 1e308 }, // a results file written by hand or by an older version
      { dollars: -4 },
      { dollars: 0.5 },
    ]);
    const sum = summarize(head);
    expect(sum).toMatchObject({ dollars: 0.5, dollarsRuns: 1, dollarsIgnored: 3 });
    const base = side("base", [{ dollars: 1e308 }, { dollars: 1e308 }, {}, {}]);
    expect(summarize(base)).toMatchObject({ dollars: null, dollarsRuns: 0, dollarsIgnored: 2 });
    const text = renderReport(compareRuns(base, head, gate));
    expect(text).not.toMatch(/Infinity|NaN|e\+308/);
    expect(text).toContain("3 runs' values ignored: not a finite non-negative number");
    expect(costRow(text)).toContain("not compared");
    expect(renderResults(head)).toContain(
      "cost $0.50 self-reported by 1 of 4 runs; 3 runs' values ignored: not a finite non-negative number",
    );
  });
});

describe("self-reported cost in the viewer", () => {
  it("labels each run's cost and the suite's total as self-reported; an ignored value says so", () => {
    const suite = side("head", [{ dollars: 0.42, tokens: 100 }, { ignored: ["dollars"] }, null]);
    const runs: RunData[] = suite.runs.map((result) => ({
      side: "head",
      result,
      page: `runs/${result.runId}.html`,
      logDir: null,
      log: null,
      metrics: null,
      files: [],
      filesMore: false,
      texts: {},
      submission: null,
      tree: null,
      events: null,
      missingFolder: true,
    }));
    const site: SiteData = { head: suite, base: null, runs, leaderboards: {}, history: [] };
    const index = renderIndex(site);
    expect(index).toContain("$0.42 self-reported by 1 of 3 runs; 1 run&#39;s value ignored");
    expect(index).toContain("100 self-reported by 1 of 3 runs");
    expect(renderRun(site, runs[0])).toContain("$0.42 (self-reported)");
    expect(renderRun(site, runs[1])).toContain("ignored: not a finite non-negative number");
    expect(renderRun(site, runs[2])).toMatch(/dollars<\/span><b>not reported/);
  });
});
