// What the judge tests share: a real git repository with a base commit and one pull-request commit
// per attack, driven through the action (in process or the bundle) against the loopback GitHub.
import { execFileSync } from "node:child_process";
import {
  cpSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { expect } from "vitest";
import type { FakeGitHub } from "../fixtures/github/server.js";
import { ROOT, runAction, runInProcess, type ActionRun } from "./harness.js";

/** A change of a commit: a file's text, a symbolic link, a move, or a deletion (null). */
export type Change = string | null | { link: string } | { moveTo: string };

/** git in `repo`, as a fixed author; returns its trimmed output. */
export const gitIn =
  (repo: string) =>
  (...args: string[]): string =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], {
      cwd: repo,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    }).trim();

/** A new repository in `repo`: 3 toy competitions, the weak agent and `files`, committed; returns its sha. */
export function seedRepo(repo: string, files: Record<string, string>): string {
  const git = gitIn(repo);
  git("init", "-q", "-b", "main");
  for (const id of ["toy-churn", "toy-house-prices", "toy-species"])
    cpSync(join(ROOT, "competitions", id), join(repo, "registry", id), { recursive: true });
  cpSync(join(ROOT, "examples/agents/weak"), join(repo, "agents/weak"), { recursive: true });
  cpSync(join(ROOT, "examples/agents/lib"), join(repo, "agents/lib"), { recursive: true });
  writeFileSync(join(repo, ".gitignore"), ".medalist/\n.runner-*/\n");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  git("add", "-A");
  git("commit", "-q", "-m", "agent");
  return git("rev-parse", "HEAD");
}

const isLink = (path: string) => {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
};

/** A commit on top of `parent` with these changes (files under ignored folders committed too); returns its sha. */
export function commitIn(repo: string, parent: string, files: Record<string, Change>): string {
  const git = gitIn(repo);
  git("checkout", "-q", "-f", "--detach", parent);
  for (const [path, change] of Object.entries(files)) {
    const abs = join(repo, path);
    if (change === null) rmSync(abs, { recursive: true, force: true });
    else if (typeof change === "string") {
      if (isLink(abs)) rmSync(abs);
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, change);
    } else if ("link" in change) {
      rmSync(abs, { recursive: true, force: true });
      mkdirSync(dirname(abs), { recursive: true });
      symlinkSync(change.link, abs);
    } else {
      mkdirSync(dirname(join(repo, change.moveTo)), { recursive: true });
      renameSync(abs, join(repo, change.moveTo));
    }
  }
  git("add", "-A");
  // Ignored files too: a pull request can commit them (git add -f).
  const written = Object.entries(files)
    .filter(([, c]) => typeof c === "string" || (c !== null && "link" in c))
    .map(([path]) => path);
  if (written.length) git("add", "-f", "--", ...written);
  git("commit", "-q", "--allow-empty", "-m", "change");
  return git("rev-parse", "HEAD");
}

/** A pull_request event (number 7) from `head` into `base`, written in `events`; returns its path. */
export function prEvent(events: string, base: string, head: string): string {
  const path = join(events, `${base.slice(0, 7)}-${head.slice(0, 7)}.json`);
  const repoInfo = { full_name: "acme/agent" };
  writeFileSync(
    path,
    JSON.stringify({
      action: "synchronize",
      number: 7,
      pull_request: {
        number: 7,
        base: { sha: base, ref: "main", repo: repoInfo },
        head: { sha: head, ref: "topic", repo: repoInfo },
      },
      repository: { full_name: "acme/agent", default_branch: "main" },
    }),
  );
  return path;
}

/** The sticky comment on pull request 7 without its (invisible) marker line; "" when there is none. */
export function commentOf(gh: FakeGitHub): string {
  const thread = gh.thread("acme", "agent", 7);
  return thread.length ? thread[0].body.split("\n").slice(1).join("\n") : "";
}

/** The ::error:: lines of a run. */
export const errorLines = (r: ActionRun) => r.stdout.split("\n").filter((l) => l.startsWith("::error::"));

/**
 * The checkout evaluated once on a push (no baseline, results in `resultsDir`); returns its results
 * and a baseline of the same runs that claims a gold medal on every run.
 */
export async function primeBaseline(opts: {
  repo: string;
  events: string;
  gh: FakeGitHub;
  config: string;
  resultsDir: string;
  env?: Record<string, string>;
}): Promise<{ results: { runs: object[] }; gold: string }> {
  const pushEvent = join(opts.events, "push.json");
  writeFileSync(
    pushEvent,
    JSON.stringify({ repository: { full_name: "acme/agent", default_branch: "main" } }),
  );
  const prime = await runInProcess({
    workspace: opts.repo,
    inputs: { config: opts.config, comment: "never", "runs-dir": "none", "results-dir": opts.resultsDir },
    env: {
      GITHUB_API_URL: opts.gh.url,
      ...opts.env,
      GITHUB_EVENT_NAME: "push",
      GITHUB_REF: "refs/heads/topic",
    },
    eventPath: pushEvent,
  });
  expect(prime.code, prime.stdout).toBe(0);
  const results = JSON.parse(readFileSync(join(opts.repo, opts.resultsDir, "head/results.json"), "utf8"));
  const medals = results.runs.map((r: { grade: object }) => ({
    ...r,
    grade: { ...r.grade, any_medal: true, gold_medal: true },
  }));
  return { results, gold: JSON.stringify({ ...results, label: "base", runs: medals }) };
}

/** The action on the pull request from `head` into `base`: the comment always, no runs folder. */
export async function runPr(opts: {
  repo: string;
  events: string;
  gh: FakeGitHub;
  base: string;
  head: string;
  inputs: Record<string, string>;
  env?: Record<string, string>;
  bundle?: boolean;
}): Promise<ActionRun & { comment: string }> {
  const r = await (opts.bundle ? runAction : runInProcess)({
    workspace: opts.repo,
    inputs: { comment: "always", "runs-dir": "none", ...opts.inputs },
    env: { GITHUB_API_URL: opts.gh.url, GITHUB_SHA: opts.head, ...opts.env },
    eventPath: prEvent(opts.events, opts.base, opts.head),
  });
  return { ...r, comment: commentOf(opts.gh) };
}
