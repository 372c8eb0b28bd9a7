// Folder quotas the kernel enforces: each writable folder of a run (submission/, logs/, code/) is
// its own ext4 filesystem of the quota's size, loop-mounted at the folder's path on the runner
// before the container starts, so a writer at full speed gets "no space left" at the quota instead
// of outrunning a poll. After the container ends, what the agent left is copied back to a plain
// folder at the same path (links kept as links, special files dropped, no more apparent bytes
// than the quota) and the filesystem is removed. Needs root and `mount -o loop` (mkfs.ext4);
// where either is missing the suite says so once and the poll (execute/quota.ts) is the bound.
import { execFile } from "node:child_process";
import {
  chmodSync,
  closeSync,
  copyFileSync,
  linkSync,
  constants,
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  readlinkSync,
  renameSync,
  rmSync,
  rmdirSync,
  statfsSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const MiB = 1024 ** 2;

/** The smallest filesystem made (a smaller quota is still checked by the poll). */
export const MIN_FS_BYTES = 4 * MiB;

/** A folder with its own filesystem while the agent runs. */
export interface MountedFolder {
  /** The run's folder (the mount point). */
  dir: string;
  /** The quota: the filesystem's size. */
  bytes: number;
  /** Copies what the agent left back to a plain folder and removes the filesystem. Idempotent. */
  unmount(): Promise<CopyReport>;
}

/** What the copy back left out. */
export interface CopyReport {
  /** Files cut or left out because the folder went past the quota (holes count, as the final check counts). */
  overQuota: number;
  /** FIFOs, sockets and device nodes left out (relative paths). */
  special: string[];
  /** Bytes the copy takes as the quota counts them (4 KiB blocks, holes included). */
  apparent: number;
  /** Set when the filesystem could not be unmounted: the folder stays mounted, nothing is lost. */
  stuck?: string;
}

/** Why folder filesystems cannot be made on this runner, or null when they can (tried once). */
let probed: Promise<string | null> | null = null;

export function folderFsProblem(): Promise<string | null> {
  probed ??= probe();
  return probed;
}

async function probe(): Promise<string | null> {
  if (process.platform !== "linux") return "not Linux";
  if (process.getuid?.() !== 0) return "the runner is not root (mount needs it)";
  const root = mkdtempSync(path.join(os.tmpdir(), "medalist-fsprobe-"));
  try {
    const dir = path.join(root, "d");
    mkdirSync(dir);
    const m = await mountFolder(dir, MIN_FS_BYTES, "");
    writeFileSync(path.join(dir, "x"), "x");
    const r = await m.unmount();
    if (r.stuck) return r.stuck;
    return null;
  } catch (e) {
    return firstLine((e as Error).message);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const firstLine = (s: string) => s.split("\n").find((l) => l.trim() !== "") ?? s;

/**
 * The filesystem's size for a quota: the quota plus room for ext4's own tables and one more MiB,
 * so that a full filesystem means the agent is past its quota (the poll and the final check say by
 * how much; the copy back keeps no more than the quota).
 */
export function fsBytes(quota: number): number {
  return Math.max(MIN_FS_BYTES, quota + Math.max(2 * MiB, Math.ceil(quota / 16 / 4096) * 4096));
}

/** Inodes: one per 8 KiB, at least 1024, at most 100 000 (what the poll counts too). */
const inodes = (bytes: number) => Math.min(100_000, Math.max(1024, Math.floor(bytes / 8192)));

/**
 * Puts an ext4 filesystem of `bytes` at `dir` (an existing folder; what it holds is carried
 * into the filesystem), owned by `user` ("uid:gid"; "" keeps root) with mode 0777.
 */
export async function mountFolder(dir: string, bytes: number, user: string): Promise<MountedFolder> {
  const { image, cleanupImage } = await makeFilesystem(fsBytes(bytes), user);
  const before = `${dir}.medalist-pre`;
  renameSync(dir, before);
  mkdirSync(dir, { mode: 0o777 });
  try {
    await run("mount", ["-o", "loop,nosuid,nodev", image, dir]);
  } catch (e) {
    rmdirSync(dir);
    renameSync(before, dir);
    cleanupImage();
    throw new Error(`mount -o loop failed: ${firstLine((e as Error).message)}`);
  }
  rmSync(path.join(dir, "lost+found"), { recursive: true, force: true });
  chmodSync(dir, 0o777);
  // What an earlier attempt left (logs/ and code/ stay on a retry) goes into the filesystem.
  copyTree(before, dir, Infinity);
  rmSync(before, { recursive: true, force: true });
  let done: Promise<CopyReport> | null = null;
  return {
    dir,
    bytes,
    unmount: () => (done ??= copyBack(dir, image, bytes, cleanupImage)),
  };
}

/** A sparse image file of `size` bytes with an empty ext4 filesystem, in its own temporary folder. */
async function makeFilesystem(
  size: number,
  user: string,
  inodeCount = inodes(size),
): Promise<{ work: string; image: string; cleanupImage: () => void }> {
  const work = mkdtempSync(path.join(os.tmpdir(), SCRATCH_PREFIX));
  const image = path.join(work, "fs.img");
  const cleanupImage = () => rmSync(work, { recursive: true, force: true });
  const owner = user === "" ? "0:0" : user.includes(":") ? user : `${user}:${user}`;
  try {
    writeFileSync(image, "");
    await run("truncate", ["-s", String(size), image]);
    await run("mkfs.ext4", [
      "-q",
      "-F",
      "-O",
      "^has_journal",
      "-m",
      "0",
      "-N",
      String(inodeCount),
      "-E",
      `root_owner=${owner}`,
      image,
    ]);
  } catch (e) {
    cleanupImage();
    throw new Error(`mkfs.ext4 failed: ${firstLine((e as Error).message)}`);
  }
  return { work, image, cleanupImage };
}

/** The name every filesystem's temporary folder starts with (in os.tmpdir()). */
export const SCRATCH_PREFIX = "medalist-fs-";

/** A filesystem whose content is thrown away with it (the writable places of a read-only root). */
export interface ScratchFs {
  /** Its folder on the runner (the mount point), or a plain folder where none could be mounted. */
  dir: string;
  /** The folder that holds it and its image: what removeScratch(work) removes. */
  work: string;
  /** Unmounts it and removes its folder and image; null when done, else why it stays. Idempotent. */
  remove(): Promise<string | null>;
}

/**
 * An empty ext4 filesystem of `bytes` (plus ext4's tables) mounted at `<work>/mnt`; with `mount`
 * false a plain folder there instead (unbounded: the caller says so).
 */
export async function scratchFs(bytes: number, mount = true): Promise<ScratchFs> {
  let work: string;
  let image: string | null = null;
  // One inode per 16 KiB (at most 4 M): a conda environment or pip cache holds many small files.
  const count = Math.min(4 * 1024 ** 2, Math.max(1024, Math.floor(fsBytes(bytes) / 16384)));
  if (mount) ({ work, image } = await makeFilesystem(fsBytes(bytes), "", count));
  else work = mkdtempSync(path.join(os.tmpdir(), SCRATCH_PREFIX));
  const dir = path.join(work, "mnt");
  mkdirSync(dir, { mode: 0o755 });
  if (image !== null) {
    try {
      await run("mount", ["-o", "loop,nosuid,nodev", image, dir]);
    } catch (e) {
      rmSync(work, { recursive: true, force: true });
      throw new Error(`mount -o loop failed: ${firstLine((e as Error).message)}`);
    }
    rmSync(path.join(dir, "lost+found"), { recursive: true, force: true });
  }
  let done: Promise<string | null> | null = null;
  return { dir, work, remove: () => (done ??= removeScratch(work)) };
}

/** Unmounts `<work>/mnt` when mounted and removes `work`; null when done, else why it stays. */
export async function removeScratch(work: string): Promise<string | null> {
  const dir = path.join(work, "mnt");
  if (isMountPoint(dir)) {
    const stuck = await unmount(dir);
    if (stuck) return stuck;
  }
  rmSync(work, { recursive: true, force: true });
  return null;
}

/** Unmounts `dir`, lazily when it is busy; null when done, else why it stays mounted. */
async function unmount(dir: string): Promise<string | null> {
  try {
    await run("umount", [dir]);
    return null;
  } catch {
    try {
      await run("umount", ["-l", dir]);
      return null;
    } catch (e) {
      return `could not unmount ${dir}: ${firstLine((e as Error).message)}`;
    }
  }
}

/** Whether `dir` is on another device than its parent (a mount point); false when missing. */
function isMountPoint(dir: string): boolean {
  try {
    return lstatSync(dir).dev !== lstatSync(path.dirname(dir)).dev;
  } catch {
    return false;
  }
}

async function copyBack(
  dir: string,
  image: string,
  bytes: number,
  cleanupImage: () => void,
): Promise<CopyReport> {
  const out = `${dir}.medalist-out`;
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { mode: 0o777 });
  const st = lstatSync(dir);
  const report = copyTree(dir, out, bytes);
  const stuck = await unmount(dir);
  if (stuck) {
    rmSync(out, { recursive: true, force: true });
    return { ...report, stuck };
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(out, dir);
  chmodSync(dir, 0o777);
  if (process.getuid?.() === 0) lchownSync(dir, st.uid, st.gid);
  cleanupImage();
  return report;
}

/** Bytes a file or folder of `size` takes on the runner's disk as the quota check counts it (4 KiB blocks). */
const blocks = (size: number) => Math.max(4096, Math.ceil(size / 4096) * 4096);

/**
 * Copies `from` into `to` without following links: folders, regular files (owner and mode kept,
 * hard links kept) and links as links; FIFOs, sockets and device nodes are left out (listed). Past `maxBytes`
 * (counted in 4 KiB blocks, holes included, the folders themselves too) a file is cut to what
 * fits and later ones are left out, each counted.
 */
export function copyTree(from: string, to: string, maxBytes: number): CopyReport {
  const r: CopyReport = { overQuota: 0, apparent: 4096, special: [] };
  const root = process.getuid?.() === 0;
  // Hard links stay hard links (the read-back refuses a second name for a submission as before).
  const linked = new Map<number, string>();
  const walk = (src: string, dst: string, rel: string) => {
    for (const name of readdirSync(src)) {
      const s = path.join(src, name);
      const d = path.join(dst, name);
      const st = lstatSync(s);
      const first = st.isFile() && st.nlink > 1 ? linked.get(st.ino) : undefined;
      if (first !== undefined) {
        linkSync(first, d);
        continue;
      }
      if (st.isDirectory()) {
        if (r.apparent + 4096 > maxBytes) {
          r.overQuota++;
          continue;
        }
        r.apparent += 4096;
        mkdirSync(d, { mode: 0o700 });
        walk(s, d, path.join(rel, name));
        if (root) lchownSync(d, st.uid, st.gid);
        chmodSync(d, st.mode & 0o7777);
        continue;
      } else if (st.isFile()) {
        const room = Math.floor((maxBytes - r.apparent) / 4096) * 4096;
        if (blocks(st.size) > room) {
          // Past the quota: the file's first bytes that fit, the rest left out (counted).
          r.overQuota++;
          if (room <= 0) continue;
          copyPrefix(s, d, room);
          r.apparent += room;
        } else {
          r.apparent += blocks(st.size);
          copyFileSync(s, d, constants.COPYFILE_EXCL);
        }
        if (st.nlink > 1) linked.set(st.ino, d);
        // Owner first (a chown clears setuid bits), then the mode as the agent left it: sanitizeRun
        // clears setuid/setgid bits next and says so, as for any executor.
        if (root) lchownSync(d, st.uid, st.gid);
        chmodSync(d, st.mode & 0o7777);
        continue;
      } else if (st.isSymbolicLink()) {
        if (r.apparent + 4096 > maxBytes) {
          r.overQuota++;
          continue;
        }
        r.apparent += 4096;
        symlinkSync(readlinkSync(s), d);
        if (root) lchownSync(d, st.uid, st.gid);
      } else r.special.push(path.join(rel, name));
    }
  };
  walk(from, to, "");
  return r;
}

/** The first `n` bytes of `src` into a new file `dst`. */
function copyPrefix(src: string, dst: string, n: number): void {
  const from = openSync(src, constants.O_RDONLY | constants.O_NOFOLLOW);
  const to = openSync(dst, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    const buf = Buffer.alloc(Math.min(n, MiB) || 1);
    for (let done = 0; done < n;) {
      const got = readSync(from, buf, 0, Math.min(buf.length, n - done), done);
      if (got <= 0) break;
      writeSync(to, buf, 0, got);
      done += got;
    }
  } finally {
    closeSync(from);
    closeSync(to);
  }
}

/** Why a mounted folder counts as full ("the filesystem is full"), or null. */
export function fullness(dir: string): string | null {
  let s: ReturnType<typeof statfsSync>;
  try {
    s = statfsSync(dir);
  } catch {
    return null;
  }
  // Under a MiB free: a 1 MiB write was refused; the filesystem holds more than the quota.
  if (s.bavail * s.bsize < MiB) return "its filesystem is full";
  if (s.ffree === 0) return `it holds as many files as its filesystem allows (${s.files})`;
  return null;
}

/** The run folders that get a filesystem of their own. */
const MOUNTED_FOLDERS = new Set(["submission", "logs", "code"]);

/**
 * Run-folder filesystems left mounted under `root` by a process killed while its agents ran (kill -9
 * skips the unmount), longest path first (a nested one before its parent), read from a mountinfo text. The caller holds the results
 * folder's lock, so no live process of this suite owns them.
 */
export function leftoverMounts(root: string, mountinfo: string): string[] {
  return leftovers(root, mountinfo).map((m) => m.dir);
}

/** leftoverMounts with each one's source device (`/dev/loopN`). */
function leftovers(root: string, mountinfo: string): { dir: string; source: string }[] {
  const prefix = root.endsWith("/") ? root : `${root}/`;
  const out: { dir: string; source: string }[] = [];
  for (const line of mountinfo.split("\n")) {
    const f = line.split(" ");
    const sep = f.indexOf("-", 6);
    if (f.length < 7 || sep < 0) continue;
    const at = f[4].replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
    if (at.startsWith(prefix) && f[sep + 1] === "ext4" && MOUNTED_FOLDERS.has(path.basename(at)))
      out.push({ dir: at, source: f[sep + 2] ?? "" });
  }
  return out.sort((a, b) => b.dir.length - a.dir.length);
}

/**
 * The folder of a loop device's image file when it is one of Medalist's (`<tmp>/medalist-fs-…/fs.img`),
 * else null: only such a folder is ever removed.
 */
export function imageFolderOf(source: string, tmp = os.tmpdir()): string | null {
  const m = /^\/dev\/(loop\d+)$/.exec(source);
  if (!m) return null;
  let file: string;
  try {
    file = readFileSync(`/sys/block/${m[1]}/loop/backing_file`, "utf8").trim();
    tmp = realpathSync(tmp);
  } catch {
    return null;
  }
  const dir = path.dirname(file);
  const ok =
    path.basename(file) === "fs.img" &&
    path.dirname(dir) === tmp &&
    path.basename(dir).startsWith(SCRATCH_PREFIX);
  return ok ? dir : null;
}

/** Unmounts the filesystems `leftoverMounts` finds under `root`; the mount points unmounted. */
export async function unmountLeftovers(root: string): Promise<string[]> {
  let real: string;
  let info: string;
  try {
    real = realpathSync(root);
    info = readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    return [];
  }
  const done: string[] = [];
  for (const { dir, source } of leftovers(real, info)) {
    const images = imageFolderOf(source);
    // A container of the dead process may still hold it: detach it lazily then.
    const ok = (await unmount(dir)) === null;
    if (!ok) continue;
    done.push(dir);
    // The image goes too (a lazily detached loop device keeps it until the last user leaves).
    if (images) rmSync(images, { recursive: true, force: true });
  }
  return done;
}
