/**
 * Masking a finished run's folder in place, after the agent exited and the folder was sanitized,
 * before anything reads, stores or uploads it. Never follows a link. See mask.ts for what is
 * masked, withheld.ts for the list of files that must stay on the runner.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmdirSync,
  rmSync,
  writeSync,
  type Stats,
} from "node:fs";
import path from "node:path";
import { Masker } from "./mask.js";
import { openInside, walkTree } from "../util/runfiles.js";
import { WITHHELD_FILE, writeWithheld, type WithheldManifest, type WithheldReason } from "./withheld.js";

export interface MaskFolderOptions {
  /** Read and checked but never changed (withheld when they hold a secret). Default the submission. */
  keep?: string[];
  /** Left alone entirely (runner-written files). Default run.json and the manifest. */
  skip?: string[];
  /** Rewritten as text even when not valid UTF-8 (bad bytes become U+FFFD). Default run.log. */
  lossy?: string[];
  /** Larger files are not read: withheld as `too-large`. Default 256 MiB. */
  maxFileBytes?: number;
  /** Past this many bytes read in all, the remaining files are withheld as `too-large`. Default 1 GiB. */
  maxTotalBytes?: number;
  /** Past this many entries the walk stops and the whole folder is withheld. Default 100 000. */
  maxEntries?: number;
}

export interface MaskFolderReport {
  /** Files in which at least one secret was replaced (masked relative paths). */
  masked: string[];
  /** New (masked) paths of files whose path held a secret. */
  renamed: string[];
  /** Files that could not be masked because they are not text. */
  binary: string[];
  /** Every file that must stay on the runner, with its reason (also written to withheld.json). */
  withheld: { path: string; reason: WithheldReason }[];
  /** Entries whose name held a secret and that could be neither renamed nor left: removed. */
  removed: number;
  /** The walk stopped at maxEntries: the manifest withholds the whole folder. */
  incomplete: boolean;
}

const CHUNK = 1024 * 1024;
/** The run's own folders: never removed, even when emptied. */
const AGENT_FOLDERS = ["submission", "logs", "code"];
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * Masks `secrets` in every text file of `runDir` (in place), in file and folder names (renamed),
 * and writes withheld.json listing what cannot be masked. Returns what it did; the lists hold
 * masked paths only, never a secret.
 */
export function maskRunFolder(
  runDir: string,
  secrets: string[],
  opts: MaskFolderOptions = {},
): MaskFolderReport {
  const masker = new Masker(secrets);
  const report: MaskFolderReport = {
    masked: [],
    renamed: [],
    binary: [],
    withheld: [],
    removed: 0,
    incomplete: false,
  };
  const o = {
    keep: new Set(opts.keep ?? ["submission/submission.csv"]),
    skip: new Set([...(opts.skip ?? ["run.json"]), WITHHELD_FILE]),
    lossy: new Set(opts.lossy ?? ["run.log"]),
    maxFileBytes: opts.maxFileBytes ?? 256 * 1024 ** 2,
    maxTotalBytes: opts.maxTotalBytes ?? 1024 ** 3,
    maxEntries: opts.maxEntries ?? 100_000,
  };
  if (masker.active) {
    let entries = listEntries(runDir, o.maxEntries);
    if (entries === null) report.incomplete = true;
    else {
      renameSecretNames(runDir, entries, masker, o.skip, report);
      entries = listEntries(runDir, o.maxEntries);
      if (entries === null) report.incomplete = true;
      else maskContents(runDir, entries, masker, o, report);
    }
  }
  const manifest: WithheldManifest = {
    version: 1,
    complete: !report.incomplete,
    active: masker.active,
    withheld: report.withheld,
  };
  writeWithheld(runDir, manifest);
  return report;
}

interface Entry {
  rel: string;
  st: Stats;
}

/** Every entry under root (no link followed), folders included; null past maxEntries. */
function listEntries(root: string, maxEntries: number): Entry[] | null {
  const out: Entry[] = [];
  const finished = walkTree(root, (_full, rel, st) => {
    if (out.length >= maxEntries) return "stop";
    if (st) out.push({ rel, st });
  });
  return finished ? out : null;
}

/**
 * Moves every entry whose path holds a secret to its masked path, then removes the folders
 * whose names held one (emptied by now). A secret split by `/` (a base64 name used as nested
 * folders) is caught because whole relative paths are matched.
 */
function renameSecretNames(
  root: string,
  entries: Entry[],
  masker: Masker,
  skip: Set<string>,
  report: MaskFolderReport,
): void {
  const dirs: string[] = [];
  for (const { rel, st } of entries) {
    if (skip.has(rel) || !masker.has(rel)) continue;
    if (st.isDirectory()) {
      dirs.push(rel);
      continue;
    }
    const to = freeName(root, masker.mask(rel));
    try {
      if (to === null || !makeParents(root, to)) throw new Error("no place for it");
      renameSync(path.join(root, rel), path.join(root, to));
      report.renamed.push(to);
    } catch {
      rmSync(path.join(root, rel), { force: true });
      report.removed++;
    }
    pruneEmpty(root, rel);
  }
  // Deepest first; whatever is still inside (entries past a failure) goes with its folder.
  for (const rel of dirs.sort((a, b) => b.length - a.length)) {
    const full = path.join(root, rel);
    if (lstatSync(full, { throwIfNoEntry: false })?.isDirectory())
      rmSync(full, { recursive: true, force: true });
  }
}

/**
 * Removes the folders above `rel` that the move left empty: with a secret split by `/`, each
 * holds a piece of it.
 */
function pruneEmpty(root: string, rel: string): void {
  const parts = rel.split("/").slice(0, -1);
  for (let n = parts.length; n >= 1; n--) {
    if (n === 1 && AGENT_FOLDERS.includes(parts[0])) return;
    try {
      rmdirSync(path.join(root, ...parts.slice(0, n)));
    } catch {
      return; // not empty (or gone): the folders above it stay too
    }
  }
}

/** `rel`, or `rel.1`, `rel.2`, … when taken; null when no name is free. */
function freeName(root: string, rel: string): string | null {
  for (let i = 0; i < 100; i++) {
    const name = i === 0 ? rel : `${rel}.${i}`;
    if (!lstatSync(path.join(root, name), { throwIfNoEntry: false })) return name;
  }
  return null;
}

/** Creates the folders above `rel` under root; false when a part exists and is not a real folder. */
function makeParents(root: string, rel: string): boolean {
  let cur = root;
  for (const part of rel.split("/").slice(0, -1)) {
    cur = path.join(cur, part);
    const st = lstatSync(cur, { throwIfNoEntry: false });
    if (!st) mkdirSync(cur, { mode: 0o700 });
    else if (!st.isDirectory()) return false;
  }
  return true;
}

type Bounds = {
  keep: Set<string>;
  skip: Set<string>;
  lossy: Set<string>;
  maxFileBytes: number;
  maxTotalBytes: number;
};

function maskContents(
  root: string,
  entries: Entry[],
  masker: Masker,
  o: Bounds,
  report: MaskFolderReport,
): void {
  let total = 0;
  const withhold = (p: string, reason: WithheldReason) => report.withheld.push({ path: p, reason });
  for (const { rel, st } of entries) {
    if (!st.isFile() || o.skip.has(rel)) continue;
    if (st.nlink > 1) withhold(rel, "hard-link");
    else if (st.size > o.maxFileBytes || total + st.size > o.maxTotalBytes) withhold(rel, "too-large");
    else {
      total += st.size;
      const r = maskFile(root, rel, masker, {
        keep: o.keep.has(rel),
        lossy: o.lossy.has(rel),
        max: o.maxFileBytes,
      });
      if (r === "masked") report.masked.push(rel);
      else if (r !== "clean") {
        withhold(rel, r);
        if (r === "binary") report.binary.push(rel);
      }
    }
  }
}

type FileResult = "clean" | "masked" | WithheldReason;

/** Checks one file, then (when it holds a secret and may change) rewrites it masked. */
function maskFile(
  root: string,
  rel: string,
  masker: Masker,
  f: { keep: boolean; lossy: boolean; max: number },
): FileResult {
  const found = passFile(root, rel, masker, f, null);
  if (found !== "masked") return found;
  if (f.keep) return "holds-secret";
  const full = path.join(root, rel);
  const tmp = path.join(path.dirname(full), `.${path.basename(full)}.medalist-mask-${process.pid}`);
  let fd = -1;
  try {
    fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
    const r = passFile(root, rel, masker, f, fd);
    if (r !== "masked") throw new Error(`changed while masked: ${r}`);
    fchmodSync(fd, lstatSync(full).mode & 0o777);
    closeSync(fd);
    fd = -1;
    renameSync(tmp, full);
    return "masked";
  } catch {
    rmSync(tmp, { force: true });
    return "unwritable";
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

/**
 * Streams one file through the masker, one chunk in memory at a time, writing the masked text to
 * `out` when given. "masked" means a secret was found.
 */
function passFile(
  root: string,
  rel: string,
  masker: Masker,
  f: { lossy: boolean; max: number },
  out: number | null,
): FileResult {
  const opened = openInside(root, rel, f.max);
  if (!opened.ok) return opened.problem.includes("more than") ? "too-large" : "unreadable";
  try {
    const decoder = new TextDecoder("utf-8", { fatal: !f.lossy });
    const stream = masker.stream();
    const buf = Buffer.allocUnsafe(CHUNK);
    let read = 0;
    for (;;) {
      const n = readSync(opened.fd, buf, 0, CHUNK, null);
      read += n;
      if (read > f.max) return "too-large";
      const chunk = buf.subarray(0, n);
      if (!f.lossy && chunk.includes(0)) return "binary";
      let text: string;
      try {
        text = decoder.decode(chunk, { stream: n > 0 });
      } catch {
        return "binary";
      }
      const masked = n > 0 ? stream.push(text) : stream.push(text) + stream.end();
      if (out !== null) {
        const b = Buffer.from(masked, "utf8");
        for (let off = 0; off < b.length;) off += writeSync(out, b, off, b.length - off);
      }
      if (n === 0) break;
    }
    return stream.count > 0 ? "masked" : "clean";
  } catch {
    return "unreadable";
  } finally {
    closeSync(opened.fd);
  }
}
