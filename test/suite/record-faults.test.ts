// Faults while records are written (docs/reliability.md), each on a small seeded toy suite run
// in-process and then resumed: the results folder full (a real tmpfs) or remounted read-only
// mid-suite, the run store full, records torn as a kill mid-write leaves them, and the runner
// killed with SIGKILL. After the resume every planned run is counted once, with the undisturbed
// run's outcome, and only runs without a complete, sealed record were executed again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SuiteResults } from "../../src/results/schema.js";
import { LOCK_FILE } from "../../src/suite/lock.js";
import { readResults } from "../../src/suite/store.js";
import { faultSuite, tally, type FaultSuite } from "../helpers/fault-suite.js";

const work = mkdtempSync(join(tmpdir(), "medalist-recfaults-"));
const mounts: string[] = [];

/** A tmpfs of `size` (root only); null, with a note, where it cannot be mounted. */
function tmpfs(size: string): string | null {
  const dir = mkdtempSync(join(work, "fs-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { stdio: "pipe" });
  } catch (e) {
    console.warn(`[record faults] skipped: cannot mount a tmpfs (${(e as Error).message.split("\n")[0]})`);
    return null;
  }
  mounts.push(dir);
  return dir;
}
const remount = (dir: string, how: string) => execFileSync("mount", ["-o", `remount,${how}`, dir]);

/** Fills the file system holding `dir` to the last byte. */
function fill(dir: string): void {
  const file = join(dir, "filler");
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeFileSync(file, chunk, { flag: "a" });
  } catch {
    /* full */
  }
  try {
    for (;;) writeFileSync(file, Buffer.alloc(512, 1), { flag: "a" });
  } catch {
    /* full to the block */
  }
}

const tempFiles = (dir: string) =>
  (readdirSync(dir, { recursive: true }) as string[]).filter((f) => /\.tmp-\d+/.test(f));

let suite: FaultSuite;
let clean: SuiteResults;
let base: SuiteResults;

beforeAll(async () => {
  suite = faultSuite(join(work, "suite"), 2, 4, "head");
  clean = await suite.run(join(work, "clean"));
  const other = faultSuite(join(work, "base"), 2, 4, "base");
  base = await other.run(join(work, "base-out"));
}, 120_000);

afterAll(() => {
  for (const m of mounts) {
    try {
      execFileSync("umount", ["-l", m]);
    } catch {
      /* already gone */
    }
  }
  rmSync(work, { recursive: true, force: true });
});

describe("faults while records are written", { timeout: 120_000 }, () => {
  it("the results folder full mid-suite: one sentence, finished records kept, nothing half-written; the resume re-runs the rest", async () => {
    const disk = tmpfs("3m");
    if (!disk) return;
    const out = join(disk, "out");
    suite.executed.length = 0;
    suite.hook = (spec) => {
      if (spec.runId === suite.runIds[3]) fill(disk);
    };
    const err = await suite.run(out).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.name).toBe("UserError");
    expect(err!.message).toMatch(
      /^the results folder \S+ is full \(ENOSPC; [\d.]+ (bytes|KiB) free\) while writing \S+run\.json: the suite stopped; 4 finished run\(s\) kept \(1 without a sealed record: run again on resume\), 4 not run; results written to /,
    );
    expect(err!.message.split("\n")).toHaveLength(1);
    expect(tempFiles(out)).toEqual([]);
    expect(readResults(join(out, "results.json")).runs).toHaveLength(8);
    rmSync(join(disk, "filler"));
    suite.hook = null;
    suite.executed.length = 0;
    const resumed = await suite.run(out);
    expect(tally(suite.runIds, clean, resumed, base, suite.config)).toEqual({
      lost: 0,
      doubleCounted: 0,
      differentOutcomes: 0,
      differentVerdict: false,
    });
    expect(suite.executed).toEqual(suite.runIds.slice(3));
  });

  it("the results folder read-only mid-suite: one sentence, finished records kept; the resume re-runs the rest", async () => {
    const disk = tmpfs("8m");
    if (!disk) return;
    const out = join(disk, "out");
    suite.hook = (spec) => {
      if (spec.runId === suite.runIds[5]) remount(disk, "ro");
    };
    const err = await suite.run(out).then(
      () => null,
      (e: Error) => e,
    );
    remount(disk, "rw");
    expect(err?.name, err?.stack).toBe("UserError");
    expect(err!.message).toMatch(
      /^the results folder \S+ is read-only \(EROFS; [^)]*\) while writing \S+run\.json: the suite stopped; 6 finished run\(s\) kept \(1 without a sealed record: run again on resume\), 2 not run; \S+results\.json could not be written \(EROFS\)/,
    );
    expect(tempFiles(out)).toEqual([]);
    // The lock stayed (the folder was read-only); a new process takes over a dead one's lock.
    rmSync(join(out, LOCK_FILE), { force: true });
    suite.hook = null;
    suite.executed.length = 0;
    const resumed = await suite.run(out);
    expect(tally(suite.runIds, clean, resumed, base, suite.config).lost).toBe(0);
    expect(tally(suite.runIds, clean, resumed, base, suite.config)).toEqual({
      lost: 0,
      doubleCounted: 0,
      differentOutcomes: 0,
      differentVerdict: false,
    });
    expect(suite.executed).toEqual(suite.runIds.slice(5));
  });

  it("the run store full: said once, the suite goes on; a re-run job with a fresh results folder reuses what was stored", async () => {
    const disk = tmpfs("2m");
    if (!disk) return;
    const store = join(disk, "store");
    const lines: string[] = [];
    suite.hook = (spec) => {
      if (spec.runId === suite.runIds[2]) fill(disk);
    };
    const first = await suite.run(join(work, "store-1"), { storeDir: store, log: (l) => lines.push(l) });
    expect(first.runs).toHaveLength(8);
    const said = lines.filter((l) => /run store/.test(l));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^the run store \S+ is full \(ENOSPC; [^)]*\)/);
    expect(tempFiles(store)).toEqual([]);
    rmSync(join(disk, "filler"));
    suite.hook = null;
    suite.executed.length = 0;
    const again = await suite.run(join(work, "store-2"), { storeDir: store });
    expect(tally(suite.runIds, clean, again, base, suite.config)).toMatchObject({
      lost: 0,
      doubleCounted: 0,
    });
    expect(suite.executed).toEqual(suite.runIds.slice(2));
  });

  it("records torn by a kill mid-write are treated as absent, said once, and their runs executed again", async () => {
    const out = join(work, "torn");
    suite.hook = null;
    await suite.run(out);
    const [a, b, c] = [suite.runIds[1], suite.runIds[4], suite.runIds[6]];
    const half = (f: string) => truncateSync(f, Math.floor(statSync(f).size / 2));
    half(join(out, "runs", a, "run.json"));
    half(join(out, "runs", b, "run.seal"));
    rmSync(join(out, "runs", c, "run.seal"));
    half(join(out, "results.json"));
    writeFileSync(join(out, "runs", suite.runIds[0], "run.json.tmp-99999"), '{"half');
    const lines: string[] = [];
    suite.executed.length = 0;
    const resumed = await suite.run(out, { log: (l) => lines.push(l) });
    expect(suite.executed).toEqual([a, b, c]);
    expect(lines.filter((l) => l.includes("not complete JSON"))).toHaveLength(1);
    expect(lines.find((l) => l.includes(`${a}: started`))).toMatch(
      /its run\.json is not complete JSON, half-written or damaged/,
    );
    expect(tally(suite.runIds, clean, resumed, base, suite.config)).toEqual({
      lost: 0,
      doubleCounted: 0,
      differentOutcomes: 0,
      differentVerdict: false,
    });
    expect(JSON.parse(readFileSync(join(out, "results.json"), "utf8")).runs).toHaveLength(8);
  });

  it("the runner killed (SIGKILL) mid-suite: the resume reuses the sealed records and re-runs the rest", async () => {
    const out = join(work, "killed");
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        join(import.meta.dirname, "..", "helpers", "fault-child.ts"),
        join(work, "suite"),
        "2",
        "4",
        "head",
        out,
      ],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, FAULT_RUN_MS: "100" } },
    );
    const started: string[] = [];
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => {
        for (const l of d.toString().split("\n")) if (l.startsWith("exec ")) started.push(l.slice(5));
        if (started.length >= 4) child.kill("SIGKILL");
      });
      child.on("exit", () => resolve());
      child.on("error", reject);
    });
    expect(started.length, err).toBeGreaterThanOrEqual(4);
    expect(existsSync(join(out, "results.json"))).toBe(false);
    suite.hook = null;
    suite.executed.length = 0;
    const resumed = await suite.run(out);
    expect(tally(suite.runIds, clean, resumed, base, suite.config)).toEqual({
      lost: 0,
      doubleCounted: 0,
      differentOutcomes: 0,
      differentVerdict: false,
    });
    // Executed again: the run in flight when it was killed, never one with a sealed record.
    const sealed = suite.runIds.filter((id) => !suite.executed.includes(id));
    expect(sealed.length).toBeGreaterThanOrEqual(3);
    expect(suite.executed).toEqual(suite.runIds.filter((id) => !sealed.includes(id)));
    expect(resumed.runs.filter((r) => r.reused).map((r) => r.runId)).toEqual(sealed);
  }, 180_000);
});
