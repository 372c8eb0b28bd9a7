// The file-system side of `agent.mlebench`: finds the agent's entry under the agents folder and
// turns it into the agent Medalist builds and runs (an image built from its Dockerfile, its command).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import type { AgentConfig } from "../config/parts.js";
import { UserError } from "../errors.js";
import {
  hasEntry,
  MLEBENCH_BUILD_ARGS,
  mlebenchAgentFrom,
  parseAgentsYaml,
  type MlebenchAgent,
} from "./agent-config.js";

/** Most files looked at under the agents folder (an agents folder holds a few agents, not a disk). */
const MAX_ENTRIES = 20000;
const MAX_YAML_BYTES = 1024 ** 2;
const SKIP = new Set([".git", "node_modules", "__pycache__", ".venv", "venv"]);

/** Every config.yaml under `dir` (sorted, relative, "/" separators). */
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

/** The agent `id` from the config.yaml under `agentsDir` that defines it, checked (start and Dockerfile exist). */
export function loadMlebenchAgent(agentsDir: string, id: string): MlebenchAgent {
  if (!statSync(agentsDir, { throwIfNoEntry: false })?.isDirectory())
    throw new UserError(`agent.mlebench.agentsDir: ${agentsDir} is not a folder`);
  const holders: { file: string; doc: unknown }[] = [];
  const unreadable: string[] = [];
  for (const file of configFiles(agentsDir)) {
    const abs = join(agentsDir, file);
    try {
      if (statSync(abs).size > MAX_YAML_BYTES)
        throw new UserError(`${file} is larger than ${MAX_YAML_BYTES} bytes`);
      const doc = parseAgentsYaml(readFileSync(abs, "utf8"), file);
      if (hasEntry(doc, id)) holders.push({ file, doc });
    } catch (e) {
      unreadable.push((e as Error).message);
    }
  }
  if (holders.length > 1)
    throw new UserError(
      `agent.mlebench.id: ${id} is defined in ${holders.map((h) => h.file).join(" and ")} under ${agentsDir}; keep one`,
    );
  if (holders.length === 0)
    throw new UserError(
      `agent.mlebench.id: no config.yaml under ${agentsDir} has an entry ${id}` +
        (unreadable.length > 0 ? ` (unreadable: ${unreadable.join("; ")})` : ""),
    );
  const agent = mlebenchAgentFrom(holders[0].doc, id, holders[0].file);
  for (const [field, rel] of [
    ["start", agent.start],
    ["dockerfile", `${agent.context}/${agent.dockerfile}`],
  ])
    if (!existsSync(join(agentsDir, rel)))
      throw new UserError(`${agent.configFile}: ${id}.${field}: ${join(agentsDir, rel)} does not exist`);
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
  const agentsDir = resolve(baseDir, agent.mlebench.agentsDir);
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
