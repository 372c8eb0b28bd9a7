// The copy back of a run's folder filesystem (docker/folder-fs.ts): nothing followed, no more than
// the quota lands on the runner's disk (holes count), links and hard links kept, special files listed.
import { execFileSync } from "node:child_process";
import {
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { copyTree, fsBytes } from "../../src/execute/docker/folder-fs.js";
import { treeUsage } from "../../src/execute/quota.js";

const MiB = 1024 ** 2;

describe("folder filesystems: the copy back", () => {
  it("keeps no more than the quota (a sparse file is cut), links as links, hard links, and lists FIFOs", () => {
    const from = mkdtempSync(join(tmpdir(), "medalist-copy-from-"));
    const to = mkdtempSync(join(tmpdir(), "medalist-copy-to-"));
    writeFileSync(join(from, "a.txt"), "hello");
    linkSync(join(from, "a.txt"), join(from, "b.txt"));
    symlinkSync("/etc/passwd", join(from, "link"));
    mkdirSync(join(from, "sub"));
    execFileSync("mkfifo", [join(from, "sub", "pipe")]);
    // 1 TiB of holes: a copy that read it would write a terabyte of zeros.
    writeFileSync(join(from, "sub", "sparse"), "");
    truncateSync(join(from, "sub", "sparse"), 1024 ** 4);
    const r = copyTree(from, to, 4 * MiB);
    expect(r.special).toEqual(["sub/pipe"]);
    expect(r.overQuota).toBe(1);
    expect(readFileSync(join(to, "a.txt"), "utf8")).toBe("hello");
    expect(lstatSync(join(to, "b.txt")).ino).toBe(lstatSync(join(to, "a.txt")).ino);
    expect(readlinkSync(join(to, "link"))).toBe("/etc/passwd");
    expect(lstatSync(join(to, "sub", "pipe"), { throwIfNoEntry: false })).toBeUndefined();
    const u = treeUsage(to);
    // What the final quota check counts on the runner's disk: within the quota.
    expect(Math.max(u.allocated, u.apparent)).toBeLessThanOrEqual(4 * MiB);
    expect(lstatSync(join(to, "sub", "sparse")).size).toBeLessThan(4 * MiB);
  });

  it("sizes each filesystem at the quota plus room for ext4's tables", () => {
    expect(fsBytes(16 * MiB)).toBe(18 * MiB);
    expect(fsBytes(1024 * MiB)).toBe(1088 * MiB);
    expect(fsBytes(1024)).toBe(4 * MiB);
  });
});
