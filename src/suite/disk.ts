import { closeSync, openSync, readdirSync, rmSync, writeSync, type Dirent } from "node:fs";
import { join } from "node:path";

export const RESERVE_FILE = ".medalist-reserve";

/**
 * Space set aside in the results folder at the start of a suite: when the disk fills up, it is
 * freed so that results.json can still be written. Returns the function that frees it.
 */
export function reserveSpace(dir: string, bytes = 1024 ** 2): () => void {
  const file = join(dir, RESERVE_FILE);
  const fd = openSync(file, "w", 0o600);
  try {
    const zeros = Buffer.alloc(64 * 1024);
    for (let done = 0; done < bytes; done += zeros.length) writeSync(fd, zeros);
  } finally {
    closeSync(fd);
  }
  return () => rmSync(file, { force: true });
}

/** Removes the temporary files of interrupted atomic writes (`*.tmp-<pid>`) under a results folder. */
export function removeTempFiles(dir: string, depth = 3): number {
  let n = 0;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const full = join(dir, e.name);
    if (e.isFile() && /\.tmp-\d+$/.test(e.name)) {
      rmSync(full, { force: true });
      n++;
    } else if (depth > 0 && e.isDirectory()) n += removeTempFiles(full, depth - 1);
  }
  return n;
}
