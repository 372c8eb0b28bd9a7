import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { loadRegistry, splitMembers, type RegistryEntry } from "../../src/registry/registry.js";
import {
  prepareCompetition,
  prepareCompetitions,
  requiredFiles,
  warmCheck,
} from "../../src/prepare/prepare.js";
import { acquireLock } from "../../src/prepare/lock.js";
import { readManifest } from "../../src/prepare/manifest.js";
import { prepareCommand } from "../../src/cli/commands/prepare.js";
import { KEY, USER, startFakeKaggle, type FakeKaggle } from "./kaggle-server.js";

const competitionsDir = resolve(__dirname, "../../competitions");
const registry = loadRegistry(competitionsDir);
const lite = splitMembers(registry, "lite").map((id) => registry.get(id)!);

/** Lays out data as `mlebench prepare` leaves it: the answers and sample submission (and a bit more). */
export function fakeMlebenchData(dataDir: string, entries: RegistryEntry[]): void {
  for (const e of entries) {
    const dir = join(dataDir, e.competition.id, "prepared");
    for (const rel of requiredFiles(e.competition)) {
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      writeFileSync(join(dir, rel), `id,value\n1,${rel}\n`);
    }
    mkdirSync(join(dir, "public", "images"), { recursive: true });
    writeFileSync(join(dir, "public", "images", "0.png"), "png");
    writeFileSync(join(dir, "public", "description.md"), "# description\n");
  }
}

describe("reusing data prepared by MLE-bench", () => {
  it("checks the expected files, writes a manifest, then answers warm checks from it", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "medalist-reuse-"));
    fakeMlebenchData(dataDir, lite);
    const cold = await prepareCompetitions(lite, { dataDir });
    expect(cold.failures).toEqual([]);
    expect(cold.results.map((r) => r.status)).toEqual(lite.map(() => "reused"));
    const m = readManifest(join(dataDir, "spooky-author-identification", "prepared"))!;
    expect(Object.keys(m.files)).toEqual(["private/test.csv", "public/sample_submission.csv"]);
    expect(m.files["private/test.csv"].md5).toMatch(/^[0-9a-f]{32}$/);
    // Our stand-in files are not upstream's: the manifest says which differ.
    expect(m.upstreamMismatches).toContain("private/test.csv");
    expect(m.counts["public/images"]).toBe(1);
    const tn = readManifest(join(dataDir, "text-normalization-challenge-english-language", "prepared"))!;
    expect(Object.keys(tn.files)).toContain("private/sample_submission.csv");

    const t0 = performance.now();
    const warm = await prepareCompetitions(lite, { dataDir });
    const ms = performance.now() - t0;
    expect(warm.results.map((r) => r.status)).toEqual(lite.map(() => "ready"));
    expect(ms).toBeLessThan(1000); // measured ~10 ms; see bench/prepare.ts
  });

  it("rechecks a competition whose files changed", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "medalist-reuse-"));
    const e = registry.get("leaf-classification")!;
    fakeMlebenchData(dataDir, [e]);
    expect((await prepareCompetition(e, { dataDir })).status).toBe("reused");
    writeFileSync(
      join(dataDir, e.competition.id, "prepared", "private", "test.csv"),
      "id,value\n1,changed!\n",
    );
    expect(warmCheck(e.competition, dataDir)).toBeUndefined();
    expect((await prepareCompetition(e, { dataDir })).status).toBe("reused");
    expect((await prepareCompetition(e, { dataDir })).status).toBe("ready");
  });

  it("refuses an incomplete prepared folder and names what is missing", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "medalist-reuse-"));
    const e = registry.get("leaf-classification")!;
    fakeMlebenchData(dataDir, [e]);
    rmSync(join(dataDir, e.competition.id, "prepared", "private", "test.csv"));
    await expect(prepareCompetition(e, { dataDir })).rejects.toThrow(
      /exists but is incomplete \(missing private\/test.csv\)/,
    );
    expect(readManifest(join(dataDir, e.competition.id, "prepared"))).toBeUndefined();
  });

  it("points to mlebench prepare for a competition without a native recipe", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "medalist-reuse-"));
    const id = "AI4Code"; // graded externally; no native preparation
    await expect(prepareCompetition(registry.get(id)!, { dataDir })).rejects.toThrow(
      new RegExp(`no native preparation.*mlebench prepare -c ${id} --data-dir`),
    );
  });
});

describe("one preparer per competition", () => {
  const ID = "tabular-playground-series-dec-2021";
  let kaggle: FakeKaggle;
  beforeAll(async () => {
    kaggle = await startFakeKaggle();
    kaggle.files.set(ID, readFileSync(resolve(__dirname, "fixtures/recipes", ID, "kaggle.zip")));
  });
  afterAll(() => kaggle.close());
  const opts = (dataDir: string) => ({
    dataDir,
    kaggleUrl: kaggle.url,
    credentials: { username: USER, key: KEY },
    skipVerification: true,
  });

  it("two concurrent preparations of the same competition: one prepares, the other waits and reuses", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "medalist-lock-"));
    const before = kaggle.ranges.length;
    const e = registry.get(ID)!;
    const [a, b] = await Promise.all([
      prepareCompetition(e, opts(dataDir)),
      prepareCompetition(e, opts(dataDir)),
    ]);
    expect([a.status, b.status].sort()).toEqual(["prepared", "ready"]);
    expect(kaggle.ranges.length - before).toBe(1);
    expect(existsSync(join(dataDir, ID, ".medalist-prepare.lock"))).toBe(false);
  });

  it("two processes preparing the same competition: one downloads and prepares, the other waits", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "medalist-lock-"));
    const before = kaggle.ranges.length;
    kaggle.delayMs = 1500; // keep the first download in flight while the second process starts
    try {
      const child = resolve(__dirname, "fixtures/prepare-child.ts");
      const tsx = resolve(__dirname, "../../node_modules/.bin/tsx");
      const run = () =>
        new Promise<{ status: string }>((ok, fail) =>
          execFile(tsx, [child, dataDir, kaggle.url, ID, USER, KEY], (err, stdout, stderr) =>
            err
              ? fail(new Error(`${err.message}\n${stderr}`))
              : ok(JSON.parse(stdout.trim().split("\n").at(-1)!)),
          ),
        );
      const results = await Promise.all([run(), run()]);
      expect(results.map((r) => r.status).sort()).toEqual(["prepared", "ready"]);
      expect(kaggle.ranges.length - before).toBe(1);
      expect(warmCheck(registry.get(ID)!.competition, dataDir)).toBeDefined();
    } finally {
      kaggle.delayMs = 0;
    }
  });

  it("fails fast when another live process holds the lock, and takes over a dead one's", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "medalist-lock-"));
    const e = registry.get(ID)!;
    mkdirSync(join(dataDir, ID), { recursive: true });
    const lockFile = join(dataDir, ID, ".medalist-prepare.lock");
    const release = await acquireLock(lockFile);
    await expect(prepareCompetition(e, { ...opts(dataDir), lockWaitMs: 0 })).rejects.toThrow(
      /another process is preparing it/,
    );
    release();
    // A lock left by a process that no longer exists is stale.
    writeFileSync(lockFile, `999999999 ${(await import("node:os")).hostname()} ${Date.now()}\n`);
    expect((await prepareCompetition(e, { ...opts(dataDir), lockWaitMs: 0 })).status).toBe("prepared");
  });

  it("cleans up a staging folder left by an interrupted preparation", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "medalist-lock-"));
    mkdirSync(join(dataDir, ID, ".staging-1-1", "prepared", "public"), { recursive: true });
    expect((await prepareCompetition(registry.get(ID)!, opts(dataDir))).status).toBe("prepared");
    expect(existsSync(join(dataDir, ID, ".staging-1-1"))).toBe(false);
  });
});

describe("medalist prepare", () => {
  it("prepares a split and reports failures with exit code 1", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "medalist-cli-"));
    fakeMlebenchData(dataDir, lite);
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const err = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const args = ["--split", "lite", "--data-dir", dataDir, "--registry", competitionsDir];
      expect(await prepareCommand.run([...args, "--json"])).toBe(0);
      const out = JSON.parse(log.mock.calls[0][0] as string);
      expect(out.results).toHaveLength(22);
      expect(out.failures).toEqual([]);
      log.mockClear();
      expect(await prepareCommand.run([...args, "--competition", "AI4Code"])).toBe(1);
      const text = log.mock.calls.map((c) => c.join(" ")).join("\n");
      expect(text).toMatch(/ready\s+spooky-author-identification/);
      expect(text).toMatch(/FAILED\s+AI4Code: Medalist has no native preparation/);
      expect(text).toContain("22 ready, 1 failed");
      await expect(prepareCommand.run(["--data-dir", dataDir])).rejects.toThrow(
        /name a --split or --competition/,
      );
      await expect(
        prepareCommand.run(["--split", "lite", "--data-dir", dataDir, "--competition", "nope"]),
      ).rejects.toThrow(/unknown competition "nope"/);
    } finally {
      log.mockRestore();
      err.mockRestore();
    }
  });
});
