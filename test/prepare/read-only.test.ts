import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadRegistry } from "../../src/registry/registry.js";
import { prepareCompetition, requiredFiles, writableFolder } from "../../src/prepare/prepare.js";
import { readManifest } from "../../src/prepare/manifest.js";
import { UserError } from "../../src/errors.js";

const registry = loadRegistry(resolve(__dirname, "../../competitions"));
const entry = registry.get("spooky-author-identification")!;

/** Every path under `dir` with its size and mtime: equal before and after means nothing was written. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = statSync(p);
      out.push(`${p} ${st.size} ${st.mtimeMs}`);
      if (st.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out;
}

function setMode(dir: string, dirMode: number, fileMode: number): void {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) setMode(p, dirMode, fileMode);
    else chmodSync(p, fileMode);
  }
  chmodSync(dir, dirMode);
}

/** `mlebench prepare`'s layout for one competition, then made read-only (a+w removed). */
function readOnlyData(complete = true): string {
  const dataDir = mkdtempSync(join(tmpdir(), "medalist-ro-"));
  const dir = join(dataDir, entry.competition.id, "prepared");
  const files = requiredFiles(entry.competition);
  for (const rel of complete ? files : files.slice(0, 1)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), `id,value\n1,${rel}\n`);
  }
  mkdirSync(join(dir, "private"), { recursive: true });
  setMode(join(dataDir, entry.competition.id), 0o555, 0o444);
  made.push(dataDir);
  return dataDir;
}
const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) setMode(d, 0o755, 0o644); // let the temp folder be cleaned up
});

describe("a read-only folder prepared by MLE-bench", () => {
  it("is used as it is: no lock and no manifest written, the manifest kept in memory", async () => {
    const dataDir = readOnlyData();
    const compDir = join(dataDir, entry.competition.id);
    // As root the kernel would let us write; Medalist honours the mode bits all the same.
    expect(writableFolder(compDir)).toBe(false);
    const before = snapshot(dataDir);
    const lines: string[] = [];
    const r = await prepareCompetition(entry, { dataDir, log: (l) => lines.push(l) });
    expect(r.status).toBe("reused");
    expect(r.upstreamMismatches).toContain("private/test.csv"); // our stand-in files are not upstream's
    expect(lines.join("\n")).toContain("read-only");
    expect(snapshot(dataDir)).toEqual(before);
    // The run identity reads the manifest like a file (suite/identity-facts.ts).
    const m = readManifest(join(compDir, "prepared"))!;
    expect(Object.keys(m.files)).toEqual(["private/test.csv", "public/sample_submission.csv"]);
    // Within this process the warm check answers from memory (a new process hashes again), still writing nothing.
    expect((await prepareCompetition(entry, { dataDir })).status).toBe("ready");
    expect(snapshot(dataDir)).toEqual(before);
  });

  it("that is incomplete is refused in one sentence naming what is missing", async () => {
    const dataDir = readOnlyData(false);
    const run = prepareCompetition(entry, { dataDir });
    await expect(run).rejects.toThrow(UserError);
    await expect(run).rejects.toThrow(/is read-only and incomplete \(missing private\/test\.csv\)/);
  });

  it("a writable folder still gets its lock and manifest", async () => {
    const dataDir = readOnlyData();
    setMode(dataDir, 0o755, 0o644);
    expect(writableFolder(join(dataDir, entry.competition.id))).toBe(true);
    expect((await prepareCompetition(entry, { dataDir })).status).toBe("reused");
    expect(readdirSync(join(dataDir, entry.competition.id, "prepared"))).toContain("medalist-manifest.json");
    expect((await prepareCompetition(entry, { dataDir })).status).toBe("ready");
  });
});
