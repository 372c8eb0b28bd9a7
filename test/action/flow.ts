// run() in-process as a job would call it, in a workspace, with a fake cache: its exit code,
// outputs and job summary. Shared by the cache-flow and informed-flow tests.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { run } from "../../src/action/main.js";
import type { ArtifactApi } from "../../src/action/artifacts.js";
import type { fakeCache } from "./fake-cache.js";
import { parseOutputs, ROOT } from "./harness.js";

/**
 * A workspace for the suite's tests (the toy competitions copied into registry/, `config` as
 * medalist.yml, push.json for a push to main), the working folder while they run.
 */
export function flowWorkspace(prefix: string, competitions: string[], config: string[]) {
  const w = { ws: "", saved: { ...process.env } };
  const prevCwd = process.cwd();
  beforeAll(() => {
    w.ws = mkdtempSync(join(tmpdir(), prefix));
    for (const id of competitions)
      cpSync(join(ROOT, "competitions", id), join(w.ws, "registry", id), { recursive: true });
    writeFileSync(join(w.ws, "medalist.yml"), [...config, ""].join("\n"));
    writeFileSync(
      join(w.ws, "push.json"),
      JSON.stringify({ ref: "refs/heads/main", repository: { default_branch: "main" } }),
    );
    process.chdir(w.ws);
  });
  afterAll(() => {
    process.chdir(prevCwd);
    process.env = w.saved;
    rmSync(w.ws, { recursive: true, force: true });
  });
  return w;
}

export async function actionRun(
  ws: string,
  saved: NodeJS.ProcessEnv,
  cache: ReturnType<typeof fakeCache>,
  env: Record<string, string>,
  deps: { artifacts?: () => ArtifactApi; runSuite?: NonNullable<Parameters<typeof run>[0]>["runSuite"] } = {},
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
  // An absent dependency keeps run()'s default (a key set to undefined would replace it).
  const given = Object.fromEntries(Object.entries(deps).filter(([, v]) => v !== undefined));
  await run({ env: process.env, cache, ...given });
  const code = process.exitCode;
  process.exitCode = undefined;
  return { code, outputs: parseOutputs(readFileSync(out, "utf8")), summary: readFileSync(summary, "utf8") };
}
