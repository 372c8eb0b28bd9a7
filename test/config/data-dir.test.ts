import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  defaultDataDir,
  holdsPreparedData,
  MEDALIST_DATA_DIR,
  mlebenchDataDir,
} from "../../src/config/data-dir.js";
import { validateConfig } from "../../src/config/load.js";

const tmp = () => mkdtempSync(join(tmpdir(), "medalist-cache-"));

describe("MLE-bench's data folder", () => {
  it("is appdirs' user cache folder + mle-bench/data", () => {
    expect(mlebenchDataDir({ env: {}, platform: "linux", home: "/h" })).toBe("/h/.cache/mle-bench/data");
    expect(mlebenchDataDir({ env: { XDG_CACHE_HOME: "/x" }, platform: "linux", home: "/h" })).toBe(
      "/x/mle-bench/data",
    );
    // A relative XDG_CACHE_HOME is ignored, as the XDG specification says.
    expect(mlebenchDataDir({ env: { XDG_CACHE_HOME: "rel" }, platform: "linux", home: "/h" })).toBe(
      "/h/.cache/mle-bench/data",
    );
    expect(mlebenchDataDir({ env: {}, platform: "darwin", home: "/h" })).toBe(
      "/h/Library/Caches/mle-bench/data",
    );
  });

  it("counts as holding prepared data only with some <id>/prepared/{public,private}/", () => {
    const cache = tmp();
    const data = join(cache, "mle-bench", "data");
    expect(holdsPreparedData(data)).toBe(false); // absent
    mkdirSync(join(data, "spooky-author-identification", "prepared", "public"), { recursive: true });
    expect(holdsPreparedData(data)).toBe(false); // no private/
    expect(defaultDataDir({ env: { XDG_CACHE_HOME: cache }, platform: "linux" })).toBe(MEDALIST_DATA_DIR);
    mkdirSync(join(data, "spooky-author-identification", "prepared", "private"));
    expect(holdsPreparedData(data)).toBe(true);
    expect(defaultDataDir({ env: { XDG_CACHE_HOME: cache }, platform: "linux" })).toBe(data);
  });
});

describe("the config's dataDir default", () => {
  afterEach(() => vi.unstubAllEnvs());
  const raw = { competitions: { split: "toy" }, agent: { command: "x" } };

  it("is MLE-bench's folder when it holds prepared competitions, else .medalist/data, and an explicit one wins", () => {
    if (process.platform === "darwin") return; // the cache folder is under the real home there
    const cache = tmp();
    vi.stubEnv("XDG_CACHE_HOME", cache);
    expect(validateConfig(raw, "m.yml").dataDir).toBe(".medalist/data");
    const data = join(cache, "mle-bench", "data");
    mkdirSync(join(data, "toy-churn", "prepared", "public"), { recursive: true });
    mkdirSync(join(data, "toy-churn", "prepared", "private"));
    expect(validateConfig(raw, "m.yml").dataDir).toBe(data);
    expect(validateConfig({ ...raw, dataDir: "mine" }, "m.yml").dataDir).toBe("mine");
  });
});
