// The agent's Docker build context must not hold what the agent may not see: a `COPY . /app`
// would put the private answers, earlier runs, or the checkout's git credentials into its image.
import { existsSync } from "node:fs";
import { basename, dirname, isAbsolute, relative, resolve } from "node:path";
import type { AgentConfig } from "../config/parts.js";
import { UserError } from "../errors.js";

export interface BuildContextInput {
  agent: AgentConfig;
  /** The config file's folder: agent.build.context resolves against it. */
  baseDir: string;
  dataDir: string;
  /** This side's results folder (…/head or …/base). */
  outDir: string;
  storeDir?: string | null;
}

const inside = (root: string, path: string) => {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
};

/** Git folders at or above `from`: the repository the config lives in. */
function gitDirs(from: string): string[] {
  const out: string[] = [];
  for (let d = resolve(from); ; d = dirname(d)) {
    if (existsSync(resolve(d, ".git"))) out.push(resolve(d, ".git"));
    if (dirname(d) === d) return out;
  }
}

/**
 * Refuses a build context that contains (or lies inside) the data folder, the results or run-store
 * folders, or a `.git` folder. No-op without agent.build.
 */
export function checkBuildContext(input: BuildContextInput): void {
  const build = input.agent.build;
  if (!build) return;
  const context = resolve(input.baseDir, build.context);
  const out = resolve(input.outDir);
  const results = ["head", "base"].includes(basename(out)) ? dirname(out) : out;
  const guarded: [string, string][] = [
    [resolve(input.dataDir), "the data folder (dataDir, with the private answers)"],
    [results, "the results folder"],
    ...(input.storeDir ? [[resolve(input.storeDir), "the run store (runs-dir)"] as [string, string]] : []),
    ...[resolve(context, ".git"), ...gitDirs(input.baseDir)].map(
      (g) => [g, "a .git folder (the checkout's credentials)"] as [string, string],
    ),
  ];
  for (const [path, what] of guarded) {
    if (!inside(context, path) && !inside(path, context)) continue;
    if (path.endsWith(".git") && !existsSync(path)) continue;
    throw new UserError(
      `agent.build.context ${context} contains ${what} ${path}: the agent's image could copy it; ` +
        "point agent.build.context at the folder with the agent's code (e.g. agent/, with its Dockerfile), " +
        "or move that folder outside the context",
    );
  }
}
