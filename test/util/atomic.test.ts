// The one record writer (src/util/atomic.ts): a kill at any point leaves the old record or the new
// one, a full disk leaves the old one and no temporary file, and the history is never truncated.
import { afterAll, describe, expect, it } from "vitest";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RecordWriteError, storageSentence, writeAtomic } from "../../src/util/atomic.js";
import { appendAndSave, HISTORY_FILE } from "../../src/history/cache.js";
import { emptyHistory, type HistoryEntry } from "../../src/history/history.js";

const work = mkdtempSync(join(tmpdir(), "medalist-atomic-"));
const mounts: string[] = [];
afterAll(() => {
  for (const m of mounts) execFileSync("umount", ["-l", m]);
  rmSync(work, { recursive: true, force: true });
});

function tmpfs(size: string): string | null {
  const dir = mkdtempSync(join(work, "fs-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { stdio: "pipe" });
  } catch {
    console.warn("[atomic] skipped: cannot mount a tmpfs here");
    return null;
  }
  mounts.push(dir);
  return dir;
}

describe("atomic record writes", () => {
  it("a writer killed (SIGKILL) mid-write leaves a whole record, old or new, every time", async () => {
    const file = join(work, "record.json");
    const script = [
      `import { writeAtomic } from ${JSON.stringify(join(import.meta.dirname, "../../src/util/atomic.ts"))};`,
      "const big = (i) => JSON.stringify({ i, pad: 'x'.repeat(4 * 1024 * 1024) });",
      `for (let i = 0; ; i++) { writeAtomic(${JSON.stringify(file)}, big(i)); if (i === 0) console.log("first"); }`,
    ].join("\n");
    for (let k = 0; k < 3; k++) {
      const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      await new Promise<void>((r) => child.stdout.once("data", () => r()));
      await new Promise((r) => setTimeout(r, 50 + 97 * k));
      child.kill("SIGKILL");
      await new Promise((r) => child.on("exit", r));
      const doc = JSON.parse(readFileSync(file, "utf8")) as { i: number; pad: string };
      expect(doc.pad).toHaveLength(4 * 1024 * 1024);
    }
  }, 180_000);

  it("a full disk keeps the old record, removes the temporary file, and names the file and the code", () => {
    const disk = tmpfs("1m");
    if (!disk) return;
    const file = join(disk, "results.json");
    writeAtomic(file, '{"old":true}\n');
    let err: unknown;
    try {
      writeAtomic(file, "x".repeat(2 * 1024 * 1024));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RecordWriteError);
    expect((err as RecordWriteError).code).toBe("ENOSPC");
    expect((err as Error).message).toBe(`cannot write ${file}: ENOSPC`);
    expect(readFileSync(file, "utf8")).toBe('{"old":true}\n');
    expect(readdirSync(disk)).toEqual(["results.json"]);
    expect(storageSentence("the results folder", disk, err)).toMatch(
      new RegExp(
        `^the results folder ${disk} is full \\(ENOSPC; [\\d.]+ (bytes|KiB) free\\) while writing ${file}$`,
      ),
    );
  });

  it("the history on a full disk stays whole and the failure is a warning", async () => {
    const disk = tmpfs("1m");
    if (!disk) return;
    const old = JSON.stringify(emptyHistory(), null, 2) + "\n";
    writeFileSync(join(disk, HISTORY_FILE), old);
    writeFileSync(join(disk, "filler"), Buffer.alloc(1024 * 1024 - 4096));
    const cache = { restoreCache: async () => undefined, saveCache: async () => 1 };
    const entry = {
      sha: "a".repeat(40),
      finishedAt: new Date().toISOString(),
      runs: Array.from({ length: 200 }, (_, i) => ({
        competitionId: `c${i}`,
        seed: 0,
        medal: true,
        pad: "y".repeat(100),
      })),
    } as unknown as HistoryEntry;
    const r = await appendAndSave(cache, disk, "s", emptyHistory(), entry);
    expect(r.problem).toMatch(/history not saved: cannot write .*history\.json: ENOSPC/);
    expect(readFileSync(join(disk, HISTORY_FILE), "utf8")).toBe(old);
  });
});
