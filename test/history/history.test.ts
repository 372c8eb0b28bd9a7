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
  runKey,
  runKeysOf,
  trend,
  type History,
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
        // Each suite executes its runs: they start at their own time.
        fakeRun(i < 2 ? "a" : "b", i % 2, m, {
          identity: `${identity}-${i < 2 ? "a" : "b"}`,
          startedAt: `2026-11-0${sha.slice(-1)}T00:00:0${i}.000Z`,
        }),
      ),
    );
    s.git.sha = sha;
    return s;
  };

  it("records comparable runs, medals, mean time and the shared identity", () => {
    const s = base("s1", "v1", ["gold", "none", "none", "none"]);
    s.runs[3] = { ...s.runs[3], outcome: "infra_error", durationMs: 99_000 };
    s.runs[2] = { ...s.runs[2], durationMs: 3000 };
    const keys = (rs: typeof s.runs) => rs.map((r) => ({ key: runKey(r), medal: r.grade!.any_medal }));
    expect(competitionRecords(s)).toEqual({
      a: { runs: 2, medals: 1, meanSecs: 1, identity: "v1-a", runKeys: keys(s.runs.slice(0, 2)) },
      b: { runs: 1, medals: 0, meanSecs: 3, identity: "v1-b", runKeys: keys([s.runs[2]]) },
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
    expect(pooled.get("a")).toEqual({
      runs: 4,
      medals: 1,
      meanSecs: 1,
      suites: 2,
      copies: 0,
      entries: [1, 2],
    });
    expect(pooled.get("b")).toEqual({
      runs: 4,
      medals: 1,
      meanSecs: 1,
      suites: 2,
      copies: 0,
      entries: [1, 2],
    });
    // Another suite's entries, or an identity nobody has, give nothing.
    expect(baseHistory(h, "other-suite", now).size).toBe(0);
    expect(baseHistory(h, "abc", new Map([["a", "v9-a"]])).size).toBe(0);
  });

  // Issue 30: a run reused by identity is recorded again by every suite that reused it.
  describe("each run counts once", () => {
    const executed = base("s1", "v2", ["gold", "none", "none", "none"]);
    /** A later default-branch suite that reused every run (same identity): copies, new commit. */
    const reusedBy = (sha: string) => {
      const s = structuredClone(executed);
      s.git.sha = sha;
      s.runs = s.runs.map((r) => ({ ...r, reused: true }));
      return s;
    };

    it("copies recorded by later suites count once, and so do copies of the base's runs now", () => {
      let h = emptyHistory();
      h = appendEntry(h, entryOf(executed));
      for (const sha of ["s2", "s3", "s4"]) h = appendEntry(h, entryOf(reusedBy(sha)));
      h = appendEntry(h, entryOf(base("s5", "v2", ["gold", "gold", "none", "gold"])));
      const now = latestIdentities(h, "abc");
      const pooled = baseHistory(h, "abc", now);
      // 5 suites recorded 10 runs of a; 4 exist (s1's 2 and s5's 2).
      expect(pooled.get("a")).toEqual({
        runs: 4,
        medals: 3,
        meanSecs: 1,
        suites: 2,
        copies: 6,
        entries: [0, 4],
      });
      // The base now is a reuse of s1 too: its copies are not earlier runs.
      const nowBase = reusedBy("s6");
      const without = baseHistory(h, "abc", now, nowBase.git.sha, runKeysOf(nowBase));
      expect(without.get("a")).toEqual({
        runs: 2,
        medals: 2,
        meanSecs: 1,
        suites: 1,
        copies: 8,
        entries: [4],
      });
    });

    it("writing the same entry twice changes nothing (with or without a commit)", () => {
      const e = entryOf(executed);
      const once = appendEntry(emptyHistory(), e);
      expect(appendEntry(once, e)).toEqual(once);
      const noSha = entryOf({ ...executed, git: { sha: null, ref: null } });
      const a = appendEntry(emptyHistory(), noSha);
      expect(appendEntry(a, noSha)).toEqual(a);
    });

    it("an old history without record keys counts one record per competition, never its copies", () => {
      const old: History = emptyHistory();
      for (const sha of ["s1", "s2", "s3"]) {
        const e = entryOf(reusedBy(sha));
        for (const rec of Object.values(e.competitions!)) delete rec.runKeys;
        old.entries.push(e);
      }
      const text = JSON.stringify(old);
      const { history, problem } = parseHistory(text);
      expect(problem).toBeNull();
      const pooled = baseHistory(history, "abc", latestIdentities(history, "abc"));
      expect(pooled.get("a")).toEqual({
        runs: 2,
        medals: 1,
        meanSecs: 1,
        suites: 1,
        copies: 4,
        entries: [0],
      });
    });

    it("a record whose keys disagree with its counts is refused where it is wrong", () => {
      const e = entryOf(executed);
      e.competitions!.a.medals = 2;
      const { problem } = parseHistory(JSON.stringify({ version: 1, entries: [e] }));
      expect(problem).toBe(
        "history entries.0.competitions.a.runKeys: runKeys must list every run and its medal (runs and medals disagree)",
      );
    });
  });
});
