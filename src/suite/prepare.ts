import { join } from "node:path";
import type { RegistryEntry } from "../registry/registry.js";
import { prepareCompetition } from "../prepare/prepare.js";

export interface PreparedPaths {
  publicDir: string;
  privateDir: string;
}

export function preparedPaths(dataDir: string, id: string): PreparedPaths {
  return {
    publicDir: join(dataDir, id, "prepared", "public"),
    privateDir: join(dataDir, id, "prepared", "private"),
  };
}

/**
 * Makes sure a competition's data is on the runner, as `medalist prepare` does: a warm check when
 * it is already prepared (instant), generation for toy competitions, reuse of MLE-bench's prepared
 * data, or a Kaggle download and split.
 */
export async function ensurePrepared(
  entry: RegistryEntry,
  dataDir: string,
  log: (line: string) => void,
): Promise<PreparedPaths> {
  const r = await prepareCompetition(entry, { dataDir, log });
  if (r.status !== "ready") log(`${entry.competition.id}: data ${r.status} in ${dataDir}`);
  return preparedPaths(dataDir, entry.competition.id);
}
