import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  checkQuota,
  DEFAULT_QUOTA,
  describeFinalBreach,
  finalQuotaCheck,
  MAX_ENTRIES,
  treeUsage,
} from "../../src/execute/quota.js";

const run = () => {
  const root = mkdtempSync(join(tmpdir(), "medalist-quota-"));
  const dir = join(root, "run");
  for (const d of ["submission", "logs", "code"]) mkdirSync(join(dir, d), { recursive: true });
  return { root, dir };
};

describe("the final quota check after the agent exits", () => {
  it("catches a 1 TiB sparse file (apparent size) that takes almost no disk", () => {
    const { dir } = run();
    const file = join(dir, "logs", "sparse.bin");
    execFileSync("truncate", ["-s", "1T", file]);
    expect(statSync(file).blocks * 512).toBeLessThan(1024 ** 2); // really sparse
    const b = finalQuotaCheck(dir, DEFAULT_QUOTA);
    expect(b).toMatchObject({ folder: "logs", limit: 1024 ** 3 });
    expect(b!.apparent).toBe(1024 ** 4);
    expect(b!.allocated).toBeLessThan(1024 ** 2);
    expect(describeFinalBreach(b!)).toBe(
      "disk: /home/logs was over its 1024.0 MiB quota when the agent exited: 1048576.0 MiB or more (1048576.0 MiB apparent, 0.0 MiB on disk)",
    );
  });

  it("catches allocated bytes past the limit, and passes a folder within it", () => {
    const { dir } = run();
    writeFileSync(join(dir, "code", "dense.bin"), Buffer.alloc(256 * 1024, 1));
    const quota = { submission: 1024 ** 2, logs: 1024 ** 2, code: 128 * 1024 };
    expect(finalQuotaCheck(dir, quota)).toMatchObject({ folder: "code", limit: 128 * 1024 });
    expect(finalQuotaCheck(dir, { ...quota, code: 1024 ** 2 })).toBeNull();
  });

  it("follows no link: a link to a huge file outside counts as a link", () => {
    const { root, dir } = run();
    const big = join(root, "big.bin");
    execFileSync("truncate", ["-s", "10G", big]);
    symlinkSync(big, join(dir, "submission", "submission.csv"));
    symlinkSync(root, join(dir, "code", "up"));
    expect(finalQuotaCheck(dir, DEFAULT_QUOTA)).toBeNull();
  });

  it("counts entries, stopping at the bound", () => {
    const { dir } = run();
    for (let i = 0; i < 30; i++) writeFileSync(join(dir, "logs", `f${i}`), "");
    expect(treeUsage(join(dir, "logs"), Infinity, 10)).toMatchObject({ entries: 10, complete: false });
    expect(treeUsage(join(dir, "logs"))).toMatchObject({ entries: 30, complete: true, apparent: 0 });
    expect(MAX_ENTRIES).toBe(100_000);
  });

  it("sees what the polled check sees, plus what came just before exit", () => {
    const { dir } = run();
    expect(checkQuota(dir, DEFAULT_QUOTA)).toBeNull();
    expect(finalQuotaCheck(dir, DEFAULT_QUOTA)).toBeNull();
    execFileSync("truncate", ["-s", "2G", join(dir, "submission", "submission.csv")]);
    expect(finalQuotaCheck(dir, DEFAULT_QUOTA)).toMatchObject({
      folder: "submission",
      apparent: 2 * 1024 ** 3,
    });
  });
});
