// `medalist run` killed (kill -9) while Docker agents ran leaves each run's folder filesystems
// (execute/docker/folder-fs.ts) mounted: the resume then failed with "unexpected error: EBUSY ...
// rmdir .../submission" (found by `npm run bench -- faults`). The Docker backend's sweep, which runs
// under the results folder's lock before the suite starts, unmounts them and says so.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dockerBackend } from "../../src/execute/docker/index.js";
import {
  folderFsProblem,
  imageFolderOf,
  leftoverMounts,
  mountFolder,
} from "../../src/execute/docker/folder-fs.js";

describe("run folder filesystems left by a killed process", () => {
  it("are found under the results folder only, longest path first, names unescaped", () => {
    const info = [
      "36 25 7:3 / /r/out/runs/a/submission rw,nosuid,nodev - ext4 /dev/loop3 rw",
      "37 25 7:4 / /r/out/runs/a\\040b/logs rw,nosuid,nodev - ext4 /dev/loop4 rw",
      "38 25 7:5 / /r/other/runs/a/submission rw - ext4 /dev/loop5 rw",
      "39 25 0:50 / /r/out/runs/a/code rw - tmpfs tmpfs rw",
      "40 25 7:6 / /r/out/data rw - ext4 /dev/loop6 rw",
    ].join("\n");
    expect(leftoverMounts("/r/out", info)).toEqual(["/r/out/runs/a/submission", "/r/out/runs/a b/logs"]);
  });

  it("remove only an image folder of Medalist's own in the temp folder", () => {
    expect(imageFolderOf("/dev/sda1")).toBeNull();
    expect(imageFolderOf("tmpfs")).toBeNull();
    expect(imageFolderOf("/dev/loop999999")).toBeNull();
  });

  it("are unmounted by the Docker sweep before the suite starts, said in one line", async (ctx) => {
    const problem = await folderFsProblem();
    if (problem) ctx.skip();
    const out = mkdtempSync(join(tmpdir(), "medalist-leftover-"));
    const dir = join(out, "runs", "toy.s0", "submission");
    mkdirSync(dir, { recursive: true });
    // Mounted as an attempt mounts it, then never unmounted (its process was killed).
    await mountFolder(dir, 8 * 2 ** 20, "");
    const mounted = () => readFileSync("/proc/self/mountinfo", "utf8").includes(` ${dir} `);
    expect(mounted()).toBe(true);
    const line = readFileSync("/proc/self/mountinfo", "utf8")
      .split("\n")
      .find((l) => l.includes(` ${dir} `))!;
    const images = imageFolderOf(line.split(" - ")[1]!.split(" ")[1]!);
    expect(images && existsSync(join(images, "fs.img"))).toBe(true);
    const lines: string[] = [];
    await dockerBackend.sweep({ config: {} as never, log: (l) => lines.push(l), outDir: out });
    expect(mounted()).toBe(false);
    // Its image file goes with it (a killed process never removes it).
    expect(existsSync(images!)).toBe(false);
    expect(lines.join("\n")).toContain(
      `unmounted 1 run folder filesystem(s) left by an earlier suite: ${dir}`,
    );
    rmSync(out, { recursive: true });
  }, 120_000);
});
