// `npm run bench -- faults`, the shards' part: the artifacts that carry each shard's results to the
// report job fail (test/helpers/shard-faults.ts). A seeded shard's upload fails, or its results.json
// reaches the report cut at a seeded byte; the report reads what it has (a missing shard's runs are
// recorded as not run; a torn file stops it with a UserError), then the shard's job is re-run
// (attempt 2, fresh results folder, same run store) and the report runs again. Each row counts, over
// `trials` injections, runs lost, counted twice, verdicts other than the undisturbed suite's, and
// agent executions beyond one per run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rng } from "../../src/prepare/random.js";
import { faultSuite, tally } from "../../test/helpers/fault-suite.js";
import {
  MemoryArtifacts,
  reportRead,
  SHARD_PREFIX,
  shardJob,
  shardsOf,
  tearArtifact,
} from "../../test/helpers/shard-faults.js";
import type { FaultOptions, FaultRow } from "./types.js";

const M = 2;
const SEEDS = 4;
const SHARDS = 3;
const BACKEND = "toy suite in 3 shards, in-memory artifact store";

export type ShardFault = "upload" | "torn";

/** One trial: every shard's job, the fault on one, the report, the re-run shard job, the report again. */
export async function shardTrial(work: string, kind: ShardFault, r: () => number, n: number) {
  const suite = faultSuite(join(work, "suite"), M, SEEDS, "head");
  const api = new MemoryArtifacts();
  const store = join(work, `store-${kind}-${n}`);
  const hit = 1 + Math.floor(r() * SHARDS);
  const shards = shardsOf(suite, SHARDS);
  const name = `${SHARD_PREFIX}${hit}-of-${SHARDS}`;
  if (kind === "upload") api.failUpload = (x) => x === name;
  const uploadErrors: string[] = [];
  for (const shard of shards)
    await shardJob(suite, api, shard, join(work, `${kind}-${n}-job-${shard.index}`), store, 1).catch(
      (e: Error) => void uploadErrors.push(e.message),
    );
  if (kind === "torn") tearArtifact(api, name, "head/results.json", r());
  const first = await reportRead(suite, api, join(work, `${kind}-${n}-report-1`), SHARDS);
  api.failUpload = null;
  await shardJob(suite, api, shards[hit - 1], join(work, `${kind}-${n}-rerun`), store, 2);
  const again = await reportRead(suite, api, join(work, `${kind}-${n}-report-2`), SHARDS);
  return { suite, first, again, uploadErrors };
}

export async function faultRows(opts: FaultOptions): Promise<FaultRow[]> {
  const work = mkdtempSync(join(tmpdir(), "medalist-bench-shards-"));
  try {
    const clean = await faultSuite(join(work, "suite"), M, SEEDS, "head").run(join(work, "clean"), {
      log: () => {},
    });
    const base = await faultSuite(join(work, "base"), M, SEEDS, "base").run(join(work, "base-out"), {
      log: () => {},
    });
    const rows: FaultRow[] = [];
    for (const [kind, fault] of [
      ["upload", "a shard's results upload fails (artifact service 500), the shard's job re-run"],
      ["torn", "a shard's results.json cut at a seeded byte in its artifact, the shard's job re-run"],
    ] as const) {
      const r = rng(opts.seed + (kind === "upload" ? 11 : 12));
      const row: FaultRow = {
        fault,
        backend: BACKEND,
        trials: 0,
        lost: 0,
        doubleCounted: 0,
        differentVerdicts: 0,
        extraRuns: 0,
      };
      const stops = new Map<string, number>();
      for (let n = 0; n < opts.trials; n++) {
        const t = await shardTrial(work, kind, r, n);
        if (!t.again.results)
          throw new Error(`${kind} trial ${n}: the report after the re-run stopped: ${t.again.error}`);
        const got = tally(t.suite.runIds, clean, t.again.results, base, t.suite.config);
        row.trials++;
        row.lost += got.lost;
        row.doubleCounted += got.doubleCounted;
        row.differentVerdicts += got.differentVerdict || got.differentOutcomes > 0 ? 1 : 0;
        row.extraRuns += t.suite.executed.length - t.suite.runIds.length;
        const what = t.first.error
          ? `stopped: ${t.first.error.replace(/\/[^\s:]*\//g, "…/").slice(0, 90)}`
          : `${t.first.notRun} run(s) recorded as not run`;
        stops.set(what, (stops.get(what) ?? 0) + 1);
        rmSync(join(work, `store-${kind}-${n}`), { recursive: true, force: true });
      }
      console.error(`faults: ${kind}: the first report: ${JSON.stringify([...stops])}`);
      rows.push(row);
    }
    return rows;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
