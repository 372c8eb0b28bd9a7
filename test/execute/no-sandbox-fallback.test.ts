// No quiet fallback: where bubblewrap cannot start (here: a `bwrap` first on PATH that fails as it
// does without user namespaces), `local.sandbox: auto` runs no sandbox. A pull request is refused
// with one sentence, even where the workflow allows unsandboxed agents; on the CLI the suite log
// says once that the agent runs unsandboxed and why, each run.log says it, and the report too.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { unsandboxedRefusal } from "../../src/action/judge.js";
import { configSchema } from "../../src/config/schema.js";
import { openExecutor } from "../../src/execute/backends.js";
import { renderResults } from "../../src/report/markdown.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";

// Before anything probes bubblewrap (the probe is cached for the process: this file's own).
const fakeBin = mkdtempSync(join(tmpdir(), "medalist-nobwrap-"));
writeFileSync(
  join(fakeBin, "bwrap"),
  "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n",
);
chmodSync(join(fakeBin, "bwrap"), 0o755);
process.env.PATH = `${fakeBin}:${process.env.PATH}`;

const WHY =
  "local.sandbox is auto and bubblewrap cannot start on this runner: bwrap: setting up uid map: Permission denied";

const config = (local: Record<string, unknown> = {}) =>
  configSchema().parse({
    competitions: { include: ["toy-churn"] },
    executor: "local",
    agent: { command: "echo hi" },
    local,
  });

describe("local.sandbox: auto where bubblewrap cannot start", () => {
  it("a pull request is refused with one sentence, even where unsandboxed agents are allowed", () => {
    const pr = { pr: { number: 7 } } as Parameters<typeof unsandboxedRefusal>[1];
    const sentence =
      `refusing to run pull request #7's agent with no sandbox (${WHY}): install bubblewrap and allow user namespaces on the runner, ` +
      "or set local.sandbox: none in the base branch's config to accept an unsandboxed agent";
    expect(unsandboxedRefusal(config(), pr, { allowUnsandboxedAgent: true })).toBe(sentence);
    expect(unsandboxedRefusal(config(), pr, { allowUnsandboxedAgent: false })).toBe(sentence);
    expect(sentence.split(". ")).toHaveLength(1);
    // Said in the (base) config: no sandbox is what it asked for; the workflow's input still decides.
    expect(unsandboxedRefusal(config({ sandbox: "none" }), pr, { allowUnsandboxedAgent: true })).toBeNull();
    expect(unsandboxedRefusal(config({ sandbox: "none" }), pr, { allowUnsandboxedAgent: false })).toMatch(
      /^refusing to run executor: local on pull request #7/,
    );
    // Not a pull request: the CLI and pushes run it, and say so (below).
    expect(unsandboxedRefusal(config(), { pr: null } as never, { allowUnsandboxedAgent: false })).toBeNull();
  });

  it("on the CLI: the suite log says once why the agent runs unsandboxed, each run.log and the report too", async () => {
    const root = mkdtempSync(join(tmpdir(), "medalist-nobwrap-run-"));
    mkdirSync(join(root, "public"));
    const lines: string[] = [];
    const c = config();
    const ex = await openExecutor("local", {
      config: c as never,
      agent: c.agent,
      baseDir: root,
      suiteId: "s",
      label: "head",
      log: (l) => lines.push(l),
    });
    const said = lines.filter((l) => l.includes("unsandboxed"));
    expect(said).toEqual([
      `the agent runs unsandboxed (${WHY}): it runs as this runner's user and can read that user's files and, through /proc, the runner's environment`,
    ]);
    expect(ex.facts.unsandboxed).toBe(WHY);
    const runDir = join(root, "run");
    const r = await ex.execute({
      runId: "r.s0",
      suiteId: "s",
      competitionId: "toy-churn",
      seed: 0,
      publicDir: join(root, "public"),
      runDir,
      timeLimitSecs: 30,
      env: {},
      gpus: [],
    });
    expect(r.outcome).toBe("completed");
    expect(readFileSync(join(runDir, "run.log"), "utf8")).toContain(
      `sandbox: none (${WHY}): the agent runs as the runner's user`,
    );
    await ex.close();
    const suite = fakeSuite("head", [fakeRun("toy-churn", 0, "none")]);
    suite.environment.unsandboxed = WHY;
    const md = renderResults(suite);
    expect(md.split("the agent ran unsandboxed")).toHaveLength(2);
    expect(md).toContain(
      "sandbox: none, the agent ran unsandboxed (local.sandbox is auto and bubblewrap cannot start",
    );
  }, 60_000);
});
