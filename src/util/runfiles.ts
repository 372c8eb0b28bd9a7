/**
 * Reading back what an agent left in its run folder. The agent is hostile: any file may be a
 * symbolic link to the private answers, a hard link, a FIFO that blocks a reader forever, a device
 * node or a huge file. Everything the runner reads from a run folder (the submission for grading,
 * usage.json, metrics, logs, code for artifacts) goes through this module:
 *
 * - every path component is checked with lstat (no component may be a link), the file itself is
 *   opened with O_NOFOLLOW | O_NONBLOCK (a FIFO never blocks), then checked on the open descriptor:
 *   a regular file, one hard link, at most `maxBytes`, and (on Linux) really inside the folder;
 * - `sanitizeTree` removes device nodes, FIFOs and sockets and strips setuid/setgid bits before
 *   anything else touches the folder.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  realpathSync,
  chmodSync,
  rmSync,
  mkdtempSync,
  writeSync,
  type Stats,
} from "node:fs";
import os from "node:os";
import path from "node:path";

export type Opened =
  { ok: true; fd: number; size: number } | { ok: false; problem: string; missing?: boolean };

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

function kind(st: Stats): string {
  if (st.isSymbolicLink()) return "a symbolic link";
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a FIFO";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device node";
  return "not a regular file";
}

/** The relative name's parts, or null when it is absolute or climbs out (`..`). */
function parts(rel: string): string[] | null {
  if (rel === "" || path.isAbsolute(rel)) return null;
  const ps = rel.split(/[\\/]+/).filter((p) => p !== "" && p !== ".");
  return ps.length === 0 || ps.includes("..") ? null : ps;
}

/**
 * Opens `root/rel` for reading without following any link. `root` must be a real directory (not a
 * link). Returns an open descriptor (the caller closes it) or the reason the file is refused.
 */
export function openInside(root: string, rel: string, maxBytes: number): Opened {
  const ps = parts(rel);
  const shown = path.join(root, rel);
  if (!ps) return { ok: false, problem: `${rel} is not a plain relative path` };
  let cur = root;
  for (const p of ["", ...ps.slice(0, -1)]) {
    cur = p === "" ? root : path.join(cur, p);
    let st: Stats;
    try {
      st = lstatSync(cur);
    } catch {
      return { ok: false, problem: `no file at ${shown}`, missing: true };
    }
    if (!st.isDirectory()) return { ok: false, problem: `${cur} is ${kind(st)}, not a folder` };
  }
  let fd: number;
  try {
    fd = openSync(shown, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { ok: false, problem: `no file at ${shown}`, missing: true };
    if (code === "ELOOP" || code === "EMLINK") return { ok: false, problem: `${shown} is a symbolic link` };
    let st: Stats | null = null;
    try {
      st = lstatSync(shown);
    } catch {
      /* reported below */
    }
    return { ok: false, problem: `${shown} ${st ? `is ${kind(st)}` : `cannot be opened (${code})`}` };
  }
  const refuse = (problem: string): Opened => {
    closeSync(fd);
    return { ok: false, problem };
  };
  const st = fstatSync(fd);
  if (!st.isFile()) return refuse(`${shown} is ${kind(st)}`);
  if (st.nlink > 1) return refuse(`${shown} is a hard link (${st.nlink} names for one file)`);
  if (st.size > maxBytes) return refuse(`${shown} is ${st.size} bytes, more than the ${maxBytes}-byte limit`);
  const where = openedPath(fd);
  if (where !== null) {
    let real: string;
    try {
      real = realpathSync(root);
    } catch {
      return refuse(`${root} cannot be resolved`);
    }
    if (!where.startsWith(real + path.sep)) return refuse(`${shown} lies outside ${root}`);
  }
  return { ok: true, fd, size: st.size };
}

/** Where an open descriptor really points (Linux /proc), or null when unknown. */
function openedPath(fd: number): string | null {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}

export type ReadBack = { ok: true; data: Buffer } | { ok: false; problem: string; missing?: boolean };

/** Reads `root/rel` (see openInside): never more than `maxBytes`, even if the file grows. */
export function readInside(root: string, rel: string, maxBytes: number): ReadBack {
  const o = openInside(root, rel, maxBytes);
  if (!o.ok) return o;
  try {
    const buf = Buffer.allocUnsafe(Math.min(maxBytes, o.size) + 1);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(o.fd, buf, got, buf.length - got, null);
      if (n === 0) break;
      got += n;
    }
    if (got > maxBytes) return { ok: false, problem: `${path.join(root, rel)} grew past ${maxBytes} bytes` };
    return { ok: true, data: buf.subarray(0, got) };
  } finally {
    closeSync(o.fd);
  }
}

/** Copies `root/rel` (see openInside) to `dest`, a runner-owned path; at most `maxBytes`. */
export function copyOut(
  root: string,
  rel: string,
  dest: string,
  maxBytes: number,
): { ok: true } | { ok: false; problem: string; missing?: boolean } {
  const o = openInside(root, rel, maxBytes);
  if (!o.ok) return o;
  let out = -1;
  try {
    out = openSync(dest, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
    const buf = Buffer.allocUnsafe(Math.min(4 * 1024 * 1024, maxBytes + 1));
    let total = 0;
    for (;;) {
      const n = readSync(o.fd, buf, 0, buf.length, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes)
        return { ok: false, problem: `${path.join(root, rel)} grew past ${maxBytes} bytes` };
      let off = 0;
      while (off < n) off += writeSync(out, buf, off, n - off);
    }
    return { ok: true };
  } finally {
    closeSync(o.fd);
    if (out >= 0) closeSync(out);
  }
}

/** Is `p` a real folder (not a link to one)? */
function isRealDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

export interface SanitizeReport {
  /** Device nodes, FIFOs and sockets removed (paths relative to the root). */
  removed: string[];
  /** Files and folders whose setuid/setgid bits were cleared. */
  stripped: string[];
  /** Entries seen. */
  entries: number;
  /** The walk stopped at `maxEntries`. */
  incomplete: boolean;
}

/**
 * Visits every entry under `dir` (lstat, no link followed; `st` undefined when it cannot be read) and
 * descends into real folders unless `visit` says "skip"; "stop" ends the whole walk.
 */
export function walkTree(
  dir: string,
  visit: (full: string, rel: string, st: Stats | undefined) => "stop" | "skip" | void,
  rel = "",
): boolean {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return true;
  }
  for (const name of names) {
    const full = path.join(dir, name);
    const r = rel ? `${rel}/${name}` : name;
    let st: Stats | undefined;
    try {
      st = lstatSync(full);
    } catch {
      st = undefined; // gone, or not ours to look at
    }
    const next = visit(full, r, st);
    if (next === "stop") return false;
    if (next !== "skip" && st?.isDirectory() && !walkTree(full, visit, r)) return false;
  }
  return true;
}

/**
 * Makes a run folder harmless for the host: removes device nodes, FIFOs and sockets, clears
 * setuid/setgid bits (and world-writable bits on files), never following a link. Bounded walk.
 */
export function sanitizeTree(root: string, maxEntries = 1_000_000): SanitizeReport {
  const report: SanitizeReport = { removed: [], stripped: [], entries: 0, incomplete: false };
  // The folder itself replaced by a link or a special file (possible for a local agent): removed,
  // never followed.
  const top = lstatSync(root, { throwIfNoEntry: false });
  if (top && !top.isDirectory()) {
    rmSync(root, { force: true });
    report.removed.push(".");
    return report;
  }
  walkTree(root, (full, r, st) => {
    if (report.entries >= maxEntries) {
      report.incomplete = true;
      return "stop";
    }
    report.entries++;
    if (!st || st.isSymbolicLink()) return "skip"; // a link is never followed; harmless as a name
    if (st.isFIFO() || st.isSocket() || st.isCharacterDevice() || st.isBlockDevice()) {
      rmSync(full, { force: true });
      report.removed.push(r);
      return "skip";
    }
    const mode = st.mode & 0o7777;
    const safe = mode & ~0o6000 & (st.isFile() ? ~0o002 : ~0);
    if (safe !== mode) {
      try {
        chmodSync(full, safe);
        report.stripped.push(r);
      } catch {
        // Not ours to change (another owner): removed instead, so nothing privileged stays.
        rmSync(full, { recursive: true, force: true });
        report.removed.push(r);
        return "skip";
      }
    }
  });
  return report;
}

/**
 * Bytes used under `root` (no link followed), stopping early once past `stopAt`; Infinity when
 * there are more than `maxEntries` entries.
 */
export function treeBytes(root: string, stopAt = Infinity, maxEntries = 1_000_000): number {
  if (!isRealDir(root)) return 0;
  let total = 0;
  let entries = 0;
  walkTree(root, (_full, _r, st) => {
    if (total > stopAt) return "stop";
    if (++entries > maxEntries) {
      total = Infinity;
      return "stop";
    }
    // A sparse file counts at its apparent size: that is what a reader or a copy sees.
    if (st) total += Math.max(st.blocks * 512, st.isFile() ? st.size : 0);
  });
  return total;
}

export type Snapshot =
  { ok: true; path: string; dispose: () => void } | { ok: false; problem: string; missing?: boolean };

/**
 * Copies a file the agent left (no link followed, see openInside; its folder is the boundary) to a
 * private temporary folder, so that the grader reads a runner-owned regular file that nobody can
 * swap while it reads. `dispose` removes the copy.
 */
export function snapshotFile(file: string, maxBytes: number): Snapshot {
  const dir = mkdtempSync(path.join(os.tmpdir(), "medalist-read-"));
  const dispose = () => rmSync(dir, { recursive: true, force: true });
  const dest = path.join(dir, path.basename(file));
  try {
    const r = copyOut(path.dirname(file), path.basename(file), dest, maxBytes);
    if (!r.ok) {
      dispose();
      return r;
    }
  } catch (e) {
    dispose();
    throw e;
  }
  return { ok: true, path: dest, dispose };
}

/**
 * The regular files under `root` that are safe to hand to an uploader: no link followed, no hard
 * link, at most `maxFiles` files and `maxBytes` in all (the rest is left out).
 */
export function listRegularFiles(root: string, maxFiles = 10_000, maxBytes = 1024 ** 3): string[] {
  const out: string[] = [];
  if (!isRealDir(root)) return out;
  let bytes = 0;
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (out.length >= maxFiles) return;
      const full = path.join(dir, name);
      let st: Stats;
      try {
        st = lstatSync(full);
      } catch {
        continue;
      }
      if (st.isDirectory()) walk(full);
      else if (st.isFile() && st.nlink === 1 && bytes + st.size <= maxBytes) {
        bytes += st.size;
        out.push(full);
      }
    }
  };
  walk(root);
  return out;
}

/** Sanitizes a run's writable folders (see sanitizeTree); a line for run.log when it did something. */
export function sanitizeRun(runDir: string): string | null {
  const lines: string[] = [];
  for (const sub of ["submission", "logs", "code"]) {
    const r = sanitizeTree(path.join(runDir, sub));
    if (r.removed.length > 0)
      lines.push(
        `removed special files from ${sub}/: ${r.removed.slice(0, 5).join(", ")}${r.removed.length > 5 ? ", …" : ""}`,
      );
    if (r.stripped.length > 0)
      lines.push(
        `cleared setuid/setgid bits in ${sub}/: ${r.stripped.slice(0, 5).join(", ")}${r.stripped.length > 5 ? ", …" : ""}`,
      );
    if (r.incomplete) lines.push(`${sub}/ has more than ${r.entries} entries: not all were checked`);
  }
  return lines.length > 0 ? lines.join("; ") : null;
}
