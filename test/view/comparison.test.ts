import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeSuiteViewer } from "../../src/session/viewer.js";
import { placeLabels, textWidth } from "../../src/view/labels.js";
import { mdInline } from "../../src/view/md-inline.js";
import { compareRuns } from "../../src/compare/compare.js";
import { VERDICT_MEANING } from "../../src/report/verdict.js";
import { buildSuite, EVIL_CAUSE, OOM_CAUSE } from "../helpers/viewer-suite.js";

const dir = mkdtempSync(join(tmpdir(), "medalist-viewcmp-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("marker labels", () => {
  it("never share a row when their boxes would touch, and flip at the right edge", () => {
    const labels = ["median", "bronze", "silver", "gold", "this run"].map((text, i) => ({
      x: 300 + i,
      text,
    }));
    labels.push({ x: 636, text: "far right" }, { x: 10, text: "left" });
    const out = placeLabels(labels, 640);
    for (let i = 0; i < out.length; i++)
      for (let j = i + 1; j < out.length; j++)
        if (out[i].row === out[j].row)
          expect(out[i].right + 4 <= out[j].left || out[j].right + 4 <= out[i].left, `${i} vs ${j}`).toBe(
            true,
          );
    // No line runs through another marker's label (a line runs from its label's row down).
    for (const [i, o] of out.entries())
      for (const [j, l] of labels.entries())
        if (i !== j && out[j].row > o.row)
          expect(l.x <= o.left - 2 || l.x >= o.right + 2, `${j} through ${i}`).toBe(true);
    expect(out[5]).toMatchObject({ anchor: "end" });
    expect(out[5].right).toBeLessThanOrEqual(640);
    expect(out[6].row).toBe(0);
    // Labels far apart share the first row.
    expect(
      placeLabels(
        [
          { x: 50, text: "gold" },
          { x: 400, text: "silver" },
        ],
        640,
      ).map((o) => o.row),
    ).toEqual([0, 0]);
    expect(textWidth("median", 10)).toBeGreaterThan(30);
  });
});

describe("the report's Markdown in HTML", () => {
  it("keeps bold, code and italics, undoes inert escapes and escapes everything else", () => {
    expect(mdInline("_no regression: **5.0 points**_")).toBe("<i>no regression: <b>5.0 points</b></i>");
    expect(mdInline("flagged `regressed` 80%")).toBe("flagged <code>regressed</code> 80%");
    expect(mdInline("a \\<script\\> b")).toBe("a &lt;script&gt; b");
    expect(mdInline("<img src=x onerror=alert(1)>")).toBe("&lt;img src=x onerror=alert(1)&gt;");
  });
});

describe("the index of a 22 × 3 comparison", () => {
  const s = buildSuite(join(dir, "in"));
  const out = join(dir, "site");
  const cmp = compareRuns(s.base, s.head, { tolerance: 0.05, alpha: 0.05, failOn: "regression" }, "cache");
  writeSuiteViewer({ ...s, out, comparison: cmp });
  const read = (p: string) => readFileSync(join(out, p), "utf8");
  const index = read("index.html");
  const runPages = readdirSync(join(out, "runs")).filter((f) => f.endsWith(".html"));

  it("leads with the verdict in the report's words, then the groups in order", () => {
    expect(index).toContain(`<b id="verdict-word">`);
    const meaning = VERDICT_MEANING[cmp.verdict].split(":")[1].trim();
    expect(index.indexOf(meaning)).toBeGreaterThan(0);
    expect(index.indexOf(meaning)).toBeLessThan(index.indexOf("<h2>Competitions"));
    const order = [...index.matchAll(/<section class="group" data-group="([a-z-]+)"/g)].map((m) => m[1]);
    expect(order).toEqual(["lost", "gained", "unchanged", "not-comparable"]);
  });

  it("puts each competition in its group, with both sides' runs, the diff and the cause", () => {
    const rows = [...index.matchAll(/<tr data-competition="([^"]+)" data-group="([a-z-]+)"/g)];
    expect(rows.length).toBe(22);
    for (const [group, ids] of Object.entries(s.groups))
      for (const id of ids) expect(rows.find((m) => m[1] === id)?.[2], id).toBe(group);
    const oomId = s.ids[4];
    const row = index.slice(
      index.indexOf(`data-competition="${oomId}"`),
      index.indexOf("</tr>", index.indexOf(`data-competition="${oomId}"`)),
    );
    expect(row).toContain(`href="runs/base-${oomId}.s1.html"`);
    expect(row).toContain(`href="runs/head-${oomId}.s1.html"`);
    expect(row).toContain(`href="diffs/${oomId}-s1.html"`);
    expect(row).toContain(`head seed 1</span> failed: ${OOM_CAUSE}`);
  });

  it("links every run page to its pair, the diff and its neighbours", () => {
    expect(runPages.length).toBe(132);
    for (const f of runPages) {
      const html = read(`runs/${f}`);
      const [side, rest] = [f.slice(0, 4), f.slice(5)];
      const other = side === "base" ? "head" : "base";
      expect(html, f).toContain(`<a id="nav-pair" href="../runs/${other}-${rest}">`);
      const m = /^(.*)\.s(\d)\.html$/.exec(rest)!;
      expect(html, f).toContain(`<a id="nav-diff" href="../diffs/${m[1]}-s${m[2]}.html">`);
    }
    const first = read(`runs/head-${s.ids[0]}.s0.html`);
    expect(first).toContain(`<span id="nav-prev" class="muted">first run</span>`);
    expect(first).toContain(`<a id="nav-next" href="../runs/head-${s.ids[0]}.s1.html">`);
  });

  it("leads a failed run's page with the CLI's cause; no chart without a score; code before the collapsed submission", () => {
    const page = read(`runs/head-${s.ids[4]}.s1.html`);
    const cause = page.indexOf(`<p id="cause" class="cause bad">failed: ${OOM_CAUSE}</p>`);
    expect(cause).toBeGreaterThan(0);
    expect(cause).toBeLessThan(page.indexOf("<h2>Leaderboard"));
    const lb = page.slice(page.indexOf('<div id="leaderboard">'), page.indexOf("<h2>Final code"));
    expect(lb).not.toContain("<svg");
    expect(lb).toContain("No valid score");
    expect(page.indexOf("<h2>Final code")).toBeLessThan(page.indexOf("<h2>Submission"));
    expect(page).toContain(`<details id="submission-preview"><summary>`);
    expect(read(`runs/head-${s.ids[0]}.s0.html`)).toMatch(/<div id="leaderboard"><svg/);
  });

  it("renders a hostile cause and submission inert everywhere", () => {
    const evil = read(`runs/head-${s.ids[11]}.s0.html`);
    expect(evil).toContain("&lt;script&gt;window.__pwned=3&lt;/script&gt;");
    expect(evil).toContain("&lt;script&gt;window.__pwned=5&lt;/script&gt;");
    for (const [p, html] of [["index.html", index], ...runPages.map((f) => [f, read(`runs/${f}`)])]) {
      expect(html, p).not.toContain("<script>window.__pwned");
      expect(html, p).not.toContain("<img src=x");
    }
    expect(index).toContain(
      EVIL_CAUSE.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;"),
    );
  });

  it("without a baseline, says so and still lists the head's runs", () => {
    const solo = join(dir, "solo");
    writeSuiteViewer({ head: s.head, headDir: s.headDir, out: solo, registry: s.registry });
    const html = readFileSync(join(solo, "index.html"), "utf8");
    expect(html).toContain("No baseline: this page shows the head&#39;s runs only");
    expect([...html.matchAll(/<tr data-competition=/g)].length).toBe(22);
    const page = readFileSync(join(solo, "runs", `head-${s.ids[0]}.s0.html`), "utf8");
    expect(page).toContain(`<span id="nav-pair" class="muted">no base run of this seed</span>`);
  });

  it("computes the comparison itself, and says so, when none is given", () => {
    const own = join(dir, "own");
    writeSuiteViewer({ ...s, out: own });
    const html = readFileSync(join(own, "index.html"), "utf8");
    expect(html).toContain("The viewer compared the two results files itself, at the default gate");
    expect(html).toContain(`data-group="not-comparable"`);
  });
});
