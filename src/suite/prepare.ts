import { existsSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../errors.js";
import type { RegistryEntry } from "../registry/registry.js";
import { prepareCompetition, preparedDir } from "../prepare/prepare.js";
import { kaggleCredentials } from "../prepare/kaggle.js";
import { NotDownloaded } from "../prepare/download-gate.js";

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

/** How the suite names its competitions, for the `medalist prepare` command it suggests. */
export interface SuiteSelection {
  split?: string;
  include: string[];
}

/** Competitions with nothing prepared and no zip: only a Kaggle download would make them ready. */
export function notPrepared(entries: RegistryEntry[], dataDir: string): RegistryEntry[] {
  return entries.filter(({ competition: c }) => {
    if (c.source === "toy") return false;
    return !existsSync(preparedDir(dataDir, c.id)) && !existsSync(join(dataDir, c.id, `${c.id}.zip`));
  });
}

/** The `medalist prepare` command that prepares `missing` (the suite's split when it has one). */
export function prepareCommandFor(missing: string[], dataDir: string, sel?: SuiteSelection): string {
  const q = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  const named = sel?.split && missing.length > 3 ? sel.include.filter((id) => missing.includes(id)) : missing;
  const parts = [
    ...(sel?.split && missing.length > 3 ? [`--split ${q(sel.split)}`] : []),
    ...named.map((id) => `--competition ${q(id)}`),
  ];
  return `medalist prepare ${parts.join(" ")} --data-dir ${q(dataDir)}`;
}

/**
 * Checked before anything is created: competitions not prepared in `dataDir` are downloaded only
 * when Kaggle credentials are set and Medalist has a recipe for each; otherwise one sentence
 * says which are missing and the `medalist prepare` command that makes them ready.
 */
export function checkPrepared(entries: RegistryEntry[], dataDir: string, sel?: SuiteSelection): void {
  const missing = notPrepared(entries, dataDir);
  if (missing.length === 0) return;
  const ids = missing.map((e) => e.competition.id);
  const shown = ids.length <= 3 ? ids.join(", ") : `${ids.slice(0, 3).join(", ")} and ${ids.length - 3} more`;
  const what =
    `dataDir ${dataDir}: ${ids.length === 1 ? "1 competition is" : `${ids.length} competitions are`} ` +
    `not prepared (${shown})`;
  const noRecipe = missing.filter((e) => !e.competition.prepare?.split).map((e) => e.competition.id);
  if (noRecipe.length > 0) {
    throw new UserError(
      `${what}, and Medalist cannot prepare ${noRecipe.join(", ")} itself: prepare ${noRecipe.length === 1 ? "it" : "them"} ` +
        `with MLE-bench (mlebench prepare -c ID --data-dir ${dataDir}), or set dataDir to where MLE-bench prepared them`,
    );
  }
  try {
    kaggleCredentials();
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    throw new UserError(
      `${what}: run \`${prepareCommandFor(ids, dataDir, sel)}\` first (it downloads from Kaggle, with ` +
        "KAGGLE_USERNAME and KAGGLE_KEY set), or set dataDir to where MLE-bench prepared them",
    );
  }
}

/**
 * Makes sure a competition's data is on the runner, as `medalist prepare` does: a warm check when
 * it is already prepared (instant), generation for toy competitions, reuse of MLE-bench's prepared
 * data, or a Kaggle download and split (checkPrepared first says what cannot be done).
 */
export async function ensurePrepared(
  entry: RegistryEntry,
  dataDir: string,
  log: (line: string) => void,
): Promise<PreparedPaths> {
  let r;
  try {
    r = await prepareCompetition(entry, { dataDir, log });
  } catch (e) {
    // Alone (not a batch), the competition's line is the whole cause, with its fix.
    if (e instanceof NotDownloaded)
      throw new UserError(`${entry.competition.id}: ${e.reason.message}`, e.reason.exitCode);
    throw e;
  }
  if (r.status !== "ready") log(`${entry.competition.id}: data ${r.status} in ${dataDir}`);
  return preparedPaths(dataDir, entry.competition.id);
}
