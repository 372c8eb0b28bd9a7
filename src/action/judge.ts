// Which config judges this job. On a pull request the base commit's config decides everything but
// the agent under test (src/config/trust.ts); the report's first lines say which settings applied.
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { loadConfig, parseConfigText, validateConfig, type LoadedConfig } from "../config/load.js";
import type { AgentConfig, Config } from "../config/schema.js";
import { checkAgentPaths, isInside, splitTrust } from "../config/trust.js";
import { UserError } from "../errors.js";
import {
  extractFolder,
  fetchFile,
  gitPath,
  haveCommit,
  isTracked,
  repoTop,
  showFile,
} from "./base-config.js";
import { Inputs } from "./constants.js";
import type { EventInfo } from "./event.js";
import type { Settings } from "./inputs.js";
import { noSandboxBy, unsandboxedBy } from "../execute/backends.js";

export interface JudgedConfig extends LoadedConfig {
  /** Lines shown first in the report (which settings judged the pull request). */
  notices: string[];
  /** The base commit's agent, for the base side of `baseline: run`; null: the config's own. */
  baseAgent: AgentConfig | null;
}

/** Largest baseline results file read from the base commit. */
const MAX_RESULTS_BYTES = 256 * 1024 ** 2;

const short = (sha: string) => sha.slice(0, 7);

/** Reads the config this job is judged by, and refuses what a pull request may not run. */
export async function judgeConfig(
  settings: Settings,
  event: EventInfo,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<JudgedConfig> {
  const head = loadConfig(settings.configPath);
  let judged: JudgedConfig = { ...head, notices: [], baseAgent: null };
  if (event.pr && settings.trustPrConfig) {
    judged.notices = [
      `> ⚠️ **\`${Inputs.TrustPrConfig}: true\`**: this pull request was judged by its own evaluation settings (${settings.configPath} of its head commit), not the base branch's.`,
    ];
  } else if (event.pr) {
    judged = await fromBase(head, settings, event, env, log);
  }
  const refusal = unsandboxedRefusal(judged.config, event, settings);
  if (refusal) throw new UserError(refusal);
  checkActionSecrets(judged.config, settings, env);
  return judged;
}

/** A pull request's judged config: the base commit's settings with the head's agent. */
async function fromBase(
  head: LoadedConfig,
  settings: Settings,
  event: EventInfo,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<JudgedConfig> {
  const sha = event.pr!.baseSha;
  if (!sha) throw new UserError("the pull request event names no base commit; cannot read its config");
  const shown = settings.configPath;
  // Real paths: git names the checkout's top folder with its links resolved.
  const baseDir = realpathSync(head.baseDir);
  const path = join(baseDir, basename(head.path));
  const top = repoTop(baseDir);
  const withGit = top !== null && haveCommit(top, sha, log);
  const root = top ?? realpathSync(resolve(env.GITHUB_WORKSPACE || "."));
  const rel = gitPath(root, path);
  if (!isInside(root, path))
    throw new UserError(
      `${shown} is outside the repository checkout ${root}; cannot read it at the base commit`,
    );
  let text: string | null;
  if (withGit && top) text = showFile(top, sha, rel);
  else if (settings.token)
    text = await fetchFile({
      token: settings.token,
      apiUrl: event.apiUrl,
      owner: event.owner,
      repo: event.repo,
      sha,
      path: rel,
    });
  else
    throw new UserError(
      `cannot read ${shown} at the base commit ${short(sha)}: the checkout lacks that commit and there is no github-token; check out with git (actions/checkout)`,
    );
  if (text === null) return noBaseConfig(head, shown, sha);

  const base = validateConfig(parseConfigText(text, head.path), `${shown} at the base commit ${short(sha)}`);
  const split = splitTrust(
    base,
    head.config,
    `${shown} (the base commit's settings with this pull request's agent)`,
  );
  checkAgentPaths(split.config.agent, baseDir, root);
  const git = withGit && top ? { top, sha } : null;
  const config: Config = {
    ...split.config,
    registryDir: baseRegistry(split.config.registryDir, baseDir, root, git, env),
    baseline: baseBaselineFile(split.config.baseline, baseDir, root, git, env),
  };
  const notices = split.ignored.length
    ? [
        `> ⚠️ **This pull request changes the evaluation settings**: ${split.ignored.join(", ")}; the base branch's settings apply (${shown} at ${short(sha)}). A pull request changes only the agent under test.`,
      ]
    : [];
  return { ...head, config, notices, baseAgent: base.agent };
}

/** The pull request that adds Medalist: its own settings, except those that run code on the runner. */
function noBaseConfig(head: LoadedConfig, shown: string, sha: string): JudgedConfig {
  const dropped = (["registryDir", "externalGrader"] as const).filter((k) => head.config[k] !== undefined);
  const config: Config = { ...head.config, registryDir: undefined, externalGrader: undefined };
  const except = dropped.length
    ? ` (except ${dropped.join(" and ")}, which a pull request cannot set: the bundled registry applies${dropped.includes("externalGrader") ? " and no external grader runs" : ""})`
    : "";
  return {
    ...head,
    config,
    notices: [
      `> ℹ️ The base commit ${short(sha)} has no ${shown}: this pull request is judged by its own settings${except}.`,
    ],
    baseAgent: null,
  };
}

type BaseGit = { top: string; sha: string } | null;

/** The base config's registry as the base commit has it (the checkout's copy is the PR's). */
function baseRegistry(
  registryDir: string | undefined,
  baseDir: string,
  root: string,
  git: BaseGit,
  env: NodeJS.ProcessEnv,
): string | undefined {
  if (registryDir === undefined) return undefined;
  const abs = resolve(baseDir, registryDir);
  if (!isInside(root, abs)) return abs;
  if (!git)
    throw new UserError(
      `registryDir ${registryDir}: on a pull request the registry is read from the base commit, which needs the repository checked out with git (actions/checkout)`,
    );
  const dir = extractFolder(git.top, git.sha, gitPath(git.top, abs), env.RUNNER_TEMP);
  if (!dir)
    throw new UserError(`registryDir ${registryDir} does not exist in the base commit ${short(git.sha)}`);
  return dir;
}

/** A baseline file committed in the repository is read as the base commit has it. */
function baseBaselineFile(
  baseline: Config["baseline"],
  baseDir: string,
  root: string,
  git: BaseGit,
  env: NodeJS.ProcessEnv,
): Config["baseline"] {
  if (baseline?.source !== "file") return baseline;
  const abs = resolve(baseDir, baseline.path);
  if (!isInside(root, abs)) return baseline;
  const rel = gitPath(root, abs);
  if (!git) {
    throw new UserError(
      `baseline.path ${baseline.path}: on a pull request a baseline file in the repository is read from the base commit, which needs the repository checked out with git (actions/checkout)`,
    );
  }
  // A file the workflow produced (not committed) is the workflow's, not the pull request's.
  if (!isTracked(git.top, rel)) return baseline;
  const text = showFile(git.top, git.sha, rel, MAX_RESULTS_BYTES);
  if (text === null)
    throw new UserError(`baseline.path ${baseline.path} does not exist in the base commit ${short(git.sha)}`);
  const file = join(mkdtempSync(join(env.RUNNER_TEMP || tmpdir(), "medalist-base-")), "baseline.json");
  writeFileSync(file, text);
  return { source: "file", path: file };
}

/** Why a pull request's agent may not run with this executor, or null. */
export function unsandboxedRefusal(
  config: Pick<Config, "executor" | "agent">,
  event: Pick<EventInfo, "pr">,
  settings: Pick<Settings, "allowUnsandboxedAgent">,
): string | null {
  if (!event.pr) return null;
  // No quiet fallback: a sandbox that cannot start here is refused, whatever the workflow allows.
  const none = noSandboxBy(config.executor, config);
  if (none)
    return (
      `refusing to run pull request #${event.pr.number}'s agent with no sandbox (${none}): install bubblewrap and allow user namespaces on the runner, ` +
      "or set local.sandbox: none in the base branch's config to accept an unsandboxed agent"
    );
  if (settings.allowUnsandboxedAgent) return null;
  const what = unsandboxedBy(config.executor, config);
  if (!what) return null;
  return (
    `refusing to run ${what} on pull request #${event.pr.number}: its agent would run unsandboxed, next to this runner's tokens and the private answers; ` +
    `use executor: docker, or set \`${Inputs.AllowUnsandboxedAgent}: true\` to accept it`
  );
}

/** The action's own token is never an agent secret, whatever variable holds it. */
export function checkActionSecrets(
  config: Config,
  settings: Pick<Settings, "token">,
  env: NodeJS.ProcessEnv,
): void {
  if (!settings.token) return;
  const agents = [config.agent, config.baseline?.source === "run" ? config.baseline.agent : undefined];
  for (const agent of agents) {
    const name = agent?.secrets.find((n) => env[n] === settings.token);
    if (name)
      throw new UserError(
        `agent.secrets: ${name} holds this action's ${Inputs.GitHubToken}, one of the runner's own credentials; it is never passed to the agent`,
      );
  }
}
