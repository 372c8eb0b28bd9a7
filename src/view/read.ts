import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { isWithheld, withheldFiles } from "../execute/withheld.js";

/**
 * Reads what an agent left in its run folder, the hostile way: no link is followed, only plain
 * files are read, every read is bounded, and nothing is ever written back.
 */

export const LIMITS = {
  /** run.log bytes read, and bytes of log page files written, per run (the rest is reported as cut). */
  logBytes: 64 * 1024 ** 2,
  /** Bytes of log page files of all runs of one viewer together. */
  siteLogBytes: 512 * 1024 ** 2,
  /** Bytes (UTF-8, escaped) of agent text on one run or diff page: files, trees, events, tables. */
  pageBytes: 4 * 1024 ** 2,
  /** Characters of one embedded text (a file, a node's code, an event) shown. */
  textChars: 64 * 1024,
  /** Bytes of one file shown in the file browser or the code view. */
  fileBytes: 256 * 1024,
  /** Bytes of all file previews of one run together. */
  previewBytes: 8 * 1024 ** 2,
  /** Files listed per run. */
  files: 2000,
  /** Folder depth walked. */
  depth: 8,
  /** Bytes of a JSON trajectory (AIDE journal, event list) parsed. */
  jsonBytes: 32 * 1024 ** 2,
  /** Bytes of submission.csv previewed. */
  submissionBytes: 256 * 1024,
  /** Bytes of metrics.jsonl read. */
  metricsBytes: 8 * 1024 ** 2,
};

export interface Bounded {
  text: string;
  /** The file's full size. */
  bytes: number;
  truncated: boolean;
}

/** True when every folder from root down to rel's parent is a real folder (no link on the way). */
export function insideWithoutLinks(root: string, rel: string): boolean {
  const parts = rel.split("/").filter(Boolean);
  let at = root;
  for (const p of parts.slice(0, -1)) {
    at = join(at, p);
    try {
      if (!lstatSync(at).isDirectory()) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * Whether the viewer must not show `rel`: the attempt withheld it (withheld.json: a file it could
 * not mask, or the submission when it holds a secret). Run folders from before masking have no
 * manifest and show as they are.
 */
export function hiddenInRun(root: string, rel: string): boolean {
  const manifest = withheldFiles(root);
  return manifest !== null && isWithheld(manifest, rel);
}

/** The path of `rel` in the run folder when the viewer may read it (no link on the way, not withheld). */
function runFile(root: string, rel: string): string | null {
  if (rel.split("/").includes("..") || !insideWithoutLinks(root, rel)) return null;
  return hiddenInRun(root, rel) ? null : join(root, rel);
}

/** A plain file opened without following a link: its descriptor and size, or null. */
function openPlain(path: string): { fd: number; size: number } | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return null;
  }
  const st = fstatSync(fd);
  if (st.isFile()) return { fd, size: st.size };
  closeSync(fd);
  return null;
}

/** A file of the run folder, read with readBounded after checking no folder on the way is a link. */
export function readInRun(root: string, rel: string, max: number): Bounded | null {
  const path = runFile(root, rel);
  return path === null ? null : readBounded(path, max);
}

/** A plain file's first `max` bytes as UTF-8, or null when missing, a link or not a plain file. */
export function readBounded(path: string, max: number): Bounded | null {
  const f = openPlain(path);
  if (!f) return null;
  try {
    const n = Math.min(f.size, max);
    const buf = Buffer.alloc(n);
    let got = 0;
    while (got < n) {
      const r = readSync(f.fd, buf, got, n - got, got);
      if (r === 0) break;
      got += r;
    }
    return { text: buf.subarray(0, got).toString("utf8"), bytes: f.size, truncated: f.size > got };
  } finally {
    closeSync(f.fd);
  }
}

/**
 * Reads a plain file of the run folder (checked as readInRun does) in chunks of at most `chunk`
 * bytes, decoded as UTF-8, up to `max` bytes or until `onText` returns false. Returns the file's
 * size and the bytes read, or null when it is missing, a link or not a plain file.
 */
export function streamInRun(
  root: string,
  rel: string,
  max: number,
  onText: (text: string) => boolean,
  chunk = 1024 * 1024,
): { bytes: number; read: number } | null {
  const path = runFile(root, rel);
  const f = path === null ? null : openPlain(path);
  if (!f) return null;
  const { fd, size } = f;
  const decoder = new StringDecoder("utf8");
  const buf = Buffer.alloc(Math.min(chunk, Math.max(1, max)));
  let read = 0;
  try {
    while (read < max) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, max - read), read);
      if (n === 0) break;
      read += n;
      if (!onText(decoder.write(buf.subarray(0, n)))) return { bytes: size, read };
    }
    const rest = decoder.end();
    if (rest) onText(rest);
    return { bytes: size, read };
  } finally {
    closeSync(fd);
  }
}

export interface FileEntry {
  /** Path relative to the run folder, "/"-separated. */
  path: string;
  bytes: number;
  /** "file", "link", "dir" or "other" (device, socket, fifo): only plain files are ever read. */
  kind: "file" | "link" | "dir" | "other";
}

/** Lists a folder (depth- and count-bounded) without following links. */
export function listFiles(
  root: string,
  sub: string,
  limit = LIMITS.files,
): { files: FileEntry[]; more: boolean } {
  const files: FileEntry[] = [];
  let more = false;
  const walk = (rel: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(join(root, rel)).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (files.length >= limit) {
        more = true;
        return;
      }
      const path = `${rel}/${name}`;
      let st;
      try {
        st = lstatSync(join(root, path));
      } catch {
        continue;
      }
      const kind = st.isSymbolicLink() ? "link" : st.isDirectory() ? "dir" : st.isFile() ? "file" : "other";
      files.push({ path, bytes: kind === "file" ? st.size : 0, kind });
      if (kind === "dir") {
        if (depth < LIMITS.depth) walk(path, depth + 1);
        else more = true;
      }
    }
  };
  try {
    if (lstatSync(join(root, sub)).isDirectory()) walk(sub, 1);
  } catch {
    // no such folder
  }
  return { files, more };
}

/** Text looks binary when it holds NUL bytes or many replacement characters. */
export function looksBinary(text: string): boolean {
  if (text.includes("\u0000")) return true;
  const sample = text.slice(0, 4096);
  let bad = 0;
  for (const c of sample) if (c === "\ufffd") bad++;
  return bad > sample.length / 20;
}
