import { runPaths } from "./types.js";
import { treeBytes } from "../util/runfiles.js";

/** Most bytes the agent may leave in each of its writable folders. */
export interface DiskQuota {
  submission: number;
  logs: number;
  code: number;
}

export const DEFAULT_QUOTA: DiskQuota = { submission: 1024 ** 3, logs: 1024 ** 3, code: 1024 ** 3 };

export interface QuotaBreach {
  folder: keyof DiskQuota;
  bytes: number;
  limit: number;
  /** Set when the folder holds more than MAX_ENTRIES files and folders (bytes not counted). */
  entries?: number;
}

/** Most files and folders per writable folder: each check walks them, so they are bounded too. */
export const MAX_ENTRIES = 100_000;

/** The first folder over its quota, or null. Never follows links; stops counting past the limit. */
export function checkQuota(runDir: string, quota: DiskQuota): QuotaBreach | null {
  const p = runPaths(runDir);
  const dirs: [keyof DiskQuota, string][] = [
    ["submission", p.submissionDir],
    ["logs", p.logsDir],
    ["code", p.codeDir],
  ];
  for (const [folder, dir] of dirs) {
    const bytes = treeBytes(dir, quota[folder], MAX_ENTRIES);
    if (bytes === Infinity) return { folder, bytes, limit: quota[folder], entries: MAX_ENTRIES };
    if (bytes > quota[folder]) return { folder, bytes, limit: quota[folder] };
  }
  return null;
}

export function describeBreach(b: QuotaBreach): string {
  const mib = (n: number) => `${(n / 1024 ** 2).toFixed(1)} MiB`;
  if (b.entries !== undefined)
    return `/home/${b.folder} holds more than ${b.entries} files and folders: run stopped`;
  return `/home/${b.folder} went over its ${mib(b.limit)} quota (${mib(b.bytes)} or more): run stopped`;
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
