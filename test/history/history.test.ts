import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  appendEntry,
  baseHistory,
  competitionRecords,
  emptyHistory,
  entryOf,
  identitiesOf,
  latestIdentities,
  parseHistory,
  trend,
} from "../../src/history/history.js";
import { appendAndSave, restoreHistory, type CacheApi } from "../../src/history/cache.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";

const dir = mkdtempSync(join(tmpdir(), "medalist-history-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const suite = (sha: string, medal: string) => {
  const s = fakeSuite("head", [fakeRun("a", 0, medal), fakeRun("a", 1, "none")]);
  s.git.sha = sha;
  return s;
};

/** An in-memory Actions cache: restore picks the newest key under a prefix, like the real one. */
function fakeCache(): CacheApi & { saved: Map<string, string> } {
  const saved = new Map<string, string>();

  return {
    saved,
    async restoreCache(paths, primary, restoreKeys = []) {
      const keys = [...saved.keys()];
      const key = keys.includes(primary)
        ? primary
        : keys.filter((k) => restoreKeys.some((p) => k.startsWith(p))).pop();
      if (!key) return undefined;
      writeFileSync(join(paths[0], "history.json"), saved.get(key)!);
      return key;
    },
    async saveCache(paths, key) {
      if (saved.has(key)) throw new Error("Unable to reserve cache: key exists");
      const f = join(paths[0], "history.json");
      saved.set(key, existsSync(f) ? readFileSync(f, "utf8") : "");
      return 1;
    },
  };
}

describe("history", () => {
  it("appends, replaces a re-run of the same commit, and keeps the newest", () => {
    let h = emptyHistory();
    for (let i = 0; i < 5; i++) h = appendEntry(h, entryOf(suite(`sha${i}`, i % 2 ? "gold" : "none")), 3);
    expect(h.entries.map((e) => e.sha)).toEqual(["sha2", "sha3", "sha4"]);
    h = appendEntry(h, entryOf(suite("sha4", "gold")), 3);
    expect(h.entries.map((e) => e.sha)).toEqual(["sha2", "sha3", "sha4"]);
    expect(h.entries[2].medalRate).toBe(0.5);
  });

  it("draws the trend of the same suite with this run last", () => {
    let h = emptyHistory();
    for (let i = 0; i < 40; i++) h = appendEntry(h, entryOf(suite(`sha${i}`, "none")));
    const other = entryOf(suite("x", "gold"));
    h = appendEntry(h, { ...other, suiteHash: "different" });
    const t = trend(h, suite("pr", "gold"));
    expect(t).toHaveLength(31);
    expect(t.at(-1)).toMatchObject({ current: true, medalRate: 0.5 });
    expect(t[0].label).toBe("sha10");
  });

  it("reads a bad history as empty and says where it is wrong", () => {
    expect(parseHistory("{").problem).toMatch(/not JSON/);
    expect(parseHistory('{"version":1,"entries":[{"sha":1}]}').problem).toMatch(/^history entries\.0\.sha/);
  });

  it("restores the newest history from the cache and saves the appended one under a new key", async () => {
    const cache = fakeCache();
    const a = await restoreHistory(cache, join(dir, "h"), "my suite");
    expect(a).toMatchObject({ key: null, problem: null });
    const s1 = await appendAndSave(
      cache,
      join(dir, "h"),
      "my suite",
      a.history,
      entryOf(suite("s1", "gold")),
      new Date(1),
    );
    expect(s1.problem).toBeNull();
    const b = await restoreHistory(cache, join(dir, "h2"), "my suite");
    expect(b.history.entries.map((e) => e.sha)).toEqual(["s1"]);
    await appendAndSave(
      cache,
      join(dir, "h2"),
      "my suite",
      b.history,
      entryOf(suite("s2", "none")),
      new Date(2),
    );
    const c = await restoreHistory(cache, join(dir, "h3"), "my suite");
    expect(c.history.entries.map((e) => e.sha)).toEqual(["s1", "s2"]);
    expect([...cache.saved.keys()]).toEqual([
      "medalist-history-my_suite-1970-01-01T00-00-00-001Z",
      "medalist-history-my_suite-1970-01-01T00-00-00-002Z",
    ]);
    // A failed save only warns.
    const again = await appendAndSave(
      cache,
      join(dir, "h3"),
      "my suite",
      c.history,
      entryOf(suite("s3", "none")),
      new Date(2),
    );
    expect(again.problem).toMatch(/history not saved: Unable to reserve/);
  });
});

describe("the base's history per competition, keyed on the run identity", () => {
  const base = (sha: string, identity: string, medals: string[]) => {
    const s = fakeSuite(
      "base",
      medals.map((m, i) =>
        fakeRun(i < 2 ? "a" : "b", i % 2, m, { identity: `${identity}-${i < 2 ? "a" : "b"}` }),
      ),
    );
    s.git.sha = sha;
    return s;
  };

  it("records comparable runs, medals, mean time and the shared identity", () => {
    const s = base("s1", "v1", ["gold", "none", "none", "none"]);
    s.runs[3] = { ...s.runs[3], outcome: "infra_error", durationMs: 99_000 };
    s.runs[2] = { ...s.runs[2], durationMs: 3000 };
    expect(competitionRecords(s)).toEqual({
      a: { runs: 2, medals: 1, meanSecs: 1, identity: "v1-a" },
      b: { runs: 1, medals: 0, meanSecs: 3, identity: "v1-b" },
    });
    // Runs of one competition with different identities share none: no history is pooled for it.
    s.runs[1] = { ...s.runs[1], identity: "other" };
    expect(competitionRecords(s).a.identity).toBeNull();
    expect([...identitiesOf(s).keys()]).toEqual(["b"]);
    // An entry written before the field existed still reads.
    const old = entryOf(s) as Record<string, unknown>;
    delete old.competitions;
    expect(parseHistory(JSON.stringify({ version: 1, entries: [old] })).problem).toBeNull();
  });

  it("pools only runs of the identity the base has now", () => {
    let h = emptyHistory();
    h = appendEntry(h, entryOf(base("s1", "v1", ["gold", "gold", "none", "none"])));
    h = appendEntry(h, entryOf(base("s2", "v2", ["none", "none", "gold", "none"])));
    h = appendEntry(h, entryOf(base("s3", "v2", ["none", "gold", "none", "none"])));
    const now = latestIdentities(h, "abc");
    expect(Object.fromEntries(now)).toEqual({ a: "v2-a", b: "v2-b" });
    const pooled = baseHistory(h, "abc", now);
    expect(pooled.get("a")).toEqual({ runs: 4, medals: 1, meanSecs: 1, suites: 2 });
    expect(pooled.get("b")).toEqual({ runs: 4, medals: 1, meanSecs: 1, suites: 2 });
    // Another suite's entries, or an identity nobody has, give nothing.
    expect(baseHistory(h, "other-suite", now).size).toBe(0);
    expect(baseHistory(h, "abc", new Map([["a", "v9-a"]])).size).toBe(0);
  });
});
