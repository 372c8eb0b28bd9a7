// The artifacts that carry shard results to the report job fail (docs/reliability.md): a shard's
// upload fails, or its results.json arrives cut at a seeded byte. The report counts nothing twice and
// nothing of a torn file; a torn file stops it with one sentence naming the shard. After the shard's
// job is re-run (attempt 2, same run store) every run is counted once, with the undisturbed outcome.
// A smaller version of `npm run bench -- faults` (bench/faults/artifacts.ts); trials: MEDALIST_FAULT_TEST_TRIALS.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shardTrial } from "../../bench/faults/artifacts.js";
import { rng } from "../../src/prepare/random.js";
import type { SuiteResults } from "../../src/results/schema.js";
import { faultSuite, tally } from "../helpers/fault-suite.js";

const TRIALS = Number(process.env.MEDALIST_FAULT_TEST_TRIALS ?? 3);
const SEED = Number(process.env.MEDALIST_FAULT_SEED ?? 33);

describe("shard results faults (artifact upload failed, results torn)", () => {
  const work = mkdtempSync(join(tmpdir(), "medalist-shard-faults-"));
  let clean: SuiteResults;
  let base: SuiteResults;
  beforeAll(async () => {
    clean = await faultSuite(join(work, "suite"), 2, 4, "head").run(join(work, "clean"), { log: () => {} });
    base = await faultSuite(join(work, "base"), 2, 4, "base").run(join(work, "base-out"), { log: () => {} });
  }, 120_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("a failed upload: the report records that shard's runs as not run; after the re-run each run counts once", async () => {
    const r = rng(SEED + 1);
    for (let n = 0; n < TRIALS; n++) {
      const t = await shardTrial(work, "upload", r, n);
      expect(t.uploadErrors).toHaveLength(1);
      expect(t.first.error).toBeNull();
      // 8 runs in 3 shards round robin: a shard holds 2 or 3.
      expect([2, 3]).toContain(t.first.notRun);
      const got = tally(t.suite.runIds, clean, t.again.results!, base, t.suite.config);
      expect(got).toEqual({ lost: 0, doubleCounted: 0, differentOutcomes: 0, differentVerdict: false });
      // The re-run job reused its runs from the run store.
      expect(t.suite.executed).toHaveLength(t.suite.runIds.length);
    }
  }, 180_000);

  it("a torn results.json: the report stops with one sentence naming the shard; after the re-run each run counts once", async () => {
    const r = rng(SEED + 2);
    for (let n = 0; n < TRIALS; n++) {
      const t = await shardTrial(work, "torn", r, n);
      // Cut right before its last byte (the newline), the file still parses: its seal refuses it.
      if (t.first.error === null) expect([2, 3]).toContain(t.first.notRun);
      else
        expect(t.first.error).toMatch(
          /^the results of shard [1-3] cannot be read \(.*results\.json: not a results JSON file \(.*\); its seal does not match .*\): the file is half-written or damaged, so none of its runs is counted; re-run that shard's job/,
        );
      expect(t.first.error ?? "").not.toMatch(/\n/);
      const got = tally(t.suite.runIds, clean, t.again.results!, base, t.suite.config);
      expect(got).toEqual({ lost: 0, doubleCounted: 0, differentOutcomes: 0, differentVerdict: false });
      expect(t.suite.executed).toHaveLength(t.suite.runIds.length);
    }
  }, 180_000);
});
