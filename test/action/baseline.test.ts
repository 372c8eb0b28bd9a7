// The cache baseline is there or loudly absent: a broken or missing cache service is not a miss.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { keysTried, restoreFromCache, watchRestore } from "../../src/action/baseline.js";
import { RESULTS_SCHEMA_VERSION } from "../../src/results/schema.js";
import { fakeCache } from "./fake-cache.js";

describe("restoreFromCache", () => {
  const prev = process.cwd();
  beforeAll(() => process.chdir(mkdtempSync(`${tmpdir()}/medalist-baseline-`)));
  afterAll(() => process.chdir(prev));
  const quiet = () => vi.spyOn(process.stdout, "write").mockImplementation(() => true);

  it("a real miss is null (the caller names the keys tried)", async () => {
    expect(await restoreFromCache(fakeCache(), "h", "abc")).toBeNull();
    expect(keysTried("h", "abc")).toBe(
      `exact key medalist-v${RESULTS_SCHEMA_VERSION}-h-abc, then the newest key starting with medalist-v${RESULTS_SCHEMA_VERSION}-h-`,
    );
  });

  it("a service error logged as a warning (4xx) or an error (5xx) fails with the service's answer", async () => {
    for (const status of [503, 429]) {
      const cache = fakeCache();
      cache.status = status;
      const out = quiet();
      await expect(restoreFromCache(cache, "h", "abc")).rejects.toThrow(
        `The service answered: Cache service responded with ${status}`,
      );
      out.mockRestore();
    }
  });

  it("no cache service in the job fails before any restore", async () => {
    const cache = { ...fakeCache(), available: () => false };
    await expect(restoreFromCache(cache, "h", "abc")).rejects.toThrow(/no Actions cache service/);
  });

  it("watchRestore decodes the workflow command's escapes and restores stdout", async () => {
    const write = process.stdout.write;
    const out = quiet();
    const { failures } = await watchRestore(async () => {
      process.stdout.write("::error::Failed to restore: a%0Ab 100%25\n");
      return 1;
    });
    out.mockRestore();
    expect(failures).toEqual(["a\nb 100%"]);
    expect(process.stdout.write).toBe(write);
  });
});
