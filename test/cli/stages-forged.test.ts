// The staged workflow on the command line cannot be fooled by records placed in a shard's results
// folder: `medalist run --shard --stage` reuses only runs this machine's key sealed (suite/seal.ts).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { coinSuite } from "../helpers/coin-suite.js";
import { runCli } from "../helpers/cli.js";

describe("medalist run --stage with forged run records in its results folder", () => {
  const dir = mkdtempSync(join(tmpdir(), "medalist-cli-forged-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("runs every forged run again and keeps the honest grades", { timeout: 300_000 }, async () => {
    const { yml } = coinSuite(dir, 4);
    const cfg = yml("forged", { MEDAL_P: "0", SALT: "h" });
    const planFile = join(dir, "plan.json");
    expect(
      (
        await runCli(
          "plan",
          "--config",
          cfg,
          "--shards",
          "1",
          "--stages",
          "3",
          "--simulations",
          "0",
          "--out",
          planFile,
        )
      ).code,
    ).toBe(0);
    const out = join(dir, "shard");
    const stage = () =>
      runCli("run", "--config", cfg, "--shard", "1/1", "--stage", "1", "--plan", planFile, "--out", out);
    const honest = await stage();
    expect(honest.code, honest.all).toBe(0);
    const results = () =>
      JSON.parse(readFileSync(join(out, "head", "results.json"), "utf8")) as {
        runs: { grade: { any_medal: boolean } | null; reused?: boolean }[];
      };
    expect(results().runs.some((r) => r.grade?.any_medal)).toBe(false);
    // Sealed by this machine's key: a second invocation reuses them.
    expect((await stage()).all).toContain("4 reused");
    // The attacker's edit: gold everywhere, the identity and the old seal kept.
    const runs = join(out, "head", "runs");
    for (const id of readdirSync(runs)) {
      const file = join(runs, id, "run.json");
      const doc = JSON.parse(readFileSync(file, "utf8"));
      doc.result.grade = { ...doc.result.grade, gold_medal: true, any_medal: true };
      writeFileSync(file, JSON.stringify(doc, null, 2) + "\n");
    }
    const again = await stage();
    expect(again.code, again.all).toBe(0);
    expect(again.all).toContain("0 reused");
    expect(again.all).toMatch(/its record is not reused: its seal does not match/);
    expect(results().runs.some((r) => r.grade?.any_medal || r.reused)).toBe(false);
  });
});
