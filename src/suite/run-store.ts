import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  readdirSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  readSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeSync,
} from "node:fs";
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { walkTree } from "../util/runfiles.js";
import { syncFile, syncFolder } from "../util/atomic.js";

/**
 * A folder of finished runs outside the checkout, keyed by run id and identity, so that a re-run
 * job on the same (self-hosted) runner finds them after `actions/checkout` cleaned the workspace.
 * The key is the identity: an entry stands only for a run with exactly the same inputs.
 *
 * Copies are bounded and sparse-aware: a run whose files add up to more than `maxBytes` (apparent
 * sizes, holes counted: that is what a copy has to read) is not stored at all, never stored in
 * part; within the bound, runs of zeros are written as holes, so a sparse file stays sparse.
 */
export const storeKey = (runId: string, identity: string) => `${runId}-${identity}`;

/** Default bound on one run's copy: the default quotas (3 × 1 GiB), run.log (256 MiB) and room. */
export const MAX_STORED_RUN_BYTES = 4 * 1024 ** 3;
/** Most files, folders and links in one stored run. */
export const MAX_STORED_RUN_ENTRIES = 100_000;

export interface StoreOptions {
  /** Most bytes (apparent sizes) of one run's copy; default MAX_STORED_RUN_BYTES. */
  maxBytes?: number;
  maxEntries?: number;
}

const BLOCK = 64 * 1024;
const CHUNK = 16 * BLOCK;
const ZEROS = Buffer.alloc(BLOCK);
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * What a copy of `from` will take, or why it must not be copied: apparent bytes of its regular
 * files (links and special files count nothing), entries; never follows a link.
 */
function plannedCopy(from: string, o: Required<StoreOptions>): string | null {
  let bytes = 0;
  let entries = 0;
  let problem: string | null = null;
  walkTree(from, (_full, rel, st) => {
    if (++entries > o.maxEntries) problem = `more than ${o.maxEntries} files and folders`;
    else if (st?.isFile() && (bytes += st.size) > o.maxBytes)
      problem = `more than ${o.maxBytes} bytes (at ${rel})`;
    return problem ? "stop" : undefined;
  });
  return problem;
}

/**
 * Copies folders, regular files (holes kept as holes) and links (as links, never followed);
 * anything else is left out. `budget` bounds the bytes read in all, even if files grow meanwhile.
 */
function copyTree(from: string, to: string, o: Required<StoreOptions>): void {
  const problem = plannedCopy(from, o);
  if (problem) throw new Error(`${from} holds ${problem}: not copied`);
  const budget = { left: o.maxBytes };
  mkdirSync(to, { mode: 0o700 });
  walkTree(from, (full, rel, st) => {
    const dest = join(to, rel);
    if (!st) return "skip";
    if (st.isDirectory()) mkdirSync(dest, { mode: 0o700 });
    else if (st.isSymbolicLink()) symlinkSync(readlinkSync(full), dest);
    else if (st.isFile()) copySparse(full, dest, budget);
  });
}

/**
 * Copies one regular file without following a link, writing all-zero blocks as holes. A large
 * sparse file goes to GNU cp first (it finds the data with SEEK_DATA instead of reading every
 * hole); where that fails, the blocks are read here.
 */
export function copySparse(src: string, dest: string, budget: { left: number }): void {
  const st = lstatSync(src);
  if (st.isFile() && st.size >= CP_MIN_BYTES && st.blocks * 512 < st.size && cpSparse(src, dest, budget))
    return;
  const input = openSync(src, constants.O_RDONLY | NOFOLLOW | (constants.O_NONBLOCK ?? 0));
  let output = -1;
  try {
    const st = fstatSync(input);
    if (!st.isFile()) throw new Error(`${src} is not a regular file`);
    output = openSync(
      dest,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW,
      st.mode & 0o777,
    );
    const buf = Buffer.allocUnsafe(CHUNK);
    let pos = 0;
    for (;;) {
      const n = readSync(input, buf, 0, CHUNK, pos);
      if (n === 0) break;
      budget.left -= n;
      if (budget.left < 0) throw new Error(`${src} grew past the copy's bound`);
      for (let off = 0; off < n; off += BLOCK) {
        const block = buf.subarray(off, Math.min(off + BLOCK, n));
        if (block.equals(ZEROS.subarray(0, block.length))) continue; // a hole
        for (let w = 0; w < block.length;) w += writeSync(output, block, w, block.length - w, pos + off + w);
      }
      pos += n;
    }
    ftruncateSync(output, pos); // trailing holes
  } finally {
    closeSync(input);
    if (output >= 0) closeSync(output);
  }
}

/** Sparse files at least this large are handed to cp. */
const CP_MIN_BYTES = 16 * 1024 * 1024;

/** `cp --sparse=always` (GNU coreutils); true when it made a regular file within the budget. */
function cpSparse(src: string, dest: string, budget: { left: number }): boolean {
  try {
    execFileSync("cp", ["--sparse=always", "--no-dereference", "--no-preserve=all", "--", src, dest], {
      stdio: "ignore",
      timeout: 60_000,
    });
    const out = lstatSync(dest);
    if (!out.isFile()) throw new Error(`${dest} is not a regular file`);
    budget.left -= out.size;
    if (budget.left < 0) throw new Error(`${src} grew past the copy's bound`);
    return true;
  } catch (e) {
    rmSync(dest, { force: true });
    if ((e as Error).message.includes("bound")) throw e;
    return false;
  }
}

/** Whether a process with this id exists (a copy in progress is never removed). */
function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

const bounds = (o: StoreOptions): Required<StoreOptions> => ({
  maxBytes: o.maxBytes ?? MAX_STORED_RUN_BYTES,
  maxEntries: o.maxEntries ?? MAX_STORED_RUN_ENTRIES,
});

/** Copies a stored run into runDir; false when the store has none for this identity. */
export function fetchRun(
  storeDir: string,
  runId: string,
  identity: string,
  runDir: string,
  opts: StoreOptions = {},
): boolean {
  const entry = join(storeDir, storeKey(runId, identity));
  if (!existsSync(join(entry, "run.json"))) return false;
  rmSync(runDir, { recursive: true, force: true });
  mkdirSync(dirname(runDir), { recursive: true });
  try {
    copyTree(entry, runDir, bounds(opts));
  } catch (e) {
    rmSync(runDir, { recursive: true, force: true }); // never half a run
    throw e;
  }
  return true;
}

/**
 * Saves a finished run's folder under its identity (replacing an older copy). Throws, storing
 * nothing, when the run is past the bounds.
 */
export function putRun(
  storeDir: string,
  runId: string,
  identity: string,
  runDir: string,
  opts: StoreOptions = {},
): void {
  mkdirSync(storeDir, { recursive: true });
  const entry = join(storeDir, storeKey(runId, identity));
  const tmp = `${entry}.tmp-${process.pid}-${Date.now().toString(36)}`;
  if (!lstatSync(runDir, { throwIfNoEntry: false })?.isDirectory())
    throw new Error(`${runDir} is not a folder`);
  // Copies a process killed mid-copy left of this entry: never an entry (no rename), only litter.
  const name = storeKey(runId, identity);
  for (const old of readdirSync(storeDir)) {
    const pid = old.startsWith(`${name}.tmp-`) ? Number(old.slice(name.length + 5).split("-")[0]) : NaN;
    if (Number.isInteger(pid) && !alive(pid)) rmSync(join(storeDir, old), { recursive: true, force: true });
  }
  try {
    copyTree(runDir, tmp, bounds(opts));
    // The record and its seal reach the disk before the entry's name does.
    for (const f of ["run.json", "run.seal"]) if (existsSync(join(tmp, f))) syncFile(join(tmp, f));
    syncFolder(tmp);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  // Replaced in two steps; a kill between them leaves no entry (the run is executed again), never half.
  rmSync(entry, { recursive: true, force: true });
  renameSync(tmp, entry);
  syncFolder(storeDir);
}
