import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { UserError } from "../errors.js";
import { pidAlive } from "../util/process.js";

/** Who holds a results folder. */
interface Holder {
  pid: number;
  host: string;
  since: string;
  nonce: string;
}

export const LOCK_FILE = ".medalist.lock";

function readHolder(file: string): Holder | null {
  try {
    const h = JSON.parse(readFileSync(file, "utf8")) as Holder;
    return typeof h.pid === "number" && typeof h.host === "string" ? h : null;
  } catch {
    return null;
  }
}

/**
 * Takes the lock of a results folder: a second `medalist run` on the same folder refuses with a
 * clear line (or waits, with `waitMs`) instead of deleting the first one's runs. A lock left by a
 * dead process on this host is taken over. Returns the release function.
 */
export async function lockResultsDir(
  dir: string,
  opts: { waitMs?: number; log?: (line: string) => void } = {},
): Promise<() => void> {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, LOCK_FILE);
  const me: Holder = {
    pid: process.pid,
    host: os.hostname(),
    since: new Date().toISOString(),
    nonce: randomBytes(8).toString("hex"),
  };
  const deadline = Date.now() + (opts.waitMs ?? 0);
  let told = false;
  for (;;) {
    try {
      const fd = openSync(file, "wx", 0o644);
      writeSync(fd, JSON.stringify(me) + "\n");
      closeSync(fd);
      return () => {
        try {
          if (readHolder(file)?.nonce === me.nonce) unlinkSync(file);
        } catch (e) {
          // A folder that became read-only keeps the lock; the next process takes it over (dead pid).
          if ((e as NodeJS.ErrnoException).code !== "EROFS") throw e;
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const h = readHolder(file);
    if (h === null || (h.host === me.host && !pidAlive(h.pid))) {
      // Stale (its process is gone) or unreadable: take it over, then make sure we won any race.
      opts.log?.(
        `taking over the lock of ${dir}${h ? ` left by process ${h.pid} (no longer running)` : " (unreadable)"}`,
      );
      try {
        unlinkSync(file);
      } catch {
        /* another process took it over first */
      }
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 30));
      continue;
    }
    if (Date.now() >= deadline) {
      throw new UserError(
        `${dir} is in use by medalist process ${h.pid} on ${h.host} (since ${h.since}); ` +
          `wait for it to finish, or write to another folder`,
        1,
      );
    }
    if (!told) opts.log?.(`waiting for medalist process ${h.pid} to finish with ${dir}`);
    told = true;
    await new Promise((r) => setTimeout(r, 500));
  }
}
