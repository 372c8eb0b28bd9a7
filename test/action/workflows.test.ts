// The example workflows and the sub-actions' metadata, read as GitHub reads them (YAML): fork pull
// requests never reach a self-hosted runner, and every sub-action defaults as the main action does.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "./harness.js";

const FORK_GUARD = "github.event.pull_request.head.repo.full_name == github.repository";

type Job = { "runs-on"?: unknown; if?: unknown };
type Workflow = { on?: unknown; jobs?: Record<string, Job> };

const selfHosted = (job: Job) => JSON.stringify(job["runs-on"] ?? "").includes("self-hosted");
/** Triggered by pull requests, or a snippet without `on:` (it may be). */
const mayRunPullRequests = (w: Workflow) =>
  w.on === undefined || JSON.stringify(w.on).includes('"pull_request"') || w.on === "pull_request";

/** Jobs on a self-hosted runner that a fork's pull request could start. */
function unguarded(w: Workflow): string[] {
  if (!mayRunPullRequests(w)) return [];
  return Object.entries(w.jobs ?? {})
    .filter(([, job]) => selfHosted(job) && !String(job.if ?? "").includes(FORK_GUARD))
    .map(([name]) => name);
}

/** Every ```yaml block of a Markdown file that holds jobs. */
function yamlBlocks(file: string): Workflow[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/```ya?ml\n([\s\S]*?)```/g)]
    .map((m) => parse(m[1]) as Workflow)
    .filter((w) => w && typeof w === "object" && "jobs" in w);
}

const action = (dir: string) => parse(readFileSync(join(ROOT, dir, "action.yml"), "utf8"));

describe("example workflows", () => {
  const dir = join(ROOT, ".github", "workflows");
  const files = readdirSync(dir).filter((f) => f.startsWith("medalist-"));

  it("keep fork pull requests off self-hosted runners with a job-level if:", () => {
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const f of files) expect(unguarded(parse(readFileSync(join(dir, f), "utf8"))), f).toEqual([]);
  });

  it("and so do the snippets in README.md and docs/", () => {
    const docs = [
      "README.md",
      ...readdirSync(join(ROOT, "docs"))
        .filter((f) => f.endsWith(".md"))
        .map((f) => `docs/${f}`),
    ];
    let checked = 0;
    for (const f of docs)
      for (const w of yamlBlocks(join(ROOT, f))) {
        expect(unguarded(w), f).toEqual([]);
        checked += Object.values(w.jobs ?? {}).filter(selfHosted).length;
      }
    expect(checked).toBeGreaterThanOrEqual(4);
  });

  it("the check finds an unguarded job", () => {
    const w = parse("on: pull_request\njobs: { e: { runs-on: [self-hosted, gpu] } }");
    expect(unguarded(w)).toEqual(["e"]);
    expect(unguarded(parse("on: { push: {} }\njobs: { e: { runs-on: [self-hosted] } }"))).toEqual([]);
  });
});

describe("sub-actions", () => {
  const main = action(".");

  it("default every input they share with the main action as it does", () => {
    for (const sub of ["plan", "run", "report"]) {
      const yml = action(sub);
      for (const [name, input] of Object.entries(yml.inputs as Record<string, { default?: unknown }>)) {
        if (!(name in main.inputs)) continue;
        expect(String(input.default), `${sub}/action.yml ${name}`).toBe(String(main.inputs[name].default));
      }
    }
  });

  it("describe every verdict, error included", () => {
    for (const yml of [main, action("report")]) {
      const text = yml.outputs.verdict.description as string;
      for (const v of ["regressed", "no-regression", "inconclusive", "error"])
        expect(text).toContain(`\`${v}\``);
    }
  });

  it("take retention-days wherever they upload", () => {
    for (const dir of [".", "run", "report"])
      expect(action(dir).inputs["retention-days"]?.default, dir).toBe("30");
  });
});
