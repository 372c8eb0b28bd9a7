/**
 * Finding every process of a local run, however it detached: its process group, its process tree
 * (recorded while it runs, so a grandchild that leaves with setsid stays known), and a run token in
 * the environment that every descendant inherits. Linux /proc; elsewhere only the group.
 */
import { readdirSync, readFileSync } from "node:fs";

export const RUN_TOKEN_VAR = "MEDALIST_RUN_TOKEN";

interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** Start time in clock ticks since boot: tells a recycled pid apart. */
  start: string;
  zombie: boolean;
}

function stat(pid: number): ProcInfo | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "latin1");
    const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
    return { pid, ppid: Number(f[1]), pgid: Number(f[2]), start: f[19], zombie: f[0] === "Z" };
  } catch {
    return null;
  }
}

function hasToken(pid: number, needle: Buffer): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`).indexOf(needle) >= 0;
  } catch {
    return false;
  }
}

/** Tracks one run's processes. */
export class RunProcesses {
  /** pid → start time of every process seen as part of the run. */
  private readonly known = new Map<number, string>();
  private readonly needle: Buffer;

  constructor(
    readonly rootPid: number,
    token: string,
  ) {
    this.needle = Buffer.from(`${RUN_TOKEN_VAR}=${token}\0`);
  }

  /** Live processes of the run now (and remembers them). */
  scan(): number[] {
    let pids: number[];
    try {
      pids = readdirSync("/proc")
        .filter((n) => /^\d+$/.test(n))
        .map(Number);
    } catch {
      return [];
    }
    const infos = new Map<number, ProcInfo>();
    for (const pid of pids) {
      if (pid === process.pid) continue;
      const i = stat(pid);
      if (i && !i.zombie) infos.set(pid, i);
    }
    const mine = new Set<number>();
    for (const i of infos.values()) {
      const seen = this.known.get(i.pid);
      if (seen !== undefined && seen === i.start) mine.add(i.pid);
      else if (i.pid === this.rootPid || i.pgid === this.rootPid) mine.add(i.pid);
      else if (hasToken(i.pid, this.needle)) mine.add(i.pid);
    }
    // Descendants of any of them (a child that cleared its environment is still a child).
    let grew = true;
    while (grew) {
      grew = false;
      for (const i of infos.values())
        if (!mine.has(i.pid) && mine.has(i.ppid)) {
          mine.add(i.pid);
          grew = true;
        }
    }
    for (const pid of mine) this.known.set(pid, infos.get(pid)!.start);
    return [...mine];
  }

  /** Sends `sig` to the group and to every process of the run; returns how many were signalled. */
  signal(sig: NodeJS.Signals): number {
    try {
      process.kill(-this.rootPid, sig);
    } catch {
      /* group gone */
    }
    let n = 0;
    for (const pid of this.scan()) {
      try {
        process.kill(pid, sig);
        n++;
      } catch {
        /* gone */
      }
    }
    return n;
  }
}

/** Live runs' process sets: a second Ctrl-C kills them all synchronously before exiting. */
const live = new Set<RunProcesses>();
export const trackRun = (r: RunProcesses) => live.add(r);
export const untrackRun = (r: RunProcesses) => live.delete(r);
export function killAllRunsNow(): void {
  for (const r of live) r.signal("SIGKILL");
}
