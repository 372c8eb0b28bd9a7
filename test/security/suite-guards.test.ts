import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { validateConfig } from "../../src/config/load.js";
import { runSuite } from "../../src/suite/run.js";
import { LOCK_FILE, lockResultsDir } from "../../src/suite/lock.js";
import { RESERVE_FILE } from "../../src/suite/disk.js";
import { requireDocker, TEST_IMAGE } from "../docker/helpers.js";

const root = resolve(import.meta.dirname, "..", "..");
const dataDir = mkdtempSync(join(tmpdir(), "medalist-guards-data-"));

function localConfig(command: string, seeds = 2) {
  return validateConfig(
    {
      name: "guards",
      competitions: { include: ["toy-churn"] },
      seeds,
      agent: { command },
      limits: { time: 60 },
      dataDir,
    },
    "test",
  );
}

describe("one suite per results folder", () => {
  it("a second concurrent run on the same folder refuses with a clear line; nothing is graded twice", async () => {
    const outDir = mkdtempSync(join(tmpdir(), "medalist-lock-"));
    const config = localConfig(
      'sleep 1; cp "$DATA_DIR/sample_submission.csv" "$SUBMISSION_DIR/submission.csv"',
    );
    const first = runSuite({ config, baseDir: root, outDir, label: "head" });
    await new Promise((r) => setTimeout(r, 300));
    const second = runSuite({ config, baseDir: root, outDir, label: "head" });
    await expect(second).rejects.toThrow(/is in use by medalist process \d+ on .* wait for it to finish/);
    const results = await first;
    expect(results.runs.map((r) => r.outcome)).toEqual(["completed", "completed"]);
    expect(results.runs.every((r) => r.grade?.valid_submission)).toBe(true);
    expect(existsSync(join(outDir, LOCK_FILE))).toBe(false);
  }, 120_000);

  it("two `medalist run` processes on one folder: one refuses with one line, the other grades each run once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-lock-cli-"));
    const cfg = join(dir, "medalist.yml");
    writeFileSync(
      cfg,
      `competitions: {include: [toy-churn]}\nseeds: 2\ndataDir: ${dataDir}\n` +
        `agent: {command: 'sleep 2; cp "$DATA_DIR/sample_submission.csv" "$SUBMISSION_DIR/submission.csv"'}\n`,
    );
    const start = () =>
      new Promise<{ code: number | null; stderr: string }>((done) => {
        const p = spawn(process.execPath, [
          join(root, "dist", "cli.js"),
          "run",
          "--config",
          cfg,
          "--out",
          join(dir, "out"),
        ]);
        let stderr = "";
        p.stderr.on("data", (c) => (stderr += c));
        p.on("close", (code) => done({ code, stderr }));
      });
    const a = start();
    await new Promise((r) => setTimeout(r, 1500));
    const b = start();
    const [ra, rb] = await Promise.all([a, b]);
    const [won, lost] = ra.code === 0 ? [ra, rb] : [rb, ra];
    expect(won.code, won.stderr).toBe(0);
    expect(lost.code).toBe(1);
    expect(lost.stderr.trim().split("\n").pop()).toMatch(
      /out\/head is in use by medalist process \d+ on .*wait for it to finish/,
    );
    const results = JSON.parse(readFileSync(join(dir, "out", "head", "results.json"), "utf8"));
    expect(results.runs.map((r: { outcome: string }) => r.outcome)).toEqual(["completed", "completed"]);
    expect(
      results.runs.every((r: { grade: { valid_submission: boolean } }) => r.grade.valid_submission),
    ).toBe(true);
  }, 120_000);

  it("a stale lock of a dead process is taken over", async () => {
    const outDir = mkdtempSync(join(tmpdir(), "medalist-lock-"));
    const dead = spawnSync(process.execPath, ["-e", "process.pid"]).pid!;
    writeFileSync(
      join(outDir, LOCK_FILE),
      JSON.stringify({ pid: dead, host: (await import("node:os")).hostname(), since: "then", nonce: "x" }),
    );
    const lines: string[] = [];
    const release = await lockResultsDir(outDir, { log: (l) => lines.push(l) });
    expect(lines.join("\n")).toMatch(new RegExp(`left by process ${dead} \\(no longer running\\)`));
    release();
    expect(existsSync(join(outDir, LOCK_FILE))).toBe(false);
  });

  it("waits when asked to, then takes the lock", async () => {
    const outDir = mkdtempSync(join(tmpdir(), "medalist-lock-"));
    const release = await lockResultsDir(outDir);
    setTimeout(release, 600);
    const again = await lockResultsDir(outDir, { waitMs: 20_000 });
    again();
  });
});

/** A small tmpfs in a temp folder, or null (with the reason printed) where mount is not allowed. */
function smallDisk(size: string): { dir: string; umount: () => void } | null {
  const dir = mkdtempSync(join(tmpdir(), "medalist-fulldisk-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { stdio: "pipe" });
  } catch (e) {
    console.warn(`[full disk] skipped: cannot mount a tmpfs here (${(e as Error).message.split("\n")[0]})`);
    return null;
  }
  return { dir, umount: () => execFileSync("umount", ["-l", dir]) };
}

const docker = await requireDocker();
const mounts: (() => void)[] = [];
afterAll(() => mounts.forEach((u) => u()));

describe.each([
  ["local", false],
  ["docker", true],
])("a full disk ends the suite cleanly (%s executor)", (executor, needsDocker) => {
  it.skipIf(needsDocker && !docker)(
    "finished runs kept, results.json written with the rest not run, temporary files removed, one clear line",
    async () => {
      const disk = smallDisk("4m");
      if (!disk) return;
      mounts.push(disk.umount);
      const outDir = join(disk.dir, "out");
      mkdirSync(outDir);
      const fill = "dd if=/dev/zero of=$LOGS_DIR/fill bs=1M count=64 2>/dev/null; exit 0";
      const config = validateConfig(
        {
          name: "full",
          competitions: { include: ["toy-churn"] },
          seeds: 3,
          executor,
          agent: executor === "docker" ? { image: TEST_IMAGE, command: fill } : { command: fill },
          limits: { time: 60 },
          dataDir,
          docker: { network: "none", retries: 0 },
        },
        "test",
      );
      const lines: string[] = [];
      const run = runSuite({ config, baseDir: root, outDir, label: "head", log: (l) => lines.push(l) });
      const err = await run.then(
        () => null,
        (e: Error) => e,
      );
      expect(err?.name, lines.join("\n")).toBe("UserError");
      // The local run fills the disk itself and finishes. A Docker run's folders are file systems of
      // their own (docker/folder-fs.ts) made on that disk before it starts: there the disk may be
      // full before the first run, and then no run finished. Either way nothing finished is lost.
      const m =
        /^the results folder \S+ is full \(ENOSPC; [\d.]+ (?:bytes|KiB|MiB) free\)[^:]*: the suite stopped; (\d) finished run\(s\) kept(?: \(\d without a sealed record: run again on resume\))?, (\d) not run; results written to .*results\.json/.exec(
          err?.message ?? "",
        );
      expect(m, `${err?.message}\n${lines.join("\n")}`).not.toBeNull();
      const kept = Number(m![1]);
      expect(kept + Number(m![2])).toBe(3);
      expect(executor === "local" ? [1] : [0, 1]).toContain(kept);
      expect(err?.message.split("\n")).toHaveLength(1);
      const results = JSON.parse(readFileSync(join(outDir, "results.json"), "utf8"));
      expect(results.runs).toHaveLength(3);
      expect(
        results.runs.filter((r: { details: { notRun?: string } }) => r.details.notRun === "true"),
      ).toHaveLength(3 - kept);
      const left = readdirSync(outDir, { recursive: true }) as string[];
      expect(left.filter((f) => /\.tmp-\d+$/.test(f))).toEqual([]);
      expect(left).not.toContain(RESERVE_FILE);
      expect(left).not.toContain(LOCK_FILE);
    },
    180_000,
  );
});
