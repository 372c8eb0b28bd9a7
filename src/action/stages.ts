// The staged sharded workflow's artifacts (docs/action.md): run/ with `stage` uploads under a
// stage's name; decide/ and report/ download the stages in order and merge them.
import { join } from "node:path";
import type { SuiteResults } from "../results/schema.js";
import { mergeStages, type MergedStages, type StageResults } from "../session/stages.js";
import { readShardSide, refusedNotice } from "./shard-seal.js";
import { artifactName, type ArtifactApi } from "./artifacts.js";

/** Shard artifacts of the unstaged workflow: medalist-<suite>-shard-<i>-of-<N>. */
export const shardArtifactPrefix = (suite: string) => artifactName(`medalist-${suite}-shard-`);

/** Shard artifacts of stage k: medalist-<suite>-stage-<k>-shard-<i>-of-<N>. */
export const stageArtifactPrefix = (suite: string, stage: number) =>
  artifactName(`medalist-${suite}-stage-${stage}-shard-`);

/** The newest uploaded attempt of each shard's results under `prefix`, by shard index. */
export async function shardArtifacts(api: ArtifactApi, prefix: string): Promise<Map<number, number>> {
  const pattern = /^(\d+)-of-(\d+)(?:-attempt(\d+))?$/;
  const chosen = new Map<number, { id: number; attempt: number }>();
  for (const a of await api.list!()) {
    if (!a.name.startsWith(prefix)) continue;
    const m = pattern.exec(a.name.slice(prefix.length));
    if (!m) continue;
    const index = Number(m[1]);
    const attempt = Number(m[3] ?? 1);
    const seen = chosen.get(index);
    if (!seen || attempt > seen.attempt) chosen.set(index, { id: a.id, attempt });
  }
  return new Map([...chosen].sort((a, b) => a[0] - b[0]).map(([i, { id }]) => [i, id]));
}

export interface DownloadedStages extends MergedStages {
  /** Stages found (1..ran, in order; the first stage without any artifact ends the list). */
  ran: number;
  /** Where each run's folder is: the shard download it came from. */
  runFolder: (runId: string) => string;
  /** One sentence per shard whose results were refused (no valid seal: action/shard-seal.ts). */
  refused: string[];
  /** The report's first line about them; null when none. */
  refusedNotice: string | null;
}

/**
 * Stages 1..upTo downloaded into dir/stages/<k>/<i> and merged (head side). Stops at the first
 * stage with no artifact; null when stage 1 has none. A stage's lost shards: their runs not run.
 */
export async function downloadStages(
  api: ArtifactApi,
  dir: string,
  suite: string,
  seeds: number,
  planned: number,
  upTo: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<DownloadedStages | null> {
  const stages: StageResults[] = [];
  const folderOf = new Map<string, string>();
  const refused: string[] = [];
  const refusedShards: { what: string; runs: number }[] = [];
  for (let k = 1; k <= upTo; k++) {
    const chosen = await shardArtifacts(api, stageArtifactPrefix(suite, k));
    if (chosen.size === 0) break;
    const docs: SuiteResults[] = [];
    for (const [index, id] of chosen) {
      const into = join(dir, "stages", String(k), String(index));
      await api.download!(id, into);
      const side = readShardSide(join(into, "head"), `stage ${k} shard ${index}`, env);
      const doc = side.results;
      if (side.refused) {
        refused.push(side.refused);
        refusedShards.push({ what: `stage ${k} shard ${index}`, runs: doc.runs.length });
      }
      docs.push(doc);
      for (const r of doc.runs) folderOf.set(r.runId, join(into, "head"));
    }
    stages.push({ stage: k, docs, expectShards: docs[0].shard?.count });
  }
  if (stages.length === 0) return null;
  return {
    ...mergeStages(stages, seeds, planned),
    ran: stages.length,
    runFolder: (runId) => folderOf.get(runId) ?? join(dir, "stages", "none"),
    refused,
    refusedNotice: refusedNotice(refusedShards),
  };
}
