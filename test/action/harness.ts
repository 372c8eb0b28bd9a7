// Runs the action the way the Actions runner does — the bundle (runAction) or run() in process
// (runInProcess), with: INPUT_* variables, an event payload file,
// GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, and GITHUB_API_URL pointing at a loopback server.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { vi } from "vitest";
import { run } from "../../src/action/main.js";
import { type Deps } from "../../src/action/deps.js";

export const ROOT = resolve(import.meta.dirname, "../..");
/** The bundle under test; MEDALIST_ACTION_BUNDLE points elsewhere (e.g. a scratch build). */
export const DIST = process.env.MEDALIST_ACTION_BUNDLE ?? join(ROOT, "dist/index.js");
export const PR_PAYLOAD = join(ROOT, "test/fixtures/github/pull_request.opened.json");

/** dist/ is what the runner executes; the tests exercise it, so build first (`npm run build`). */
export function assertDist(): void {
  if (!existsSync(DIST)) throw new Error("dist/index.js is missing: run `npm run build` first");
}

export interface ActionRun {
  code: number | null;
  stdout: string;
  outputs: Record<string, string>;
  summary: string;
}

/** Parses the GITHUB_OUTPUT file (name<<delimiter … delimiter). */
export function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<=]+)<<(.+)$/.exec(lines[i]);
    if (!m) continue;
    const value: string[] = [];
    for (i++; i < lines.length && lines[i] !== m[2]; i++) value.push(lines[i]);
    out[m[1]] = value.join("\n");
  }
  return out;
}

export async function runAction(opts: {
  workspace: string;
  inputs: Record<string, string>;
  env?: Record<string, string>;
  eventPath?: string;
}): Promise<ActionRun> {
  const dir = join(opts.workspace, `.runner-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir, { recursive: true });
  const outputFile = join(dir, "output");
  const summaryFile = join(dir, "summary");
  writeFileSync(outputFile, "");
  writeFileSync(summaryFile, "");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? dir,
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_WORKSPACE: opts.workspace,
    GITHUB_REPOSITORY: "acme/agent",
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: opts.eventPath ?? PR_PAYLOAD,
    GITHUB_REF: "refs/pull/7/merge",
    GITHUB_SHA: "5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b",
    GITHUB_RUN_ID: "4242",
    GITHUB_WORKFLOW: "Medalist PR",
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    RUNNER_ENVIRONMENT: "self-hosted",
    RUNNER_TEMP: dir,
    ...opts.env,
  };
  for (const [k, v] of Object.entries(opts.inputs)) env[`INPUT_${k.replace(/ /g, "_").toUpperCase()}`] = v;
  const child = spawn(process.execPath, [DIST], {
    cwd: opts.workspace,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stdout += d));
  const code = await new Promise<number | null>((r) => child.on("close", r));
  return {
    code,
    stdout,
    outputs: parseOutputs(readFileSync(outputFile, "utf8")),
    summary: readFileSync(summaryFile, "utf8"),
  };
}

// @actions/core remembers the step summary file of its first write: one file per process.
let summaryFileInProcess: string | null = null;

/**
 * Runs the action's run() in this process, the way runAction runs the bundle: the same INPUT_* and
 * GITHUB_* variables, the workspace as the working directory, stdout captured, the exit code read
 * from process.exitCode. Dependencies (cache, artifacts, runSuite) may be injected.
 */
export async function runInProcess(opts: {
  workspace: string;
  inputs: Record<string, string>;
  env?: Record<string, string>;
  eventPath?: string;
  deps?: Partial<Deps>;
}): Promise<ActionRun> {
  const dir = join(opts.workspace, `.runner-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir, { recursive: true });
  const outputFile = join(dir, "output");
  summaryFileInProcess ??= join(mkdtempSync(join(tmpdir(), "medalist-summary-")), "summary");
  const summaryFile = summaryFileInProcess;
  writeFileSync(outputFile, "");
  writeFileSync(summaryFile, "");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? dir,
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_WORKSPACE: opts.workspace,
    GITHUB_REPOSITORY: "acme/agent",
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: opts.eventPath ?? PR_PAYLOAD,
    GITHUB_REF: "refs/pull/7/merge",
    GITHUB_SHA: "5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b",
    GITHUB_RUN_ID: "4242",
    GITHUB_WORKFLOW: "Medalist PR",
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    RUNNER_ENVIRONMENT: "self-hosted",
    RUNNER_TEMP: dir,
    ...opts.env,
  };
  for (const [k, v] of Object.entries(opts.inputs)) env[`INPUT_${k.replace(/ /g, "_").toUpperCase()}`] = v;
  const savedEnv = process.env,
    savedCwd = process.cwd();
  let stdout = "";
  const capture = (chunk: unknown) => {
    stdout += typeof chunk === "string" ? chunk : Buffer.isBuffer(chunk) ? chunk.toString("utf8") : "";
    return true;
  };
  const out = vi.spyOn(process.stdout, "write").mockImplementation(capture);
  const err = vi.spyOn(process.stderr, "write").mockImplementation(capture);
  process.env = env;
  process.chdir(opts.workspace);
  process.exitCode = undefined;
  let code: number | null;
  try {
    await run({ env, ...opts.deps });
    code = Number(process.exitCode ?? 0);
  } finally {
    process.exitCode = undefined;
    process.chdir(savedCwd);
    process.env = savedEnv;
    out.mockRestore();
    err.mockRestore();
  }
  return {
    code,
    stdout,
    outputs: parseOutputs(readFileSync(outputFile, "utf8")),
    summary: readFileSync(summaryFile, "utf8"),
  };
}
