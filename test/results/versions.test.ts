// Versioned results: v1 files are migrated before validation, `medalist migrate` rewrites them,
// and the schema version is part of the baseline cache key.
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { readResults, readResultsMigrated, readStoredRun, saveRun } from "../../src/suite/store.js";
import { migrate, MigrationError, type DocumentKind } from "../../src/results/migrate.js";
import { RESULTS_DOCUMENT, RESULTS_SCHEMA_VERSION } from "../../src/results/versions.js";
import { migrateCommand } from "../../src/cli/commands/migrate.js";
import { cacheKey, restoreFromCache } from "../../src/action/baseline.js";
import { fakeCache } from "../action/fake-cache.js";

const fixtures = resolve(import.meta.dirname, "..", "fixtures", "results");
const tmp = () => mkdtempSync(join(tmpdir(), "medalist-versions-"));

describe("reading older documents", () => {
  it("a v1 results file is read after the schema bump, each failed run with its recorded cause", () => {
    const r = readResultsMigrated(join(fixtures, "v1-results.json"));
    expect(r.from).toBe(1);
    expect(r.applied).toHaveLength(1);
    expect(r.results.schemaVersion).toBe(RESULTS_SCHEMA_VERSION);
    expect(r.results.runs[0].failure).toBeNull();
    expect(r.results.runs[1].failure).toEqual({
      cause: "crashed (exit code 127); no submission file at runs/toy-churn.s1/submission/submission.csv",
      exitCode: 127,
      signal: null,
      stderrTail: [],
    });
    expect(r.results.runs[0].grade?.score).toBe(0.89531);
  });

  it("a v1 run.json (no schemaVersion) is read; saveRun writes the current version", () => {
    const stored = readStoredRun(join(fixtures, "v1-run.json"))!;
    expect(stored.result.outcome).toBe("timed_out");
    expect(stored.result.failure?.cause).toBe("timed out after 60 s");
    const out = join(tmp(), "run.json");
    saveRun(out, stored);
    expect(JSON.parse(readFileSync(out, "utf8")).schemaVersion).toBe(2);
    expect(readStoredRun(out)!.result).toEqual(stored.result);
  });

  it("a newer version than this Medalist reads is refused with a plain reason", () => {
    const file = join(tmp(), "results.json");
    const doc = JSON.parse(readFileSync(join(fixtures, "v1-results.json"), "utf8"));
    writeFileSync(file, JSON.stringify({ ...doc, schemaVersion: 99 }));
    expect(() => readResults(file)).toThrow(
      /schemaVersion 99 is newer than this Medalist reads \(2\); upgrade/,
    );
  });

  it("the framework applies steps in order and names a missing step", () => {
    const kind: DocumentKind = {
      name: "demo",
      current: 3,
      unversioned: 1,
      versionOf: (d) => d.v,
      migrations: [
        { from: 1, change: "a", up: (d) => ({ ...d, v: 2, a: true }) },
        { from: 2, change: "b", up: (d) => ({ ...d, v: 3, b: !!d.a }) },
      ],
    };
    expect(migrate(kind, {})).toEqual({
      doc: { v: 3, a: true, b: true },
      from: 1,
      applied: ["v1 → v2: a", "v2 → v3: b"],
    });
    expect(() => migrate({ ...kind, migrations: kind.migrations.slice(1) }, { v: 1 })).toThrow(
      MigrationError,
    );
    expect(() => migrate(RESULTS_DOCUMENT, [])).toThrow(/JSON object/);
  });
});

describe("medalist migrate", () => {
  it("--check reports, then the files are rewritten once; a broken file fails with its reason", async () => {
    const dir = tmp();
    const results = join(dir, "results.json"),
      run = join(dir, "run.json"),
      bad = join(dir, "bad.json");
    copyFileSync(join(fixtures, "v1-results.json"), results);
    copyFileSync(join(fixtures, "v1-run.json"), run);
    writeFileSync(bad, "{ not json");
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      expect(await migrateCommand.run([results, run, "--check"])).toBe(1);
      expect(JSON.parse(readFileSync(results, "utf8")).schemaVersion).toBe(1);
      expect(await migrateCommand.run([results, run])).toBe(0);
      const text = log.mock.calls.map((c) => c.join(" ")).join("\n");
      expect(text).toMatch(/results.json: results file migrated from version 1 to 2/);
      expect(text).toMatch(/run.json: run file migrated from version 1 to 2/);
      expect(JSON.parse(readFileSync(results, "utf8")).schemaVersion).toBe(2);
      expect(JSON.parse(readFileSync(run, "utf8")).schemaVersion).toBe(2);
      expect(readResults(results).runs[1].failure?.exitCode).toBe(127);
      log.mockClear();
      expect(await migrateCommand.run([results, run, "--check"])).toBe(0);
      expect(log.mock.calls.map((c) => c.join(" ")).join("\n")).toMatch(/already version 2/);
      expect(await migrateCommand.run([bad])).toBe(1);
      expect(log.mock.calls.at(-1)!.join(" ")).toMatch(/bad.json: FAILED: cannot read it as JSON/);
    } finally {
      log.mockRestore();
    }
  });
});

describe("baseline cache and versions", () => {
  const prev = process.cwd();
  beforeEach(() => process.chdir(tmp()));
  afterEach(() => process.chdir(prev));

  it("the schema version is part of the cache key", () => {
    expect(cacheKey("abc", "sha1")).toBe(`medalist-v${RESULTS_SCHEMA_VERSION}-abc-sha1`);
  });

  it("an unreadable cached baseline is a miss with a warning that says why", async () => {
    const cache = fakeCache();
    // The fake cache keeps every file of the folder: the results file is cut short.
    cache.store.set(cacheKey("abc", "sha1"), JSON.stringify({ "results.json": "{ truncated" }));
    const warnings: string[] = [];
    // @actions/core's warning() is a workflow command on stdout.
    const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      warnings.push(String(chunk));
      return true;
    });
    try {
      expect(await restoreFromCache(cache, "abc", "sha1")).toBeNull();
    } finally {
      write.mockRestore();
    }
    expect(warnings.join("")).toMatch(
      /cached baseline under key medalist-v2-abc-sha1 is unreadable, so it is treated as a miss/,
    );
  });
});
