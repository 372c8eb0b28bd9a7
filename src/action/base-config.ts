// Reads files of the base commit of a pull request: with git in the checkout (fetching the one
// commit when the clone is shallow), else the config file through the contents API.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { MAX_CONFIG_BYTES } from "../config/load.js";
import { UserError } from "../errors.js";
import { createClient, statusOf } from "../github/client.js";

const git = (cwd: string, args: string[], input?: Buffer) =>
  execFileSync("git", args, {
    cwd,
    input,
    stdio: ["pipe", "pipe", "pipe"],
    maxBuffer: 1024 ** 3,
    // Never wait for a password prompt (a fetch without credentials fails instead).
    env: { ...process.env, GIT_TERMINAL_PROMPT: "0" },
  });

const gitOk = (cwd: string, args: string[]) => {
  try {
    git(cwd, args);
    return true;
  } catch {
    return false;
  }
};

/** The checkout's top folder, or null outside a git checkout. */
export function repoTop(dir: string): string | null {
  try {
    return git(dir, ["rev-parse", "--show-toplevel"]).toString("utf8").trim();
  } catch {
    return null;
  }
}

/** Whether the checkout has commit `sha`, fetching that one commit from origin when it lacks it. */
export function haveCommit(top: string, sha: string, log: (line: string) => void): boolean {
  if (gitOk(top, ["cat-file", "-e", `${sha}^{commit}`])) return true;
  log(`fetching the base commit ${sha.slice(0, 7)} to read its config`);
  gitOk(top, ["fetch", "--no-tags", "--depth=1", "origin", sha]);
  return gitOk(top, ["cat-file", "-e", `${sha}^{commit}`]);
}

/** A path inside the repository as git names it (forward slashes). */
export const gitPath = (top: string, abs: string) => relative(top, abs).split(sep).join("/");

/** A file's text at `sha`, or null when the commit has no such file. */
export function showFile(top: string, sha: string, path: string, maxBytes = MAX_CONFIG_BYTES): string | null {
  if (!gitOk(top, ["cat-file", "-e", `${sha}:${path}`])) return null;
  const size = Number(
    git(top, ["cat-file", "-s", `${sha}:${path}`])
      .toString("utf8")
      .trim(),
  );
  if (size > maxBytes)
    throw new UserError(`${path} at ${sha.slice(0, 7)} is ${size} bytes, larger than ${maxBytes} bytes`);
  return git(top, ["show", `${sha}:${path}`]).toString("utf8");
}

/** Whether `path` is tracked in the checkout (committed by the pull request's side). */
export const isTracked = (top: string, path: string) =>
  gitOk(top, ["ls-files", "--error-unmatch", "--", path]);

/**
 * Writes the folder `path` of commit `sha` into a new temporary folder and returns its copy, or null
 * when the commit has no such folder.
 */
export function extractFolder(top: string, sha: string, path: string, tempRoot?: string): string | null {
  if (!gitOk(top, ["cat-file", "-e", `${sha}:${path}`])) return null;
  const dir = mkdtempSync(join(tempRoot || tmpdir(), "medalist-base-"));
  const tar = git(top, ["archive", "--format=tar", sha, "--", path]);
  mkdirSync(dir, { recursive: true });
  execFileSync("tar", ["-x", "-C", dir], { input: tar, stdio: ["pipe", "ignore", "pipe"] });
  return join(dir, ...path.split("/"));
}

/** The config's text at the base commit through the contents API; null when the commit has none. */
export async function fetchFile(opts: {
  token: string;
  apiUrl: string;
  owner: string;
  repo: string;
  sha: string;
  path: string;
}): Promise<string | null> {
  const client = createClient(opts.token, { baseUrl: opts.apiUrl, retries: 2 });
  try {
    const { data } = await client.rest.repos.getContent({
      owner: opts.owner,
      repo: opts.repo,
      path: opts.path,
      ref: opts.sha,
    });
    if (Array.isArray(data) || data.type !== "file" || typeof data.content !== "string")
      throw new UserError(`${opts.path} at ${opts.sha.slice(0, 7)} is not a file`);
    const text = Buffer.from(data.content, "base64").toString("utf8");
    if (Buffer.byteLength(text) > MAX_CONFIG_BYTES)
      throw new UserError(`${opts.path} at ${opts.sha.slice(0, 7)} is larger than ${MAX_CONFIG_BYTES} bytes`);
    return text;
  } catch (e) {
    if (statusOf(e) === 404) return null;
    if (e instanceof UserError) throw e;
    throw new UserError(
      `cannot read ${opts.path} at the base commit ${opts.sha.slice(0, 7)} (${statusOf(e) ?? ""} ${(e as Error).message}); ` +
        "check out with git (actions/checkout) or give github-token contents: read",
    );
  }
}
