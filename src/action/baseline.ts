// Baseline results for the comparison: from the Actions cache, a file, or a run of the base ref.
import { copyFileSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as cache from "@actions/cache";
import type { SuiteResults } from "../results/schema.js";
import { readResults } from "../suite/store.js";
import { fileBaseline } from "../session/evaluate.js";
import { CACHE_KEY_PREFIX } from "./constants.js";

/** Fixed path (the cache version hashes it), relative to the workspace, shared by save and restore. */
export const CACHE_DIR = ".medalist/baseline-cache";
const CACHE_FILE = "results.json";

export const cacheKey = (suiteHash: string, sha: string) => `${CACHE_KEY_PREFIX}-${suiteHash}-${sha}`;
export const cacheKeyPrefix = (suiteHash: string) => `${CACHE_KEY_PREFIX}-${suiteHash}-`;

export interface CacheApi {
  restoreCache: (paths: string[], key: string, restoreKeys?: string[]) => Promise<string | undefined>;
  saveCache: (paths: string[], key: string) => Promise<number>;
}

export const actionsCache: CacheApi = {
  restoreCache: (p, k, r) => cache.restoreCache(p, k, r),
  saveCache: (p, k) => cache.saveCache(p, k),
};

export interface Baseline {
  results: SuiteResults;
  /** One line for the report: where the baseline came from. */
  description: string;
}

function age(iso: string, now: Date): string {
  const ms = now.getTime() - new Date(iso).getTime();
  if (!Number.isFinite(ms) || ms < 0) return "age unknown";
  const h = ms / 3_600_000;
  return h < 1
    ? `${Math.round(ms / 60_000)} min old`
    : h < 48
      ? `${h.toFixed(1)} h old`
      : `${(h / 24).toFixed(1)} days old`;
}

/**
 * Restores the base commit's results, else the newest default-branch results of the same suite.
 * Returns null on a miss; throws when the cache service fails (like actions/cache's restore).
 */
export async function restoreFromCache(
  api: CacheApi,
  suiteHash: string,
  baseSha: string,
  now = new Date(),
): Promise<Baseline | null> {
  rmSync(CACHE_DIR, { recursive: true, force: true });
  const key = cacheKey(suiteHash, baseSha);
  const hit = await api.restoreCache([CACHE_DIR], key, [cacheKeyPrefix(suiteHash)]);
  const file = join(CACHE_DIR, CACHE_FILE);
  if (!hit || !existsSync(file)) return null;
  const results = readResults(file);
  const commit = results.git.sha ?? hit.slice(cacheKeyPrefix(suiteHash).length);
  const short = commit.slice(0, 7);
  const when = age(results.finishedAt, now);
  const description =
    hit === key
      ? `cached results of the base commit ${short} (${when})`
      : `cached results of ${short}, the newest default-branch results for this suite (${when}); the base commit ${baseSha.slice(0, 7)} has none`;
  return { results, description };
}

/** Saves results.json for this commit; a failure only warns (returns the reason). */
export async function saveToCache(
  api: CacheApi,
  resultsPath: string,
  suiteHash: string,
  sha: string,
): Promise<string | null> {
  mkdirSync(CACHE_DIR, { recursive: true });
  copyFileSync(resultsPath, join(CACHE_DIR, CACHE_FILE));
  try {
    const id = await api.saveCache([CACHE_DIR], cacheKey(suiteHash, sha));
    return id === -1 ? "the cache service did not store the results (the key may already exist)" : null;
  } catch (e) {
    return (e as Error).message;
  }
}

export function fromFile(path: string, shown = path): Baseline {
  const { results, description } = fileBaseline(path, shown);
  return { results, description };
}
