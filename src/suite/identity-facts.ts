import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Config } from "../config/schema.js";
import type { AgentConfig } from "../config/parts.js";
import { identityFactsOf } from "../execute/backends.js";
import { readManifest } from "../prepare/manifest.js";
import { GRADER_VERSION } from "../grade/version.js";
import type { Competition } from "../registry/schema.js";
import { hashAgentFiles } from "./agent-files.js";
import { agentCwd, realOrSpelled } from "../util/contained.js";
import { dataFingerprint, runIdentity, type IdentityFacts, type RunIdentity } from "./identity.js";

/** The facts shared by every run of one suite invocation: agent, command, env, limits. */
export type AgentFacts = Pick<IdentityFacts, "agent" | "command" | "env" | "secrets" | "limits">;

export interface AgentFactsInput {
  agent: AgentConfig;
  config: Config;
  /** Folder of the config file (the agent's cwd is relative to it). */
  baseDir: string;
  executor: string;
  /** The image the runs use (Docker): its content-addressed id. */
  imageId: string | null;
  /** Folders inside the agent's tree that are not its code (results, data). */
  exclude: string[];
  /** The private copy of agent.build.context the image is built from (its Dockerfile is read there). */
  stagedContext?: string | null;
}

export function agentFacts(i: AgentFactsInput): AgentFacts {
  const { agent, config } = i;
  let code: string;
  if (i.imageId) code = `image ${i.imageId}`;
  else if (agent.command !== undefined && !agent.image && !agent.build) {
    // The real folder (no link on the way inside the repository), compared with real excludes.
    const cwd = agentCwd(agent.cwd, i.baseDir);
    const exclude = i.exclude.map(realOrSpelled);
    code = `files ${hashAgentFiles(cwd, { ...agent.files, exclude }).hash}`;
  } else if (agent.build) {
    // No image (its build failed): the Dockerfile's text stands for the code, so a new attempt runs.
    const file = resolve(i.stagedContext ?? resolve(i.baseDir, agent.build.context), agent.build.dockerfile);
    const text = existsSync(file) ? readFileSync(file, "utf8") : "(missing)";
    code = `unbuilt ${JSON.stringify(agent.build)} ${createHash("sha256").update(text).digest("hex")}`;
  } else code = `image ref ${agent.image}`;
  return {
    agent: code,
    command: agent.command ?? null,
    env: agent.env,
    secrets: agent.secrets,
    limits: {
      executor: i.executor,
      ...config.limits,
      // The executor's own settings that change a result (docker: its network).
      ...identityFactsOf(i.executor, config),
      // Upstream's task text instead of Medalist's (absent by default, so older identities hold).
      ...(config.instructions !== "medalist" ? { instructions: config.instructions } : {}),
    },
  };
}

/** One run's identity: the suite's agent facts plus its competition's data and grading. */
export function competitionIdentity(
  facts: AgentFacts,
  competition: Competition,
  preparedDir: string,
  config: Config,
): RunIdentity {
  const manifest = readManifest(preparedDir);
  return runIdentity({
    ...facts,
    data: manifest ? dataFingerprint(manifest.files) : "no manifest",
    grader: {
      version: GRADER_VERSION,
      external: competition.grading === "external" ? (config.externalGrader ?? null) : null,
      metric: competition.metric,
      answers: competition.answers,
      thresholds: competition.thresholds ?? null,
      leaderboard: competition.leaderboard ?? null,
    },
  });
}
