import { createHash, type Hash } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
} from "node:fs";
import { join, relative, sep } from "node:path";
import { UserError } from "../errors.js";

/** Left out of a local agent's content hash unless `agent.files.ignore` is given. */
export const DEFAULT_IGNORE = [".git", "node_modules", ".medalist", "__pycache__", ".venv", "venv", "*.pyc"];

export interface FilesOptions {
  /** Globs of files to hash (relative to the root); default every file. */
  include?: string[];
  /** Globs of files and folders to leave out; default DEFAULT_IGNORE. */
  ignore?: string[];
  /** Absolute folders never hashed (results and data folders inside the tree). */
  exclude?: string[];
  /** Most files hashed before giving up (default 100,000). */
  maxFiles?: number;
}

/**
 * A glob as a RegExp over "/"-separated relative paths: `**` any folders, `*` and `?` within one
 * name. A pattern without "/" matches a name at any depth (like .gitignore).
 */
export function globToRegExp(glob: string): RegExp {
  const g = glob.replace(/^\.\//, "").replace(/\/$/, "");
  let re = "";
  for (let i = 0; i < g.length; i++) {
    const c = g[i];
    if (c === "*" && g[i + 1] === "*") {
      const slash = g[i + 2] === "/";
      re += slash ? "(?:.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(g.includes("/") ? `^${re}$` : `(?:^|/)${re}$`);
}

const matchesAny = (path: string, res: RegExp[]) => res.some((r) => r.test(path));

/**
 * Hashes one regular file as `path, x-bit, length, bytes`, read in chunks through a descriptor
 * opened without following a link (a file swapped for one meanwhile is refused); its length.
 */
function hashFile(h: Hash, abs: string, rel: string): number {
  let fd: number;
  try {
    fd = openSync(abs, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    throw new UserError(`agent.files: cannot read ${abs}: ${(e as Error).message}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new UserError(`agent.files: ${abs} changed while it was read`);
    h.update(`${rel}\0${st.mode & 0o111 ? "x" : "-"}\0${st.size}\0`);
    const buf = Buffer.allocUnsafe(1024 * 1024);
    let got = 0;
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0; got += n) h.update(buf.subarray(0, n));
    if (got !== st.size) throw new UserError(`agent.files: ${abs} changed while it was read`);
    return got;
  } finally {
    closeSync(fd);
  }
}

/**
 * Content hash of an agent's folder: every file's relative path, mode bit for "executable" and
 * bytes (symbolic links by their target text, never followed), in path order.
 */
export function hashAgentFiles(
  root: string,
  opts: FilesOptions = {},
): { hash: string; files: number; bytes: number } {
  const include = (opts.include ?? ["**"]).map(globToRegExp);
  const ignore = (opts.ignore ?? DEFAULT_IGNORE).map(globToRegExp);
  const exclude = new Set(opts.exclude ?? []);
  const maxFiles = opts.maxFiles ?? 100_000;
  const found: string[] = [];
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch (e) {
      throw new UserError(`agent.files: cannot read ${dir}: ${(e as Error).message}`);
    }
    for (const name of names) {
      const abs = join(dir, name);
      const rel = relative(root, abs).split(sep).join("/");
      if (exclude.has(abs) || matchesAny(rel, ignore)) continue;
      const st = lstatSync(abs);
      if (st.isDirectory()) walk(abs);
      else if ((st.isFile() || st.isSymbolicLink()) && matchesAny(rel, include)) {
        found.push(rel);
        if (found.length > maxFiles)
          throw new UserError(
            `agent.files: more than ${maxFiles} files under ${root}; name the agent's files with agent.files.include (or leave folders out with agent.files.ignore)`,
          );
      }
    }
  };
  walk(root);
  found.sort();
  const h = createHash("sha256");
  let bytes = 0;
  for (const rel of found) {
    const abs = join(root, ...rel.split("/"));
    const st = lstatSync(abs);
    if (st.isSymbolicLink()) {
      const body = Buffer.from(`link:${readlinkSync(abs)}`);
      bytes += body.length;
      h.update(`${rel}\0${st.mode & 0o111 ? "x" : "-"}\0${body.length}\0`).update(body);
    } else bytes += hashFile(h, abs, rel);
  }
  return { hash: h.digest("hex"), files: found.length, bytes };
}
