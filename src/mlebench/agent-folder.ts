// The file-system side of `agent.mlebench`: finds the agent's entry under the agents folder and
// turns it into the agent Medalist builds and runs (an image built from its Dockerfile, its command).
import { lstatSync, readdirSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import type { AgentConfig } from "../config/parts.js";
import { UserError } from "../errors.js";
import { closest } from "../config/errors.js";
import { readInside } from "../util/runfiles.js";
import { repositoryTop, resolveContained } from "../util/contained.js";
import {
  hasEntry,
  MLEBENCH_BUILD_ARGS,
  mlebenchAgentFrom,
  parseAgentsYaml,
  type MlebenchAgent,
} from "./agent-config.js";

/** Most files looked at under the agents folder (an agents folder holds a few agents, not a disk). */
const MAX_ENTRIES = 20000;
/** Bounds on reading config.yaml files (upstream's are a few kilobytes each). */
export const SCAN_LIMITS = { fileBytes: 256 * 1024, totalBytes: 1024 ** 2, files: 100, millis: 10_000 };
const SKIP = new Set([".git", "node_modules", "__pycache__", ".venv", "venv"]);

/** Every config.yaml under `dir` (sorted, relative, "/" separators); no link followed. */
export function configFiles(dir: string): string[] {
  const out: string[] = [];
  let seen = 0;
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (++seen > MAX_ENTRIES)
        throw new UserError(
          `agent.mlebench.agentsDir: more than ${MAX_ENTRIES} files under ${dir}; point it at the agents folder`,
        );
      if (e.isDirectory() && !SKIP.has(e.name)) walk(join(d, e.name));
      else if (e.isFile() && e.name === "config.yaml")
        out.push(relative(dir, join(d, e.name)).split(sep).join("/"));
    }
  };
  walk(dir);
  return out;
}

/** The config.yaml upstream keeps an agent's entries in: `<id up to its first "/">/config.yaml`. */
export function ownConfigFile(id: string): string | null {
  const folder = id.split("/")[0];
  return /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(folder) ? `${folder}/config.yaml` : null;
}

/** One config.yaml, read without following links and at most `maxBytes`; a UserError naming it. */
function readConfig(agentsDir: string, file: string, maxBytes: number): unknown | null {
  const r = readInside(agentsDir, file, maxBytes);
  if (!r.ok && r.missing) return null;
  if (!r.ok) throw new UserError(`agent.mlebench: ${r.problem}`);
  return parseAgentsYaml(r.data.toString("utf8"), file);
}

/** The entry ids of one config.yaml (its top-level keys; YAML anchors' helper keys included). */
function entryIds(doc: unknown): string[] {
  return doc !== null && typeof doc === "object" && !Array.isArray(doc) ? Object.keys(doc) : [];
}

/**
 * Which config.yaml holds `id`: the agent's own (see ownConfigFile) when it has the entry, read
 * alone; else every config.yaml under the folder, as upstream's registry looks, within SCAN_LIMITS
 * (files, bytes, time), one sentence when a bound is reached.
 */
function findEntry(agentsDir: string, id: string): { file: string; doc: unknown } {
  const own = ownConfigFile(id);
  const ownDoc = own ? readConfig(agentsDir, own, SCAN_LIMITS.fileBytes) : null;
  if (own && hasEntry(ownDoc, id)) return { file: own, doc: ownDoc };
  // Every entry seen, for a did-you-mean when none is `id`.
  const seen = new Set<string>(entryIds(ownDoc));
  const holders: { file: string; doc: unknown }[] = [];
  const unreadable: string[] = [];
  const started = Date.now();
  let bytes = 0;
  let read = 0;
  const stop = (bound: string): never => {
    throw new UserError(
      `agent.mlebench.id: ${id} is not in ${own ?? "its own config.yaml"}, and the search of the other config.yaml files under ${agentsDir} stopped at ${bound}; ` +
        `keep the entry in ${own ?? "<agent>/config.yaml"} (as upstream's agents do)`,
    );
  };
  for (const file of configFiles(agentsDir)) {
    if (file === own) continue;
    if (++read > SCAN_LIMITS.files) stop(`${SCAN_LIMITS.files} files`);
    if (Date.now() - started > SCAN_LIMITS.millis) stop(`${SCAN_LIMITS.millis / 1000} seconds`);
    const size = lstatSync(join(agentsDir, file), { throwIfNoEntry: false })?.size ?? 0;
    if (bytes + Math.min(size, SCAN_LIMITS.fileBytes + 1) > SCAN_LIMITS.totalBytes)
      stop(`${SCAN_LIMITS.totalBytes} bytes`);
    bytes += Math.min(size, SCAN_LIMITS.fileBytes + 1);
    try {
      const doc = readConfig(agentsDir, file, SCAN_LIMITS.fileBytes);
      if (hasEntry(doc, id)) holders.push({ file, doc });
      for (const k of entryIds(doc)) seen.add(k);
    } catch (e) {
      unreadable.push((e as Error).message);
    }
  }
  if (holders.length > 1)
    throw new UserError(
      `agent.mlebench.id: ${id} is defined in ${holders.map((h) => h.file).join(" and ")} under ${agentsDir}; keep one`,
    );
  const near = closest(id, [...seen]);
  if (holders.length === 0)
    throw new UserError(
      `agent.mlebench.id: no config.yaml under ${agentsDir} has an entry ${id}` +
        (near ? ` (did you mean "${near}"?)` : "") +
        (unreadable.length > 0 ? ` (unreadable: ${unreadable.join("; ")})` : ""),
    );
  return holders[0];
}

/**
 * The agent `id` under `agentsDir` (a real folder), checked: its start script and Dockerfile are
 * regular files reached without any symbolic link (see src/util/contained.ts).
 */
export function loadMlebenchAgent(agentsDir: string, id: string): MlebenchAgent {
  if (!lstatSync(agentsDir, { throwIfNoEntry: false })?.isDirectory())
    throw new UserError(`agent.mlebench.agentsDir: ${agentsDir} is not a folder`);
  const holder = findEntry(agentsDir, id);
  const agent = mlebenchAgentFrom(holder.doc, id, holder.file);
  for (const [field, rel] of [
    ["start", agent.start],
    ["dockerfile", `${agent.context}/${agent.dockerfile}`],
  ])
    resolveContained(join(agentsDir, rel), {
      field: `${agent.configFile}: ${id}.${field}`,
      top: agentsDir,
      outside: "refuse",
      kind: "file",
    });
  return agent;
}

/** Variables the run contract sets itself: an agent's value for one of them is replaced. */
const CONTRACT_VARS = [
  "COMPETITION_ID",
  "SEED",
  "TIME_LIMIT_SECS",
  "DATA_DIR",
  "SUBMISSION_DIR",
  "LOGS_DIR",
  "CODE_DIR",
  "INSTRUCTIONS_FILE",
];

export interface ExpandedAgent {
  /** The agent as every executor reads it: build, command and env filled in from the agent's folder. */
  agent: AgentConfig;
  /** Lines for the suite's log (values of the entry Medalist replaces). */
  notes: string[];
}

/**
 * `agent.mlebench` turned into the agent Medalist runs: the image built from the entry's Dockerfile
 * (context: its folder, upstream's four build arguments), the command `bash /home/agent/start.sh`
 * with the kwargs, the entry's env_vars under the config's agent.env. A `${{ secrets.NAME }}` must
 * be listed in agent.secrets: the config, not the agent's folder, decides which runner secrets
 * the agent gets. Any other agent is returned as it is.
 */
export function expandMlebenchAgent(agent: AgentConfig, baseDir: string): ExpandedAgent {
  if (!agent.mlebench) return { agent, notes: [] };
  // The real folder, no link on the way inside the repository (src/util/contained.ts).
  const agentsDir = resolveContained(resolve(baseDir, agent.mlebench.agentsDir), {
    field: "agent.mlebench.agentsDir",
    top: repositoryTop(baseDir),
    outside: "accept",
    kind: "folder",
  });
  const m = loadMlebenchAgent(agentsDir, agent.mlebench.id);
  const where = `${m.configFile}: ${m.id}.env_vars`;
  for (const name of m.secrets)
    if (!agent.secrets.includes(name))
      throw new UserError(
        `${where}.${name} is \${{ secrets.${name} }}: list ${name} under agent.secrets in the Medalist config ` +
          "(the config, not the agent's folder, decides which runner secrets the agent gets)",
      );
  const notes: string[] = [];
  for (const k of Object.keys(m.env)) {
    if (CONTRACT_VARS.includes(k))
      notes.push(
        `${where}.${k} (${m.env[k]}) is replaced by the run's own value (limits.time for TIME_LIMIT_SECS)`,
      );
    else if (agent.env[k] !== undefined && agent.env[k] !== m.env[k])
      notes.push(`${where}.${k} (${m.env[k]}) is replaced by agent.env.${k}`);
  }
  return {
    agent: {
      ...agent,
      build: {
        context: join(agentsDir, m.context),
        dockerfile: m.dockerfile,
        args: { ...MLEBENCH_BUILD_ARGS },
      },
      command: m.command,
      env: { ...m.env, ...agent.env },
    },
    notes,
  };
}
