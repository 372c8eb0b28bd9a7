// Which of the limits the kernel enforces on a container a run reached. The kernel does the
// bounding (pids.max, a sized tmpfs, a folder's own filesystem); this only reads its counters so
// that the run stops with a cause that names the limit and its value, instead of running on with
// failing forks and writes until its time limit.
import { readFileSync, statfsSync } from "node:fs";
import { fullness } from "./folder-fs.js";
import { sizeText } from "./limits.js";

/** A limit the run reached: its name (for the details) and the cause in words. */
export interface LimitHit {
  name: string;
  cause: string;
}

/** The pids.events file of a container: cgroup v1 or v2, cgroupfs or systemd driver; null if none. */
export function pidsEventsFile(containerId: string): string | null {
  for (const f of [
    `/sys/fs/cgroup/pids/docker/${containerId}/pids.events`,
    `/sys/fs/cgroup/pids/system.slice/docker-${containerId}.scope/pids.events`,
    `/sys/fs/cgroup/docker/${containerId}/pids.events`,
    `/sys/fs/cgroup/system.slice/docker-${containerId}.scope/pids.events`,
  ]) {
    try {
      readFileSync(f, "utf8");
      return f;
    } catch {
      // not this layout
    }
  }
  return null;
}

/** How often a fork was refused at pids.max ("max N" in pids.events); null when unreadable. */
export function pidsRefusals(file: string): number | null {
  try {
    const m = /^max (\d+)$/m.exec(readFileSync(file, "utf8"));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

export interface LimitWatchInput {
  /** pids.events of the container (pidsEventsFile), with the limit; `gvisor`: the sandbox's own threads count. */
  pids?: { file: string; limit: number; gvisor?: boolean };
  /** The container's in-memory folders as the runner reaches them (/proc/<pid>/root/tmp; under gVisor the volume's tmpfs), sized. */
  tmp?: { label: string; path: string; bytes: number }[];
  /** The run's folders with their own filesystems (folder-fs.ts), by the name the agent sees. */
  folders?: { label: string; path: string; bytes: number }[];
  /** The filesystem the writable places of a read-only root share (their paths in the container). */
  root?: { paths: string[]; path: string; bytes: number };
}

/** The first limit reached, or null. */
export function checkLimits(w: LimitWatchInput): LimitHit | null {
  if (w.pids && (pidsRefusals(w.pids.file) ?? 0) > 0) return pidsHit(w.pids.limit, w.pids.gvisor === true);
  for (const t of w.tmp ?? []) {
    if (tmpFull(t.path, t.bytes))
      return {
        name: t.label,
        cause: `disk: ${t.label} limit ${sizeText(t.bytes)} reached (limits.disk.tmp; it is full)`,
      };
  }
  return foldersFull(w.folders ?? []) ?? rootFull(w.root);
}

/** The cause when the kernel refused a fork at limits.pids. */
export function pidsHit(limit: number, gvisor: boolean): LimitHit {
  return {
    name: "pids",
    cause: gvisor
      ? `pids: limit ${limit} reached (the kernel refused a fork to the agent's gVisor sandbox, whose processes and threads limits.pids bounds)`
      : `pids: limit ${limit} reached (the agent tried to run more processes than limits.pids allows)`,
  };
}

/** The cause when the writable places of a read-only root filled their filesystem, or null. */
export function rootFull(root: LimitWatchInput["root"]): LimitHit | null {
  const why = root ? fullness(root.path) : null;
  if (!root || !why) return null;
  return {
    name: "root",
    cause: `disk: limits.disk.root ${sizeText(root.bytes)} reached (${root.paths.join(", ")}, the writable places of the read-only root: ${why})`,
  };
}

/** The first of the run's own-filesystem folders that is full, or null. */
export function foldersFull(folders: NonNullable<LimitWatchInput["folders"]>): LimitHit | null {
  for (const f of folders) {
    const why = fullness(f.path);
    if (why) return { name: f.label, cause: `disk: ${f.label} quota ${sizeText(f.bytes)} reached (${why})` };
  }
  return null;
}

function tmpFull(p: string, bytes: number): boolean {
  try {
    const s = statfsSync(p);
    // Only a filesystem of the size given (the tmpfs itself, not what lies under it) counts.
    if (Math.abs(s.blocks * s.bsize - bytes) > 64 * 1024) return false;
    return s.bavail * s.bsize < Math.max(64 * 1024, Math.min(1024 ** 2, bytes / 64));
  } catch {
    return false;
  }
}
