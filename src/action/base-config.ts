// Reads files of the base commit of a pull request: with git in the checkout (fetching the one
// commit when the clone is shallow), else the config file through the contents API.
import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, posix, relative, resolve, sep } from "node:path";
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

const short = (sha: string) => sha.slice(0, 7);

/** Largest base tree copied for the judge (registry folder, grader files). */
export const MAX_EXTRACT_BYTES = 1024 ** 3;

/** The mode and type of the entry `path` (no link followed) of commit `sha`, or null when it has none. */
function treeEntry(top: string, sha: string, path: string): { mode: string; type: string } | null {
  const out = git(top, ["--literal-pathspecs", "ls-tree", "--full-tree", "-z", sha, "--", path]).toString(
    "utf8",
  );
  for (const rec of out.split("\0")) {
    const tab = rec.indexOf("\t");
    if (tab >= 0 && rec.slice(tab + 1) === path) {
      const [mode, type] = rec.slice(0, tab).split(" ");
      return { mode, type };
    }
  }
  return null;
}

/**
 * What `path` is in commit `sha`, looked up one level at a time without following links: a level
 * that is a symbolic link (or a submodule) is refused with a sentence naming it and `what`;
 * "missing" only when git has no entry at some level (or a file where a folder would be).
 */
export function baseKind(
  top: string,
  sha: string,
  path: string,
  what: string,
): "file" | "folder" | "missing" {
  if (path === "") return "folder";
  const parts = path.split("/");
  for (let i = 1; i <= parts.length; i++) {
    const level = parts.slice(0, i).join("/");
    const entry = treeEntry(top, sha, level);
    if (!entry) return "missing";
    if (entry.mode === "120000")
      throw new UserError(
        `${what}: ${level} is a symbolic link in the base commit ${short(sha)}; on a pull request the judge's files are read from the base commit through real folders only`,
      );
    if (entry.type === "commit")
      throw new UserError(
        `${what}: ${level} is a submodule in the base commit ${short(sha)}; on a pull request the judge's files are read from the base commit's own tree only`,
      );
    if (i === parts.length) return entry.type === "tree" ? "folder" : "file";
    if (entry.type !== "tree") return "missing";
  }
  return "missing";
}

/**
 * Refuses a path of the checkout that is a symbolic link at any level below `top`: in a pull
 * request's checkout a link chooses which bytes are read.
 */
export function checkNoLinks(top: string, path: string, what: string): void {
  if (path === "") return;
  const parts = path.split("/");
  for (let i = 1; i <= parts.length; i++) {
    const level = parts.slice(0, i).join("/");
    const st = lstatSync(join(top, ...level.split("/")), { throwIfNoEntry: false });
    if (!st) return;
    if (st.isSymbolicLink())
      throw new UserError(
        `${what}: ${level} is a symbolic link in this pull request's checkout; on a pull request the judge's files are read through real folders only`,
      );
  }
}

/**
 * `abs` (a lexical path: no link resolved) as a path inside the checkout whose top git names `top`
 * (with its links resolved), or null when it is outside. `spelledFrom` is a folder spelled the way
 * `abs` is (the working folder, the workspace): the links above it are the runner's, not the PR's.
 */
export function repoRelative(top: string, abs: string, spelledFrom: string[]): string | null {
  const inside = (root: string) => {
    const rel = relative(root, abs);
    return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel)) ? rel.split(sep).join("/") : null;
  };
  const direct = inside(top);
  if (direct !== null) return direct;
  for (const from of spelledFrom) {
    // The spelled top: as many levels up from `from` as its real path is below git's top.
    let real: string;
    try {
      real = realpathSync(from);
    } catch {
      continue;
    }
    const up = relative(top, real);
    if (up.startsWith("..") || isAbsolute(up)) continue;
    let spelled = resolve(from);
    for (const _ of up ? up.split(sep) : []) spelled = dirname(spelled);
    try {
      if (realpathSync(spelled) !== top) continue;
    } catch {
      continue;
    }
    const rel = inside(spelled);
    if (rel !== null) return rel;
  }
  return null;
}

/** Sizes of the blobs under `paths` of commit `sha`, and its symbolic links' [path, target]. */
function treeListing(top: string, sha: string, paths: string[]) {
  const whole = paths.length === 0 || paths.includes("");
  const out = git(top, [
    "--literal-pathspecs",
    "ls-tree",
    "-r",
    "-l",
    "--full-tree",
    "-z",
    sha,
    ...(whole ? [] : ["--", ...paths]),
  ]);
  let bytes = 0,
    files = 0;
  const links: string[] = [];
  for (const rec of out.toString("utf8").split("\0")) {
    const tab = rec.indexOf("\t");
    if (tab < 0) continue;
    const [mode, , oid, size] = rec.slice(0, tab).split(/ +/);
    files++;
    if (mode === "120000") links.push(`${rec.slice(tab + 1)}\t${oid}`);
    else if (/^\d+$/.test(size ?? "")) bytes += Number(size);
  }
  return { bytes, files, links };
}

/**
 * Whether the checkout's `path` differs from the base commit's file there: other bytes, or not a
 * regular file (a link, a folder, missing).
 */
export function differsFromBase(top: string, sha: string, path: string): boolean {
  const abs = join(top, ...path.split("/"));
  const st = lstatSync(abs, { throwIfNoEntry: false });
  if (!st?.isFile()) return true;
  const base = git(top, ["rev-parse", `${sha}:${path}`])
    .toString("utf8")
    .trim();
  return git(top, ["hash-object", "--no-filters", "--", abs]).toString("utf8").trim() !== base;
}

/** The files under `path` (a folder, "" for all) that differ between commit `sha` and the checkout. */
export function changedSince(top: string, sha: string, path: string): string[] {
  const out = git(top, [
    "--literal-pathspecs",
    "diff",
    "--name-only",
    "--no-renames",
    "-z",
    sha,
    ...(path ? ["--", path] : []),
  ]);
  return out.toString("utf8").split("\0").filter(Boolean);
}

/** Bytes of the blobs under `paths` ("" for the whole tree) of commit `sha`. */
export const treeBytes = (top: string, sha: string, paths: string[]) => treeListing(top, sha, paths).bytes;

/**
 * Copies `paths` (folders or files, "" for the whole tree) of commit `sha` into `dir` without a
 * link of the working tree on the way. Refused with one sentence: more than `maxBytes`, or a
 * symbolic link that points outside `within` (the copied folder: an absolute target, or `..` past it).
 */
export function extractPaths(
  top: string,
  sha: string,
  paths: string[],
  dir: string,
  what: string,
  opts: { within?: string; maxBytes?: number } = {},
): void {
  const maxBytes = opts.maxBytes ?? MAX_EXTRACT_BYTES;
  const listing = treeListing(top, sha, paths);
  if (listing.bytes > maxBytes)
    throw new UserError(
      `${what}: the base commit ${short(sha)} holds ${listing.bytes} bytes there, more than the ${maxBytes} bytes Medalist copies for the judge`,
    );
  const within = opts.within ?? "";
  for (const entry of listing.links) {
    const [path, oid] = entry.split("\t");
    const target = git(top, ["cat-file", "blob", oid]).toString("utf8");
    const to = posix.normalize(posix.join(posix.dirname(path), target));
    const inside =
      !target.startsWith("/") &&
      (within === "" ? !to.startsWith("..") : to === within || to.startsWith(`${within}/`));
    if (!inside)
      throw new UserError(
        `${what}: ${path} in the base commit ${short(sha)} is a symbolic link out of ${within || "the repository"}; the judge's files are copied without such links`,
      );
  }
  mkdirSync(dir, { recursive: true });
  const args = ["--literal-pathspecs", "archive", "--format=tar", sha];
  const whole = paths.length === 0 || paths.includes("");
  const tar = git(top, whole ? args : [...args, "--", ...paths]);
  execFileSync("tar", ["-x", "-C", dir], {
    input: tar,
    stdio: ["pipe", "ignore", "pipe"],
    maxBuffer: 1024 ** 2,
  });
}

/**
 * Writes the folder `path` of commit `sha` into a new temporary folder and returns its copy, or null
 * when the commit has no such folder (git says so: no link on the way). `what` names the setting.
 */
export function extractFolder(
  top: string,
  sha: string,
  path: string,
  tempRoot?: string,
  what = path,
): string | null {
  const kind = baseKind(top, sha, path, what);
  if (kind === "missing") return null;
  if (kind === "file")
    throw new UserError(`${what}: ${path} is a file in the base commit ${short(sha)}, not a folder`);
  const dir = mkdtempSync(join(tempRoot || tmpdir(), "medalist-base-"));
  extractPaths(top, sha, [path], dir, what, { within: path });
  return join(dir, ...path.split("/"));
}

/**
 * The config's text at the base commit through the contents API; null only when the base commit
 * has no such file, as the listing of its folders shows (no symbolic link on the way; a 404 the
 * listings cannot explain, such as a token without access, fails instead).
 */
export async function fetchFile(opts: {
  token: string;
  apiUrl: string;
  owner: string;
  repo: string;
  sha: string;
  path: string;
}): Promise<string | null> {
  const client = createClient(opts.token, { baseUrl: opts.apiUrl, retries: 2 });
  const at = `${opts.path} at the base commit ${short(opts.sha)}`;
  const get = async (path: string) => {
    try {
      return (await client.rest.repos.getContent({ owner: opts.owner, repo: opts.repo, path, ref: opts.sha }))
        .data as unknown;
    } catch (e) {
      if (statusOf(e) === 404) return null;
      throw new UserError(
        `cannot read ${at} (${statusOf(e) ?? ""} ${(e as Error).message}); ` +
          "check out with git (actions/checkout) or give github-token contents: read",
      );
    }
  };
  const data = (await get(opts.path)) as {
    type?: string;
    path?: string;
    content?: unknown;
  } | null;
  if (data !== null) {
    if (!Array.isArray(data) && data.type === "symlink")
      throw new UserError(
        `config ${opts.path}: it is a symbolic link at the base commit ${short(opts.sha)}; on a pull request the judge's files are read through real folders only`,
      );
    // The API answers a link to a file with the file it leads to: another path.
    if (!Array.isArray(data) && data.type === "file" && data.path !== undefined && data.path !== opts.path)
      throw new UserError(
        `config ${opts.path}: it leads to ${data.path} at the base commit ${short(opts.sha)} (a symbolic link); on a pull request the judge's files are read through real folders only`,
      );
    if (Array.isArray(data) || data.type !== "file" || typeof data.content !== "string")
      throw new UserError(`${at} is not a file`);
    const text = Buffer.from(data.content, "base64").toString("utf8");
    if (Buffer.byteLength(text) > MAX_CONFIG_BYTES)
      throw new UserError(`${at} is larger than ${MAX_CONFIG_BYTES} bytes`);
    return text;
  }
  // Not found: missing only when a folder's listing shows the entry is not there.
  const parts = opts.path.split("/");
  for (let i = 0; i < parts.length; i++) {
    const folder = parts.slice(0, i).join("/");
    const listing = await get(folder);
    if (!Array.isArray(listing))
      throw new UserError(
        `cannot tell whether ${at} exists: ${folder || "the repository's top folder"} cannot be listed with github-token; check out with git (actions/checkout) or give github-token contents: read`,
      );
    const entry = (listing as { name?: string; type?: string }[]).find((e) => e.name === parts[i]);
    if (!entry || (i < parts.length - 1 && entry.type === "file")) return null;
    if (entry.type === "symlink" || entry.type === "submodule")
      throw new UserError(
        `config ${opts.path}: ${parts.slice(0, i + 1).join("/")} is a ${entry.type === "symlink" ? "symbolic link" : "submodule"} at the base commit ${short(opts.sha)}; on a pull request the judge's files are read through real folders only`,
      );
  }
  throw new UserError(`cannot read ${at}: the contents API lists it but does not return it`);
}
