// Faults on the way from the run jobs to the report job of the sharded workflow (docs/action.md),
// shared by test/action/shard-faults.test.ts and `npm run bench -- faults` (bench/faults/artifacts.ts):
// the toy suite of fault-suite.ts split into shards, each shard's results sealed and uploaded by the
// run step's own functions to an in-memory artifact store, and read back the way the report step
// does (newest attempt per shard, seal checked, shards merged). A fault hits one shard's artifact:
// its upload fails, or its results.json arrives cut at a byte. The resume is what a user does: the
// shard's job re-run (GITHUB_RUN_ATTEMPT 2, a fresh results folder, the same run store), then the report.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { uploadFiles, filesUnder, withheldBy, type ArtifactApi } from "../../src/action/artifacts.js";
import { readShardSide, sealShard } from "../../src/action/shard-seal.js";
import { shardArtifacts } from "../../src/action/stages.js";
import { UserError } from "../../src/errors.js";
import type { SuiteResults } from "../../src/results/schema.js";
import { mergeShards } from "../../src/session/merge.js";
import { readFileSync } from "node:fs";
import type { FaultSuite } from "./fault-suite.js";

export interface StoredArtifact {
  id: number;
  name: string;
  files: Map<string, Buffer>;
}

/** An in-memory artifact service: `failUpload` throws as the service does for one upload. */
export class MemoryArtifacts implements ArtifactApi {
  artifacts: StoredArtifact[] = [];
  failUpload: ((name: string) => boolean) | null = null;
  async upload(name: string, files: string[], root: string): Promise<{ id?: number }> {
    if (this.failUpload?.(name))
      throw new Error(
        "Failed to CreateArtifact: Received non-retryable error: Failed request: (500) Internal Server Error",
      );
    const id = this.artifacts.length + 1;
    const map = new Map<string, Buffer>();
    for (const f of files) map.set(relative(root, f), readFileSync(f));
    this.artifacts.push({ id, name, files: map });
    return { id };
  }
  async list(): Promise<{ id: number; name: string }[]> {
    return this.artifacts.map((a) => ({ id: a.id, name: a.name }));
  }
  async download(id: number, path: string): Promise<void> {
    const a = this.artifacts.find((x) => x.id === id);
    if (!a) throw new Error(`artifact ${id}: not found`);
    for (const [rel, bytes] of a.files) {
      mkdirSync(dirname(join(path, rel)), { recursive: true });
      writeFileSync(join(path, rel), bytes);
    }
  }
}

export const SHARD_PREFIX = "medalist-faults-shard-";

/** The workflow run's variables the seals are checked against (one key for every shard). */
export const shardEnv = (suite: FaultSuite): NodeJS.ProcessEnv => ({
  MEDALIST_RUN_KEY: suite.runKey.toString("utf8"),
  GITHUB_REPOSITORY: "acme/agent",
  GITHUB_RUN_ID: "4242",
});

/** The suite's runs split over `count` shards, round robin. */
export function shardsOf(suite: FaultSuite, count: number) {
  return Array.from({ length: count }, (_, i) => ({
    index: i + 1,
    count,
    runIds: suite.runIds.filter((_, j) => j % count === i),
  }));
}

/**
 * One run job: the shard run into `dir`/head (a fresh results folder) with the run store `store`,
 * sealed, then uploaded with the run step's functions. A failed upload throws (the job fails).
 */
export async function shardJob(
  suite: FaultSuite,
  api: ArtifactApi,
  shard: { index: number; count: number; runIds: string[] },
  dir: string,
  store: string,
  attempt: number,
): Promise<void> {
  await suite.run(join(dir, "head"), { shard, storeDir: store, log: () => {} });
  const env = shardEnv(suite);
  sealShard(dir, env);
  const name = `${SHARD_PREFIX}${shard.index}-of-${shard.count}${attempt > 1 ? `-attempt${attempt}` : ""}`;
  await uploadFiles(api, name, dir, filesUnder(join(dir, "head")), withheldBy(dir));
}

export interface ReportRead {
  /** The merged head results; null when the report stopped with a UserError. */
  results: SuiteResults | null;
  /** The UserError's sentence, when it stopped. */
  error: string | null;
  /** Runs recorded as not run (a missing or refused shard). */
  notRun: number;
}

/** The report job's reading of the shards: download, seal check, merge. Anything but a UserError throws. */
export async function reportRead(
  suite: FaultSuite,
  api: ArtifactApi,
  dir: string,
  count: number,
): Promise<ReportRead> {
  const env = shardEnv(suite);
  try {
    const docs: SuiteResults[] = [];
    for (const [index, id] of await shardArtifacts(api, SHARD_PREFIX)) {
      const into = join(dir, "shards", String(index));
      await api.download!(id, into);
      docs.push(readShardSide(join(into, "head"), `shard ${index}`, env).results);
    }
    if (docs.length === 0) throw new UserError("no shard results were uploaded", 1);
    const merged = mergeShards(docs, { expectShards: count });
    const notRun = merged.results.runs.filter((r) => r.details.notRun === "true").length;
    return { results: merged.results, error: null, notRun };
  } catch (e) {
    if (e instanceof UserError) return { results: null, error: e.message, notRun: 0 };
    throw e;
  }
}

/** Cuts one file of a stored artifact at byte `at` (as a torn write or transfer leaves it). */
export function tearArtifact(api: MemoryArtifacts, name: string, file: string, frac: number): number {
  const a = [...api.artifacts].reverse().find((x) => x.name === name);
  const bytes = a?.files.get(file);
  if (!a || !bytes) throw new Error(`no ${file} in artifact ${name}`);
  const at = Math.floor(frac * bytes.length);
  a.files.set(file, bytes.subarray(0, at));
  return at;
}
