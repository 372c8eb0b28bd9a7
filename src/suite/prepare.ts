import { existsSync } from "node:fs";
import { join } from "node:path";
import type { RegistryEntry } from "../registry/registry.js";
import { prepareToy } from "../prepare/toy.js";
import { UserError } from "../errors.js";

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

/** Makes sure a competition's data is on the runner: toy data is generated, real data must be prepared. */
export function ensurePrepared(entry: RegistryEntry, dataDir: string): PreparedPaths {
  const c = entry.competition;
  if (c.source === "toy") prepareToy(c, dataDir);
  const paths = preparedPaths(dataDir, c.id);
  const sample = join(paths.publicDir, c.sampleSubmission);
  const answers = join(paths.privateDir, c.answers);
  for (const [what, file] of [
    ["sample submission", sample],
    ["answers", answers],
  ] as const) {
    if (!existsSync(file)) {
      throw new UserError(
        `${c.id}: ${what} not found at ${file}. Prepare the data first: medalist prepare --competition ${c.id} --data-dir ${dataDir}`,
      );
    }
  }
  return paths;
}
