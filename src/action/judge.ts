// Which config judges this job. On a pull request the base commit's config decides everything but
// the agent under test (src/config/trust.ts); the report's first lines say which settings applied.
import { lstatSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, posix, relative, resolve } from "node:path";
import { loadConfig, parseConfigText, validateConfig, type LoadedConfig } from "../config/load.js";
import type { Config } from "../config/schema.js";
import type { AgentConfig } from "../config/parts.js";
import { checkAgentPaths, isInside, splitTrust } from "../config/trust.js";
import { UserError } from "../errors.js";
import {
  baseKind,
  changedSince,
  checkNoLinks,
  differsFromBase,
  extractFolder,
  extractPaths,
  fetchFile,
  gitPath,
  haveCommit,
  isTracked,
  repoRelative,
  repoTop,
  showFile,
  treeBytes,
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
  /** Where the external grader runs: a private copy of the base commit's files (pull requests). */
  graderDir?: string;
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
  // The path as spelled, relative to the checkout's top: a link in the PR's checkout resolves nothing.
  const from = [process.cwd(), ...(env.GITHUB_WORKSPACE ? [resolve(env.GITHUB_WORKSPACE)] : [])];
  const found = from
    .map(repoTop)
    .map((t) => (t === null ? null : { top: t, rel: repoRelative(t, head.path, from) }))
    .find((t) => t !== null && t.rel !== null);
  const top = found?.top ?? null;
  const withGit = top !== null && haveCommit(top, sha, log);
  const workspace = resolve(env.GITHUB_WORKSPACE || ".");
  const rel = found ? found.rel : top === null ? repoRelative(workspace, head.path, []) : null;
  if (rel === null)
    throw new UserError(
      `${shown} is outside the repository checkout ${top ?? workspace}; cannot read it at the base commit`,
    );
  // The checkout's top as the config's path spells it (lexical paths below resolve against it).
  const root = resolve(head.path, ...rel.split("/").map(() => ".."));
  const what = `config ${shown}`;
  checkNoLinks(top ?? workspace, rel, what);
  let text: string | null;
  if (withGit && top) {
    const kind = baseKind(top, sha, rel, what);
    if (kind === "folder")
      throw new UserError(`${what}: ${rel} is a folder in the base commit ${short(sha)}, not a file`);
    text = kind === "file" ? showFile(top, sha, rel) : null;
  } else if (settings.token)
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
  const baseDir = dirname(head.path);

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
  if (git) checkDataDir(resolve(settings.dataDir ?? resolve(baseDir, config.dataDir)), root, git);
  const grader = config.externalGrader ? baseGraderDir(config.externalGrader, root, git, env) : undefined;
  const notices = split.ignored.length
    ? [
        `> ⚠️ **This pull request changes the evaluation settings**: ${split.ignored.join(", ")}; the base branch's settings apply (${shown} at ${short(sha)}). A pull request changes only the agent under test.`,
      ]
    : [];
  if (grader?.changed.length)
    notices.push(
      `> ⚠️ **This pull request changes ${grader.changed.join(", ")}**, which the base's externalGrader runs: the base commit's copy is run, from a private copy of its files.`,
    );
  return { ...head, config, notices, baseAgent: base.agent, graderDir: grader?.dir };
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

/** `abs` (lexical) inside the checkout as git names it, or null outside; `root` is the top as spelled. */
function inCheckout(abs: string, root: string, git: BaseGit): string | null {
  if (git) return repoRelative(git.top, abs, [root]);
  return isInside(root, abs) ? gitPath(root, abs) : null;
}

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
  const rel = inCheckout(abs, root, git);
  if (rel === null) return abs;
  if (!git)
    throw new UserError(
      `registryDir ${registryDir}: on a pull request the registry is read from the base commit, which needs the repository checked out with git (actions/checkout)`,
    );
  const dir = extractFolder(git.top, git.sha, rel, env.RUNNER_TEMP, `registryDir ${registryDir}`);
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
  const rel = inCheckout(abs, root, git);
  if (rel === null) return baseline;
  if (!git) {
    throw new UserError(
      `baseline.path ${baseline.path}: on a pull request a baseline file in the repository is read from the base commit, which needs the repository checked out with git (actions/checkout)`,
    );
  }
  const what = `baseline.path ${baseline.path}`;
  checkNoLinks(git.top, rel, what);
  const kind = baseKind(git.top, git.sha, rel, what);
  if (kind === "folder")
    throw new UserError(`${what}: ${rel} is a folder in the base commit ${short(git.sha)}, not a file`);
  if (kind === "missing") {
    // A file the workflow produced (not committed) is the workflow's, not the pull request's.
    if (!isTracked(git.top, rel)) return baseline;
    throw new UserError(`baseline.path ${baseline.path} does not exist in the base commit ${short(git.sha)}`);
  }
  const text = showFile(git.top, git.sha, rel, MAX_RESULTS_BYTES)!;
  const file = join(mkdtempSync(join(env.RUNNER_TEMP || tmpdir(), "medalist-base-")), "baseline.json");
  writeFileSync(file, text);
  return { source: "file", path: file };
}

/**
 * The private answers never come from the pull request: when the data folder is in the checkout,
 * no file in it may differ from the base commit's, and no link the pull request commits may lead to it.
 */
function checkDataDir(dataDir: string, root: string, git: { top: string; sha: string }): void {
  const rel = repoRelative(git.top, dataDir, [root]);
  if (rel === null) return;
  const what = `the data folder ${rel || "."} (dataDir, with the private answers)`;
  const parts = rel ? rel.split("/") : [];
  for (let i = 1; i <= parts.length; i++) {
    const level = parts.slice(0, i).join("/");
    const st = lstatSync(join(git.top, ...level.split("/")), { throwIfNoEntry: false });
    if (!st) break;
    if (st.isSymbolicLink() && isTracked(git.top, level))
      throw new UserError(
        `${what}: ${level} is a symbolic link this pull request commits; the judge's data is never read through the pull request's links`,
      );
  }
  const changed = changedSince(git.top, git.sha, rel);
  if (changed.length)
    throw new UserError(
      `${what}: this pull request changes ${changed.length} file(s) in it (${changed[0]}); the private answers never come from the pull request: keep the data folder out of commits, or point data-dir outside the checkout`,
    );
}

/** The base commit's files copied for the grader when they fit; larger, the folders its arguments name. */
export const MAX_GRADER_TREE_BYTES = 256 * 1024 ** 2;

/**
 * The external grader's working folder on a pull request: a private copy of the base commit's
 * files outside the checkout, at the place of the action's working folder (the command is the
 * base's; so are the scripts it runs). The whole tree when it fits MAX_GRADER_TREE_BYTES, else
 * the folders holding the files its arguments name.
 */
export function baseGraderDir(
  command: string[],
  root: string,
  git: BaseGit,
  env: NodeJS.ProcessEnv,
  maxBytes = MAX_GRADER_TREE_BYTES,
): { dir: string; changed: string[] } {
  if (!git)
    throw new UserError(
      "externalGrader: on a pull request the grader runs in a copy of the base commit's files, which needs the repository checked out with git (actions/checkout)",
    );
  const cwd = process.cwd();
  for (const arg of command)
    if (isAbsolute(arg) && repoRelative(git.top, resolve(arg), [root]) !== null)
      throw new UserError(
        `externalGrader: ${arg} is in the pull request's checkout; on a pull request the grader runs in a copy of the base commit's files, so name it relative to the working folder`,
      );
  const dir = mkdtempSync(join(env.RUNNER_TEMP || tmpdir(), "medalist-grader-files-"));
  const cwdRel = repoRelative(git.top, cwd, []);
  const below = isInside(cwd, git.top) ? relative(cwd, git.top) : null;
  const tree = cwdRel === null && below !== null ? join(dir, below) : dir;
  const runIn = cwdRel !== null ? join(dir, ...cwdRel.split("/").filter(Boolean)) : dir;
  // The files and folders its arguments name, as the base commit has them.
  const named: { arg: string; rel: string; kind: "file" | "folder" }[] = [];
  for (const arg of command) {
    if (arg.includes("{") || arg.startsWith("-")) continue;
    const rel = repoRelative(git.top, resolve(cwd, arg), []);
    if (rel === null || rel === "") continue;
    const kind = baseKind(git.top, git.sha, rel, `externalGrader ${arg}`);
    if (kind !== "missing") named.push({ arg, rel, kind });
  }
  // A file at the top: the file alone; else its folder.
  const folderOf = (rel: string) => (posix.dirname(rel) === "." ? rel : posix.dirname(rel));
  const paths =
    treeBytes(git.top, git.sha, [""]) <= maxBytes
      ? [""]
      : named.map((n) => (n.kind === "file" ? folderOf(n.rel) : n.rel));
  if (paths.length) extractPaths(git.top, git.sha, paths, tree, "externalGrader", { maxBytes });
  const changed = named.filter((n) => n.kind === "file" && differsFromBase(git.top, git.sha, n.rel));
  mkdirSync(runIn, { recursive: true });
  return { dir: runIn, changed: changed.map((n) => n.rel) };
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
