import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { fakeCache } from "./fake-cache.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { uploadRuns } from "../../src/action/artifacts.js";
import {
  CACHE_DIR,
  cacheKey,
  restoreFromCache,
  saveToCache,
  type CacheApi,
} from "../../src/action/baseline.js";
import { isGhes, readEvent } from "../../src/action/event.js";
import { readSettings } from "../../src/action/inputs.js";
import { forkRefusal } from "../../src/action/main.js";
import { PR_PAYLOAD } from "./harness.js";

const results = (sha: string, finishedAt: string) => ({
  schemaVersion: 1,
  medalistVersion: "0.1.0",
  label: "head",
  suite: { name: "s", hash: "abc123", competitions: [], seeds: 1 },
  agent: { description: "a", image: null, imageDigest: null },
  git: { sha, ref: "refs/heads/main" },
  environment: { executor: "local", timeLimitSecs: 60, gpuModel: null, node: "v20", platform: "linux-x64" },
  startedAt: finishedAt,
  finishedAt,
  runs: [],
});

describe("event", () => {
  it("reads a pull_request payload", () => {
    const e = readEvent({
      GITHUB_EVENT_PATH: PR_PAYLOAD,
      GITHUB_REPOSITORY: "acme/agent",
      GITHUB_EVENT_NAME: "pull_request",
    });
    expect(e.pr).toEqual({
      number: 7,
      baseSha: "1f3d5b7a9c0e2d4f6a8b0c2e4f6a8b0c2d4e6f80",
      baseRef: "main",
      headSha: "8c2e1f0a4d3b5e6f7a8b9c0d1e2f3a4b5c6d7e8f",
      headRepo: "acme/agent",
      isFork: false,
    });
    expect(e.onDefaultBranch).toBe(false);
    expect(e.runnerEnvironment).toBe("unknown");
  });

  it("knows a push to the default branch", () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-ev-"));
    writeFileSync(
      join(dir, "push.json"),
      JSON.stringify({ ref: "refs/heads/main", repository: { default_branch: "main" } }),
    );
    const env = {
      GITHUB_EVENT_PATH: join(dir, "push.json"),
      GITHUB_EVENT_NAME: "push",
      GITHUB_REF: "refs/heads/main",
    };
    expect(readEvent(env).onDefaultBranch).toBe(true);
    expect(readEvent({ ...env, GITHUB_REF: "refs/heads/feature" }).onDefaultBranch).toBe(false);
  });

  it("tells GitHub.com from Enterprise Server", () => {
    const e = readEvent({});
    expect(isGhes({ ...e, serverUrl: "https://github.com" })).toBe(false);
    expect(isGhes({ ...e, serverUrl: "https://acme.ghe.com" })).toBe(false);
    expect(isGhes({ ...e, serverUrl: "https://git.acme.internal" })).toBe(true);
  });
});

describe("fork refusal", () => {
  const settings = readSettings(() => "");
  const base = readEvent({ GITHUB_EVENT_PATH: PR_PAYLOAD });
  const fork = { ...base, pr: { ...base.pr!, headRepo: "mallory/agent", isFork: true } };

  it("refuses forks on self-hosted or unknown runners only", () => {
    expect(forkRefusal({ ...fork, runnerEnvironment: "self-hosted" }, settings)).toMatch(
      /refusing.*allow-fork-prs/,
    );
    expect(forkRefusal({ ...fork, runnerEnvironment: "unknown" }, settings)).toMatch(/refusing/);
    expect(forkRefusal({ ...fork, runnerEnvironment: "github-hosted" }, settings)).toBeNull();
    expect(
      forkRefusal({ ...fork, runnerEnvironment: "self-hosted" }, { ...settings, allowForkPrs: true }),
    ).toBeNull();
    expect(forkRefusal({ ...base, runnerEnvironment: "self-hosted" }, settings)).toBeNull();
  });
});

describe("cache baseline", () => {
  let cwd: string;
  const prev = process.cwd();
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), "medalist-cache-"));
    process.chdir(cwd);
  });
  afterEach(() => process.chdir(prev));

  it("saves under suite hash + commit, restores the base commit, else the newest for the suite", async () => {
    const cache = fakeCache();
    const now = new Date("2026-12-02T12:00:00Z");
    for (const [sha, at] of [
      ["aaaaaaa1", "2026-12-01T00:00:00Z"],
      ["bbbbbbb2", "2026-12-02T09:00:00Z"],
    ]) {
      writeFileSync("r.json", JSON.stringify(results(sha, at)));
      expect(await saveToCache(cache, "r.json", "abc123", sha)).toBeNull();
    }
    expect([...cache.store.keys()]).toEqual([cacheKey("abc123", "aaaaaaa1"), cacheKey("abc123", "bbbbbbb2")]);
    expect(await saveToCache(cache, "r.json", "abc123", "bbbbbbb2")).toMatch(/did not store/);

    const exact = await restoreFromCache(cache, "abc123", "aaaaaaa1", now);
    expect(exact!.description).toBe("cached results of the base commit aaaaaaa (36.0 h old)");
    const fallback = await restoreFromCache(cache, "abc123", "ccccccc3", now);
    expect(fallback!.results.git.sha).toBe("bbbbbbb2");
    expect(fallback!.description).toMatch(
      /bbbbbbb, the newest default-branch results for this suite \(3\.0 h old\); the base commit ccccccc has none/,
    );
    expect(await restoreFromCache(cache, "other-suite", "aaaaaaa1", now)).toBeNull();
    expect(CACHE_DIR).toBe(".medalist/baseline-cache");
  });

  it("a failing save only reports the reason; a failing restore throws", async () => {
    writeFileSync("r.json", JSON.stringify(results("a", "2026-12-01T00:00:00Z")));
    const broken: CacheApi = {
      saveCache: async () => Promise.reject(new Error("cache service down")),
      restoreCache: async () => Promise.reject(new Error("cache service down")),
    };
    expect(await saveToCache(broken, "r.json", "h", "a")).toBe("cache service down");
    await expect(restoreFromCache(broken, "h", "a")).rejects.toThrow(/down/);
  });
});

describe("trajectory uploads", () => {
  it("uploads one artifact for all of a side's run folders; folders that are not there are left out", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-art-"));
    for (const id of ["c.s0", "c.s1"]) {
      mkdirSync(join(dir, "runs", id, "logs"), { recursive: true });
      writeFileSync(join(dir, "runs", id, "logs", "agent.log"), "hi");
    }
    const calls: string[] = [];
    const api = {
      upload: async (name: string, files: string[], root: string) => {
        calls.push(`${name}:${files.map((f) => f.slice(root.length + 1)).join(",")}`);
        return { id: 10 };
      },
    };
    const folders = ["c.s0", "c.s1", "c.s2"].map((id) => join(dir, "runs", id));
    expect(await uploadRuns(api, "medalist-s-head", folders)).toEqual({ id: 10, notes: [] });
    expect(calls).toEqual(["medalist-s-head:c.s0/logs/agent.log,c.s1/logs/agent.log"]);
  });
});
