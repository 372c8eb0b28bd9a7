// Records reach the disk whole or not at all (docs/reliability.md). Every record Medalist writes
// (run.json, run.seal, results.json, the history, report files, comment and plan files) goes through
// writeAtomic: a temporary file in the same folder, fsync, rename over the record, fsync of the folder.
// A process killed at any point leaves the old record or the new one, never half of one; a failed
// write (a full or read-only disk) removes its temporary file and says which folder failed and why.
import {
  closeSync,
  constants,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statfsSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** Error codes that mean the disk cannot take the write: full, over quota, or read-only. */
const STORAGE_CODES = new Set(["ENOSPC", "EDQUOT", "EROFS"]);

/** A write that failed because the disk is full, over quota or read-only. */
export function isStorageFault(e: unknown): boolean {
  return STORAGE_CODES.has((e as NodeJS.ErrnoException | null)?.code ?? "");
}

/** A record that could not be written: which file, the system's code (ENOSPC, EROFS, …). */
export class RecordWriteError extends Error {
  readonly code: string | undefined;
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    const code = (cause as NodeJS.ErrnoException | null)?.code;
    super(`cannot write ${file}: ${code ?? (cause as Error).message}`);
    this.code = code;
    this.name = "RecordWriteError";
  }
}

/** Bytes an unprivileged writer may still use on the file system holding `dir`; null when unknown. */
export function freeBytes(dir: string): number | null {
  try {
    const s = statfsSync(dir);
    return Number(s.bavail) * Number(s.bsize);
  } catch {
    return null;
  }
}

const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];

/** 1536 → "1.5 KiB". */
export function formatBytes(n: number): string {
  let i = 0;
  let x = n;
  while (x >= 1024 && i < units.length - 1) {
    x /= 1024;
    i++;
  }
  return i === 0 ? `${n} bytes` : `${x.toFixed(1)} ${units[i]}`;
}

/**
 * One sentence for a write the disk refused: "the results folder /r is read-only (EROFS; 0 bytes
 * free) while writing /r/runs/a/run.json". `what` names the folder ("the results folder").
 */
export function storageSentence(what: string, dir: string, e: unknown): string {
  const code = (e as NodeJS.ErrnoException | null)?.code ?? "error";
  const free = freeBytes(dir);
  const state = code === "EROFS" ? "read-only" : code === "EDQUOT" ? "over its quota" : "full";
  const file = e instanceof RecordWriteError ? ` while writing ${e.file}` : "";
  return `${what} ${dir} is ${state} (${code}${free === null ? "" : `; ${formatBytes(free)} free`})${file}`;
}

/** fsync of a folder, so a rename in it survives a power loss; file systems that refuse are skipped. */
export function syncFolder(dir: string): void {
  let fd = -1;
  try {
    fd = openSync(dir, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0));
    fsyncSync(fd);
  } catch {
    // Some file systems cannot fsync a folder (EINVAL): the rename stands as the kernel keeps it.
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

/** fsync of one file by name (a record copied by other means, e.g. into the run store). */
export function syncFile(file: string): void {
  const fd = openSync(file, constants.O_RDONLY | NOFOLLOW);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `path` atomically: `<path>.tmp-<pid>` in the same folder (never a link followed), fsync,
 * rename, fsync of the folder. On failure the temporary file is removed and a RecordWriteError
 * (keeping the system's code) is thrown; the old record, if any, is untouched.
 */
export function writeAtomic(path: string, data: string | Buffer, opts: { mode?: number } = {}): void {
  const dir = dirname(path);
  const tmp = `${path}.tmp-${process.pid}`;
  let fd = -1;
  try {
    mkdirSync(dir, { recursive: true });
    fd = openSync(
      tmp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | NOFOLLOW,
      opts.mode ?? 0o644,
    );
    const buf = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    for (let off = 0; off < buf.length;) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
    closeSync(fd);
    fd = -1;
    renameSync(tmp, path);
  } catch (e) {
    if (fd >= 0) closeSync(fd);
    try {
      rmSync(tmp, { force: true });
    } catch {
      // A read-only file system keeps nothing new anyway.
    }
    throw new RecordWriteError(path, e);
  }
  syncFolder(dir);
}
