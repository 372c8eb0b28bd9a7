import { runPaths, type DiskQuota } from "./types.js";
import { lstatSync } from "node:fs";
import { treeBytes, walkTree } from "../util/runfiles.js";

export const DEFAULT_QUOTA: DiskQuota = { submission: 1024 ** 3, logs: 1024 ** 3, code: 1024 ** 3 };

export interface QuotaBreach {
  folder: keyof DiskQuota;
  bytes: number;
  limit: number;
  /** Set when the folder holds more than MAX_ENTRIES files and folders (bytes not counted). */
  entries?: number;
  /** The final check's two counts (see finalQuotaCheck), each stopped once past the limit. */
  allocated?: number;
  apparent?: number;
}

/** Most files and folders per writable folder: each check walks them, so they are bounded too. */
export const MAX_ENTRIES = 100_000;

/** The agent's writable folders, each with its quota's key. */
function quotaFolders(runDir: string): [keyof DiskQuota, string][] {
  const p = runPaths(runDir);
  return [
    ["submission", p.submissionDir],
    ["logs", p.logsDir],
    ["code", p.codeDir],
  ];
}

/** The first folder over its quota, or null. Never follows links; stops counting past the limit. */
export function checkQuota(runDir: string, quota: DiskQuota): QuotaBreach | null {
  for (const [folder, dir] of quotaFolders(runDir)) {
    const bytes = treeBytes(dir, quota[folder], MAX_ENTRIES);
    if (bytes === Infinity) return { folder, bytes, limit: quota[folder], entries: MAX_ENTRIES };
    if (bytes > quota[folder]) return { folder, bytes, limit: quota[folder] };
  }
  return null;
}

/** Bytes on disk (st_blocks × 512) and apparent bytes (st_size) under a folder; no link followed. */
export interface TreeUsage {
  allocated: number;
  apparent: number;
  entries: number;
  /** False when counting stopped early (past `stopAt`, or more than `maxEntries` entries). */
  complete: boolean;
}

export function treeUsage(root: string, stopAt = Infinity, maxEntries = MAX_ENTRIES): TreeUsage {
  const u: TreeUsage = { allocated: 0, apparent: 0, entries: 0, complete: true };
  if (!lstatSync(root, { throwIfNoEntry: false })?.isDirectory()) return u;
  walkTree(root, (_full, _rel, st) => {
    if (u.allocated > stopAt || u.apparent > stopAt || u.entries >= maxEntries) {
      u.complete = false;
      return "stop";
    }
    u.entries++;
    if (!st) return;
    u.allocated += st.blocks * 512;
    if (st.isFile()) u.apparent += st.size;
  });
  return u;
}

/**
 * The check after the agent exited, before anything grades, stores or uploads the run: a file
 * written just before exit escapes the polled check. Counts both the bytes allocated and the
 * apparent size, so that a sparse file (1 TB of holes that a copy or an upload would read as
 * zeros) is over quota as well as a dense one. Never follows links.
 */
export function finalQuotaCheck(runDir: string, quota: DiskQuota): QuotaBreach | null {
  for (const [folder, dir] of quotaFolders(runDir)) {
    const limit = quota[folder];
    const u = treeUsage(dir, limit, MAX_ENTRIES);
    const facts = { allocated: u.allocated, apparent: u.apparent };
    if (u.entries >= MAX_ENTRIES && !u.complete)
      return { folder, bytes: Infinity, limit, entries: MAX_ENTRIES, ...facts };
    const bytes = Math.max(u.allocated, u.apparent);
    if (bytes > limit) return { folder, bytes, limit, ...facts };
  }
  return null;
}

export function describeBreach(b: QuotaBreach): string {
  const mib = (n: number) => `${(n / 1024 ** 2).toFixed(1)} MiB`;
  if (b.entries !== undefined)
    return `disk: /home/${b.folder} holds more than ${b.entries} files and folders: run stopped`;
  return `disk: /home/${b.folder} went over its ${mib(b.limit)} quota (${mib(b.bytes)} or more): run stopped`;
}

/** The final check's breach in one sentence (the run has already ended). */
export function describeFinalBreach(b: QuotaBreach): string {
  const mib = (n: number) => `${(n / 1024 ** 2).toFixed(1)} MiB`;
  if (b.entries !== undefined)
    return `disk: /home/${b.folder} held more than ${b.entries} files and folders when the agent exited`;
  const sparse =
    b.apparent !== undefined && b.allocated !== undefined && b.apparent > b.allocated
      ? ` (${mib(b.apparent)} apparent, ${mib(b.allocated)} on disk)`
      : "";
  return `disk: /home/${b.folder} was over its ${mib(b.limit)} quota when the agent exited: ${mib(b.bytes)} or more${sparse}`;
}

/**
 * Checks the run's folders every `intervalMs` while it runs; calls `onBreach` once at the first
 * folder over its quota. Returns a function that stops watching.
 */
export function watchQuota(
  runDir: string,
  quota: DiskQuota,
  onBreach: (b: QuotaBreach) => void,
  intervalMs = 1000,
): () => void {
  let done = false;
  const timer = setInterval(() => {
    if (done) return;
    const b = checkQuota(runDir, quota);
    if (b) {
      done = true;
      clearInterval(timer);
      onBreach(b);
    }
  }, intervalMs);
  timer.unref();
  return () => {
    done = true;
    clearInterval(timer);
  };
}
