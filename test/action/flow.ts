// run() in-process as a job would call it, in a workspace, with a fake cache: its exit code,
// outputs and job summary. Shared by the cache-flow tests.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../src/action/main.js";
import type { ArtifactApi } from "../../src/action/artifacts.js";
import type { fakeCache } from "./fake-cache.js";
import { parseOutputs } from "./harness.js";

export async function actionRun(
  ws: string,
  saved: NodeJS.ProcessEnv,
  cache: ReturnType<typeof fakeCache>,
  env: Record<string, string>,
  artifacts?: () => ArtifactApi,
) {
  const out = join(ws, `out-${Math.random()}`);
  // @actions/core remembers the summary file of its first write: one file, emptied per run.
  const summary = join(ws, "summary");
  writeFileSync(out, "");
  writeFileSync(summary, "");
  process.env = {
    PATH: saved.PATH,
    GITHUB_ACTIONS: "true",
    GITHUB_REPOSITORY: "acme/agent",
    GITHUB_OUTPUT: out,
    GITHUB_STEP_SUMMARY: summary,
    RUNNER_ENVIRONMENT: "github-hosted",
    INPUT_BASELINE: "cache",
    INPUT_COMMENT: "never",
    // No git checkout and no token here: the pull request's own config judges it (said first).
    "INPUT_TRUST-PR-CONFIG": "true",
    "INPUT_ALLOW-UNSANDBOXED-AGENT": "true",
    ...env,
  };
  process.exitCode = undefined;
  await run({ env: process.env, cache, ...(artifacts ? { artifacts } : {}) });
  const code = process.exitCode;
  process.exitCode = undefined;
  return { code, outputs: parseOutputs(readFileSync(out, "utf8")), summary: readFileSync(summary, "utf8") };
}
