import { execFileSync } from "node:child_process";
import {
  chmodSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  listRegularFiles,
  readInside,
  sanitizeTree,
  snapshotFile,
  treeBytes,
} from "../../src/util/runfiles.js";

const fresh = () => {
  const root = mkdtempSync(join(tmpdir(), "medalist-runfiles-"));
  const dir = join(root, "run");
  mkdirSync(dir);
  writeFileSync(join(root, "answers.csv"), "id,y\n1,SECRET\n");
  return { root, dir };
};

describe("reading back a run folder without following anything", () => {
  it("reads a plain file, bounded", () => {
    const { dir } = fresh();
    writeFileSync(join(dir, "usage.json"), '{"tokens": 5}');
    const r = readInside(dir, "usage.json", 100);
    expect(r.ok && r.data.toString()).toBe('{"tokens": 5}');
    const big = readInside(dir, "usage.json", 4);
    expect(big.ok).toBe(false);
    expect(!big.ok && big.problem).toMatch(/more than the 4-byte limit/);
  });

  it("refuses a symbolic link, a link in a parent folder, a hard link, a FIFO, a folder, .. and absolute names", () => {
    const { root, dir } = fresh();
    symlinkSync(join(root, "answers.csv"), join(dir, "link.csv"));
    symlinkSync(root, join(dir, "up"));
    linkSync(join(root, "answers.csv"), join(dir, "hard.csv"));
    execFileSync("mkfifo", [join(dir, "fifo.csv")]);
    mkdirSync(join(dir, "folder.csv"));
    const why = (rel: string) => {
      const r = readInside(dir, rel, 1e6);
      expect(r.ok).toBe(false);
      return r.ok ? "" : r.problem;
    };
    expect(why("link.csv")).toMatch(/symbolic link/);
    expect(why("up/answers.csv")).toMatch(/symbolic link, not a folder/);
    expect(why("hard.csv")).toMatch(/hard link/);
    expect(why("fifo.csv")).toMatch(/FIFO/); // and it returned: no blocking open
    expect(why("folder.csv")).toMatch(/directory/);
    expect(why("../answers.csv")).toMatch(/not a plain relative path/);
    expect(why(join(root, "answers.csv"))).toMatch(/not a plain relative path/);
    const snap = snapshotFile(join(dir, "link.csv"), 1e6);
    expect(snap.ok).toBe(false);
  });

  it("refuses a device node (made here when the test runs as root)", () => {
    if (process.getuid?.() !== 0) return void console.warn("[runfiles] not root: mknod skipped");
    const { dir } = fresh();
    execFileSync("mknod", [join(dir, "dev.csv"), "c", "1", "3"]);
    const r = readInside(dir, "dev.csv", 1e6);
    expect(!r.ok && r.problem).toMatch(/device node/);
  });

  it("sanitizes: device nodes, FIFOs and sockets removed, setuid/setgid cleared, links left unfollowed", () => {
    const { root, dir } = fresh();
    mkdirSync(join(dir, "sub"));
    writeFileSync(join(dir, "sub", "esc"), "#!/bin/sh\n");
    chmodSync(join(dir, "sub", "esc"), 0o6755);
    execFileSync("mkfifo", [join(dir, "sub", "pipe")]);
    if (process.getuid?.() === 0) execFileSync("mknod", [join(dir, "disk"), "b", "8", "0"]);
    symlinkSync(join(root, "answers.csv"), join(dir, "link"));
    chmodSync(join(root, "answers.csv"), 0o4644); // outside: must stay untouched
    const r = sanitizeTree(dir);
    expect(lstatSync(join(dir, "sub", "esc")).mode & 0o7777).toBe(0o755);
    expect(readdirSync(join(dir, "sub"))).toEqual(["esc"]);
    expect(r.removed).toContain("sub/pipe");
    if (process.getuid?.() === 0) expect(r.removed).toContain("disk");
    expect(lstatSync(join(root, "answers.csv")).mode & 0o7777).toBe(0o4644);
    expect(lstatSync(join(dir, "link")).isSymbolicLink()).toBe(true);
  });

  it("a run folder replaced by a link is removed, never followed (sanitize, upload list, quota)", () => {
    const { root, dir } = fresh();
    mkdirSync(join(root, "outside"));
    writeFileSync(join(root, "outside", "keep"), "x");
    chmodSync(join(root, "outside", "keep"), 0o4755);
    symlinkSync(join(root, "outside"), join(dir, "code"));
    expect(listRegularFiles(join(dir, "code"))).toEqual([]);
    expect(treeBytes(join(dir, "code"))).toBe(0);
    expect(sanitizeTree(join(dir, "code")).removed).toEqual(["."]);
    expect(lstatSync(join(root, "outside", "keep")).mode & 0o7777).toBe(0o4755);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("lists only regular, singly linked files for upload; counts sparse files at their size", () => {
    const { root, dir } = fresh();
    writeFileSync(join(dir, "a.txt"), "a");
    symlinkSync(join(root, "answers.csv"), join(dir, "b.txt"));
    linkSync(join(root, "answers.csv"), join(dir, "c.txt"));
    expect(listRegularFiles(dir)).toEqual([join(dir, "a.txt")]);
    execFileSync("truncate", ["-s", "1G", join(dir, "sparse")]);
    expect(treeBytes(dir)).toBeGreaterThanOrEqual(1024 ** 3);
    for (let i = 0; i < 20; i++) writeFileSync(join(dir, `f${i}`), "");
    expect(treeBytes(dir, Infinity, 10)).toBe(Infinity); // too many entries to count: over quota
  });
});
