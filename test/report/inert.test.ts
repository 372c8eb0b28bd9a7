// Agent text is inert in the comment: a corpus of Markdown/HTML/mention/marker payloads goes
// through every report mode and the rendered HTML (marked, GFM) must have exactly the structure
// the same report has with plain words in place of the payload.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { marked } from "marked";
import { inert, stripMarkers } from "../../src/report/inert.js";
import { renderResults } from "../../src/report/markdown.js";
import { compareRuns } from "../../src/compare/compare.js";
import { renderEvaluation } from "../../src/report/evaluation.js";
import { mergeShards } from "../../src/session/merge.js";
import { relayComment } from "../../src/action/relay.js";
import { createClient } from "../../src/github/client.js";
import { commentMarker } from "../../src/github/marker.js";
import { FakeGitHub } from "../fixtures/github/server.js";
import type { SuiteResults } from "../../src/results/schema.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";

const OTHER_MARKER = commentMarker("Medalist PR", "other");

const PAYLOADS = [
  "@org/team please look, cc @alice",
  "![t](http://tracker.example/p.png)",
  '<img src="http://tracker.example/x.png" onerror="alert(1)">',
  "</details></details><details open><summary>pwned</summary>",
  "| a | b |\n|---|---|\n| c | d |",
  "# Heading\n## Second",
  "```\nfenced\n```\n~~~\nmore\n~~~",
  "[click](https://evil.example) [ref][1]\n\n[1]: https://evil.example",
  "<https://evil.example> https://evil.example/x www.evil.example user@evil.example",
  OTHER_MARKER,
  `<!-<!-- x -->- medalist:Medalist PR:other -->`,
  `<!--<!---->-- medalist:Medalist PR:other --->>`,
  "&lt;img src=x&gt; &#64;org/team &#x3C;b&#x3E;",
  "- list\n* item\n+ plus\n1. one\n2) two",
  "> quoted\n>> nested",
  "***bold*** __under__ ~~strike~~ $x^2$ $$y$$",
  "#123 org/repo#4 GH-5",
  "\u202eevil\u2066 bidi",
  "line\r\nbreak\u2028separator\u0000nul",
  "trailing backslash \\",
  "\\<img src=x> \\![x](http://tracker.example)",
  "`code` `` double ``",
  "<script>alert(1)</script><style>*{}</style>",
  "<sub>small</sub> <b>bold</b> <a href='http://tracker.example'>a</a>",
  "---\n===\ntext\n---",
  "    indented code",
  "<div>\n\n**block html**\n\n</div>",
  "x".repeat(5000),
];

/** Tag names of the HTML GitHub-flavoured marked makes of `md`, in order. */
function tags(md: string): string[] {
  const html = marked.parse(md, { gfm: true, async: false });
  return [...html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9]*)/g)].map((m) => m[0]);
}

/** The head side of a suite, with `text` wherever the agent controls a string. */
function hostileSuite(label: string, text: string): SuiteResults {
  const crashed = fakeRun("comp-b", 0, "none", {
    outcome: "failed",
    exitCode: 1,
    error: text,
    failure: { cause: text, exitCode: 1, signal: null, stderrTail: [text, text] },
  });
  const invalid = fakeRun("comp-a", 1, "none", { valid: false });
  invalid.grade!.error = text;
  const s = fakeSuite(label, [fakeRun("comp-a", 0, "gold"), invalid, crashed, fakeRun("comp-b", 1, "none")]);
  s.agent.description = text;
  s.agent.image = text;
  s.environment.gpuModel = text;
  return s;
}

const base = fakeSuite("base", [
  fakeRun("comp-a", 0, "gold"),
  fakeRun("comp-a", 1, "bronze"),
  fakeRun("comp-b", 0, "none"),
  fakeRun("comp-b", 1, "none"),
]);
const gate = { tolerance: 0.05, alpha: 0.05, failOn: "regression" as const };

const MODES: Record<string, (text: string) => string> = {
  "with a baseline": (t) =>
    renderEvaluation(hostileSuite("head", t), compareRuns(base, hostileSuite("head", t), gate), null),
  "without a baseline": (t) => renderEvaluation(hostileSuite("head", t), null, "no cached results"),
  "results report": (t) => renderResults(hostileSuite("head", t)),
  "sharded report": (t) => {
    const whole = hostileSuite("head", t);
    whole.suite.competitions = ["comp-a", "comp-b", "comp-c"];
    const shard = (i: number, runs: typeof whole.runs): SuiteResults => ({
      ...whole,
      shard: { index: i, count: 3, runIds: runs.map((r) => r.runId) },
      runs,
    });
    // Shard 3's results are missing: its runs become "not run" rows.
    const merged = mergeShards([shard(1, whole.runs.slice(0, 2)), shard(2, whole.runs.slice(2))], {
      expectShards: 3,
    }).results;
    return renderEvaluation(merged, compareRuns(base, merged, gate), null, {}, base);
  },
};

/** What the rendered Markdown must never show of a payload. */
function expectInert(md: string): void {
  const html = marked.parse(md, { gfm: true, async: false });
  expect(md.split("\n").slice(1).join("\n")).not.toMatch(/<!--/);
  expect(html).not.toMatch(/(href|src)="[^"]*(tracker|evil)/);
  expect(html).not.toMatch(/<(img|script|style|div|b|h1|hr|iframe)\b/);
  // GitHub links @name, name@host, #123 and bare URLs in rendered text: each is split.
  expect(html).not.toMatch(/@[A-Za-z0-9]/);
  expect(html).not.toMatch(/(^|[^&\w])#\d/);
  expect(html).not.toMatch(/https?:\/\/evil|www\.evil/);
}

describe("agent text is inert in the comment", () => {
  for (const [mode, render] of Object.entries(MODES))
    it(`${mode}: every payload renders with the structure of plain words`, () => {
      const plain = tags(render("plain words here"));
      for (const p of PAYLOADS) {
        const md = render(p);
        expect(tags(md), p).toEqual(plain);
        expectInert(md);
      }
    });

  it("escapes what GitHub would turn into mentions, references and links, keeping the visible text", () => {
    const html = marked.parse(inert("@org/team see #12 at https://x.example"), { async: false });
    expect(html.replace(/\u200b/g, "")).toBe("<p>@org/team see #12 at https://x.example</p>\n");
    expect(inert("a".repeat(600), 10)).toBe(`${"a".repeat(10)}…`);
    expect(inert("- item")).toBe("\\- item");
    expect(inert("1. one")).toBe("1\\. one");
    expect(inert("version 0.0.1")).toBe("version 0.0.1");
  });
});

describe("markers are stripped until none remain", () => {
  it("removes plain, nested, overlapping and dash-sharing markers", () => {
    expect(stripMarkers(`a${OTHER_MARKER}b`)).toBe("ab");
    expect(stripMarkers("<!-<!-- x -->- medalist:wf:s -->")).toBe("");
    expect(stripMarkers("<!<!--x-->-<!--y-->- medalist:a:b -->tail")).toBe("tail");
    expect(stripMarkers("<!-->x")).toBe("x");
    const deep = `${"<!-".repeat(2000)}${"<!-- m -->- medalist:a:b -->".repeat(1)}${"- medalist:a:b -->".repeat(1999)}`;
    expect(stripMarkers(deep)).not.toMatch(/<!--[\s\S]*-->/);
    expect(stripMarkers("a --> b <!-- c")).toBe("a --> b <!-- c");
  });

  it("strips 1 MB of nesting in one linear pass (under 5 s even on a loaded machine)", () => {
    const big = "<!-".repeat(150_000) + "<!-- -->" + "- -->".repeat(150_000);
    const t = Date.now();
    expect(stripMarkers(big)).not.toMatch(/<!--[\s\S]*-->/);
    expect(Date.now() - t).toBeLessThan(5_000);
  });
});

describe("relay: the posted body holds no marker but its own first line", () => {
  let gh: FakeGitHub;
  beforeAll(async () => {
    gh = new FakeGitHub();
    await gh.start();
  });
  afterAll(() => gh.stop());

  it("a nested marker in the artifact's body neither survives nor captures another suite's comment", async () => {
    const client = createClient("t", { baseUrl: gh.url, retries: 0 });
    const sha = "a".repeat(40);
    gh.pulls.set(9, { headSha: sha });
    const other = gh.addComment(
      "acme",
      "agent",
      9,
      "medalist-bot",
      `${OTHER_MARKER}\nthe other suite's report`,
    );
    const run = { id: 5, name: "Medalist PR", headSha: sha } as Parameters<typeof relayComment>[2];
    for (const p of PAYLOADS) {
      const body = `${p}\n${MODES["without a baseline"](p)}`;
      const raw = { version: 1, pr: 9, headSha: sha, suite: "lite", body };
      const r = await relayComment(
        client,
        { owner: "acme", repo: "agent" },
        run,
        raw,
        "https://example.test/r",
      );
      const posted = gh.thread("acme", "agent", 9).find((c) => c.id === r!.id)!.body;
      const [first, ...rest] = posted.split("\n");
      expect(first).toBe(commentMarker("Medalist PR", "lite"));
      expect(rest.join("\n")).not.toMatch(/<!--[\s\S]*?-->/);
      expect(other.body).toBe(`${OTHER_MARKER}\nthe other suite's report`);
    }
    expect(gh.thread("acme", "agent", 9)).toHaveLength(2);
  });
});
