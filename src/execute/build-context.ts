// The agent's Docker build context must not hold what the agent may not see: a `COPY . /app`
// would put the private answers, earlier runs, or the checkout's git credentials into its image.
// It is judged on real paths (src/util/contained.ts: no link below the repository's top folder)
// and built from a private copy, so what was checked is what Docker gets.
import { existsSync, lstatSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { AgentConfig } from "../config/parts.js";
import { UserError } from "../errors.js";
import {
  realOrSpelled,
  repositoryTop,
  resolveContained,
  stageFolder,
  within,
  type Staged,
} from "../util/contained.js";

export interface BuildContextInput {
  agent: AgentConfig;
  /** The config file's folder: agent.build.context resolves against it. */
  baseDir: string;
  dataDir: string;
  /** This side's results folder (…/head or …/base). */
  outDir: string;
  storeDir?: string | null;
  /**
   * A context outside the repository: "accept" (the CLI: the user's own config may name any folder
   * of theirs, taken by its real path) or "refuse" (default on a pull request's paths).
   */
  outside?: "refuse" | "accept";
}

/** Git folders at or above `from`: the repository the config lives in. */
function gitDirs(from: string): string[] {
  const out: string[] = [];
  for (let d = resolve(from); ; d = dirname(d)) {
    if (existsSync(resolve(d, ".git"))) out.push(resolve(d, ".git"));
    if (dirname(d) === d) return out;
  }
}

/** The real folders a build context may neither be inside of nor contain. */
function guarded(input: BuildContextInput, context: string): [string, string][] {
  const out = resolve(input.outDir);
  const results = ["head", "base"].includes(basename(out)) ? dirname(out) : out;
  return [
    [realOrSpelled(input.dataDir), "the data folder (dataDir, with the private answers)"],
    [realOrSpelled(results), "the results folder"],
    ...(input.storeDir
      ? [[realOrSpelled(input.storeDir), "the run store (runs-dir)"] as [string, string]]
      : []),
    ...[join(context, ".git"), ...gitDirs(input.baseDir)].map(
      (g) => [realOrSpelled(g), "a .git folder (the checkout's credentials)"] as [string, string],
    ),
  ];
}

/**
 * The build context's real path, checked: no symbolic link on the way to it inside the repository,
 * the Dockerfile inside it, and neither containing nor inside the data folder, the results or
 * run-store folders, or a `.git` folder. Null without agent.build.
 */
export function checkBuildContext(input: BuildContextInput): string | null {
  const build = input.agent.build;
  if (!build) return null;
  const spelled = resolve(input.baseDir, build.context);
  const context = resolveContained(spelled, {
    field: "agent.build.context",
    top: repositoryTop(input.baseDir),
    outside: input.outside ?? "accept",
    kind: "folder",
    // A missing context is refused when it is copied, after the guards below have had their say.
    mayBeMissing: true,
  });
  if (!within(context, resolve(context, build.dockerfile)))
    throw new UserError(
      `agent.build.dockerfile: ${build.dockerfile} is outside the build context ${spelled}; name a file inside it`,
    );
  for (const [path, what] of guarded(input, context)) {
    if (!within(context, path) && !within(path, context)) continue;
    if (path.endsWith(".git") && !existsSync(path)) continue;
    throw new UserError(
      `agent.build.context ${spelled} contains ${what} ${path}: the agent's image could copy it; ` +
        "point agent.build.context at the folder with the agent's code (e.g. agent/, with its Dockerfile), " +
        "or move that folder outside the context",
    );
  }
  // No link on the way to the Dockerfile either (a missing one is the build's to report).
  if (existsSync(context))
    resolveContained(resolve(spelled, build.dockerfile), {
      field: "agent.build.dockerfile",
      top: spelled,
      outside: "refuse",
      mayBeMissing: true,
    });
  return context;
}

export interface StagedBuild {
  /** The agent with build.context pointing at the private copy. */
  agent: AgentConfig;
  staged: Staged | null;
  /** A line for the suite's log. */
  note: string | null;
}

/**
 * Checks the build context (see checkBuildContext) and copies it (no link followed, `.git` and the
 * guarded folders left out) into a private folder the image is built from. No-op without agent.build.
 */
export function stageBuildContext(input: BuildContextInput): StagedBuild {
  const context = checkBuildContext(input);
  if (context === null || !input.agent.build) return { agent: input.agent, staged: null, note: null };
  if (!lstatSync(context, { throwIfNoEntry: false })?.isDirectory())
    throw new UserError(
      `agent.build.context: ${resolve(input.baseDir, input.agent.build.context)} is not a folder`,
    );
  const staged = stageFolder(context, {
    field: "agent.build.context",
    exclude: guarded(input, context).map(([p]) => p),
  });
  return {
    agent: { ...input.agent, build: { ...input.agent.build, context: staged.dir } },
    staged,
    note: `agent.build.context ${resolve(input.baseDir, input.agent.build.context)}: the image is built from a private copy (${staged.entries} entries, ${staged.bytes} bytes, no link followed)`,
  };
}
