import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { pidAlive } from "../util/process.js";

/**
 * An exclusive lock file (created with O_EXCL) holding "pid host time". A lock whose process is
 * gone (same host) or that is older than `staleMs` is taken over.
 */
export interface LockOptions {
  /** How long to wait for another holder, in ms (0: fail at once). */
  waitMs?: number;
  pollMs?: number;
  staleMs?: number;
}

export class LockBusyError extends Error {}

function isStale(file: string, staleMs: number): boolean {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return false; // vanished: the next attempt will create it
  }
  const [pidText, host, timeText] = text.trim().split(" ");
  const pid = Number(pidText);
  const time = Number(timeText);
  if (host === hostname() && Number.isInteger(pid) && pid > 0 && !pidAlive(pid)) return true;
  return Number.isFinite(time) && Date.now() - time > staleMs;
}

function tryCreate(file: string): boolean {
  try {
    const fd = openSync(file, "wx");
    writeSync(fd, `${process.pid} ${hostname()} ${Date.now()}\n`);
    closeSync(fd);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  }
}

/** Takes the lock (waiting up to waitMs); returns its release function. */
export async function acquireLock(file: string, opts: LockOptions = {}): Promise<() => void> {
  const { waitMs = 0, pollMs = 200, staleMs = 6 * 3600_000 } = opts;
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (tryCreate(file)) {
      return () => rmSync(file, { force: true });
    }
    if (isStale(file, staleMs)) {
      // Two processes may both see it stale; only one wins the O_EXCL create after the removal.
      rmSync(file, { force: true });
      continue;
    }
    if (Date.now() >= deadline) {
      let holder = "";
      try {
        holder = readFileSync(file, "utf8").trim().split(" ").slice(0, 2).join(" on ");
      } catch {
        /* gone meanwhile */
      }
      throw new LockBusyError(`${file} is held by process ${holder || "?"}`);
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
