// The trust split of a pull request's config: the PR may change the agent under test, never its judge.
import { isAbsolute, relative, resolve } from "node:path";
import { existsSync } from "node:fs";
import { UserError } from "../errors.js";
import { resolveContained } from "../util/contained.js";
import { validateConfig } from "./load.js";
import type { Config } from "./schema.js";
import type { AgentConfig } from "./parts.js";

/**
 * The agent fields a pull request decides: what the agent is and how it is built. Everything else
 * (competitions, seeds, limits, gate, baseline, executor and its blocks, folders, graders, which
 * runner secrets the agent gets, the suite's name) comes from the base commit.
 */
export const PR_AGENT_FIELDS = ["command", "image", "build", "cwd", "env", "files", "mlebench"] as const;

export interface TrustSplit {
  /** The config that judges the PR: the base's, with the head's agent fields. */
  config: Config;
  /** Dotted paths of the head's changes that were ignored (the base's values apply). */
  ignored: string[];
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === "object" && !Array.isArray(v);

/** Dotted paths where `a` and `b` differ (objects compared key by key, anything else as a whole). */
export function differences(a: unknown, b: unknown, prefix = ""): string[] {
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => differences(a[k], b[k], prefix ? `${prefix}.${k}` : k));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [prefix || "(the whole config)"];
}

/** The parsed config as the user wrote it: `seeds` with its `adaptive` flag, no schema pointer. */
function asWritten(c: Config): Json {
  const { adaptiveSeeds, historyPlan, stopInFlight, seeds, $schema: _schema, ...rest } = c;
  if (!adaptiveSeeds) return { ...rest, seeds };
  const history = historyPlan
    ? { history: true, historyRuns: historyPlan.minRuns, ...(historyPlan.cover ? { cover: true } : {}) }
    : { history: false };
  const inFlight = stopInFlight ? {} : { inFlight: "finish" };
  return { ...rest, seeds: { max: seeds, adaptive: true, ...history, ...inFlight } };
}

/**
 * The judged config of a pull request: every setting from `base`, the agent fields listed in
 * PR_AGENT_FIELDS from `head`. The result is validated again (the base's executor must still
 * find what it needs in the head's agent).
 */
export function splitTrust(base: Config, head: Config, where = "the judged config"): TrustSplit {
  const agent: Json = { ...base.agent };
  for (const k of PR_AGENT_FIELDS) {
    if (head.agent[k] === undefined) delete agent[k];
    else agent[k] = head.agent[k];
  }
  const judged = { ...asWritten(base), agent };
  const ignored = differences(asWritten(base), { ...asWritten(head), agent: head.agent }).filter(
    (p) => !PR_AGENT_FIELDS.some((k) => p === `agent.${k}` || p.startsWith(`agent.${k}.`)),
  );
  return { config: validateConfig(judged, where), ignored };
}

/** Whether `path` is `root` or inside it. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * The PR's agent paths (build context, Dockerfile, working folder) must stay inside the
 * repository: a PR cannot point the build at the runner's other folders, neither as spelled nor
 * through a symbolic link it commits (src/util/contained.ts: a link at any level is refused).
 */
export function checkAgentPaths(agent: AgentConfig, baseDir: string, repoRoot: string): void {
  const paths: [string, string | undefined][] = [
    ["agent.build.context", agent.build && resolve(baseDir, agent.build.context)],
    ["agent.build.dockerfile", agent.build && resolve(baseDir, agent.build.context, agent.build.dockerfile)],
    ["agent.cwd", agent.cwd === undefined ? undefined : resolve(baseDir, agent.cwd)],
    ["agent.mlebench.agentsDir", agent.mlebench && resolve(baseDir, agent.mlebench.agentsDir)],
  ];
  for (const [name, path] of paths) {
    if (path === undefined) continue;
    if (!isInside(repoRoot, path))
      throw new UserError(
        `${name}: ${path} is outside the repository (${repoRoot}); on a pull request the agent is built and run from the repository only`,
      );
    if (existsSync(repoRoot))
      resolveContained(path, { field: name, top: repoRoot, outside: "refuse", mayBeMissing: true });
  }
}
