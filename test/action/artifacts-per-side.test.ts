// The action's uploads: one artifact for the head's runs and one for the base's (never one per
// run), kept for the retention-days input.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ArtifactApi, ArtifactOptions } from "../../src/action/artifacts.js";
import { fakeCache } from "./fake-cache.js";
import { ROOT, runInProcess } from "./harness.js";

describe("artifacts per side", () => {
  const ws = mkdtempSync(join(tmpdir(), "medalist-per-side-"));
  afterAll(() => rmSync(ws, { recursive: true, force: true }));

  it("uploads the head's runs and the base's runs as one artifact each, kept retention-days", async () => {
    const agent = (name: string) =>
      `{ command: node ${join(ROOT, "examples/agents", name, "agent.mjs")}, cwd: ${join(ROOT, "examples/agents")} }`;
    writeFileSync(
      join(ws, "medalist.yml"),
      [
        "name: sides",
        "competitions: { include: [toy-species] }",
        "seeds: 2",
        "executor: local",
        `agent: ${agent("strong")}`,
        "limits: { time: 60s }",
        "dataDir: data",
        `baseline: { source: run, agent: ${agent("weak")} }`,
      ].join("\n"),
    );
    const options: ArtifactOptions[] = [];
    const uploads: { name: string; files: string[] }[] = [];
    const api: ArtifactApi = {
      upload: async (name, files, root) => {
        uploads.push({ name, files: files.map((f) => relative(root, f)) });
        return { id: uploads.length };
      },
    };
    const run = await runInProcess({
      workspace: ws,
      inputs: {
        config: "medalist.yml",
        "github-token": "",
        comment: "never",
        "fail-on": "never",
        "trust-pr-config": "true",
        "allow-unsandboxed-agent": "true",
        "retention-days": "7",
        "runs-dir": "none",
      },
      env: { ACTIONS_RUNTIME_TOKEN: "fake" },
      deps: {
        cache: fakeCache(),
        // The base is the same folder here (no git in this workspace).
        checkoutBase: async (_sha, baseDir) => ({ baseDir, dispose: () => {} }),
        artifacts: (o) => {
          options.push(o);
          return api;
        },
      },
    });
    expect(run.code, run.stdout).toBe(0);
    expect(options).toEqual([{ retentionDays: 7 }]);
    expect(uploads.map((u) => u.name).sort()).toEqual([
      "medalist-comment-sides",
      "medalist-sides-base",
      "medalist-sides-head",
      "medalist-sides-report",
      "medalist-sides-viewer",
    ]);
    for (const side of ["head", "base"]) {
      const files = uploads.find((u) => u.name === `medalist-sides-${side}`)!.files;
      // Both runs of the side, each under its own run id.
      expect(new Set(files.map((f) => f.split("/")[0]))).toEqual(
        new Set(["toy-species.s0", "toy-species.s1"]),
      );
      expect(files).toContain("toy-species.s0/submission/submission.csv");
    }
    // Every head seed in the report links to the head's one artifact.
    const report = readFileSync(run.outputs["report-path"], "utf8");
    expect(report).toContain("/artifacts/");
  }, 240_000);

  it("refuses a retention-days that is not 1 to 400 days, in one line", async () => {
    const run = await runInProcess({
      workspace: ws,
      inputs: { config: "medalist.yml", "retention-days": "0" },
    });
    expect(run.code).not.toBe(0);
    expect(run.stdout).toContain('input "retention-days": expected a whole number of days, 1 to 400');
  });
});
