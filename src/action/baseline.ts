// Baseline results for the comparison: from the Actions cache, a file, or a run of the base ref.
import { copyFileSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as cache from "@actions/cache";
import { RESULTS_SCHEMA_VERSION, type SuiteResults } from "../results/schema.js";
import { readCachedResults } from "./cached-results.js";
import { UserError } from "../errors.js";
import { CACHE_KEY_PREFIX } from "./constants.js";

/** Fixed path (the cache version hashes it), relative to the workspace, shared by save and restore. */
export const CACHE_DIR = ".medalist/baseline-cache";
const CACHE_FILE = "results.json";

export const cacheKey = (suiteHash: string, sha: string) => `${cacheKeyPrefix(suiteHash)}${sha}`;
export const cacheKeyPrefix = (suiteHash: string) =>
  `${CACHE_KEY_PREFIX}-v${RESULTS_SCHEMA_VERSION}-${suiteHash}-`;

/**
 * The Actions cache as @actions/cache offers it: a restore that fails on the service only logs
 * "Failed to restore: …" (as ::error:: or ::warning::) and answers like a miss.
 */
export interface CacheApi {
  restoreCache: (paths: string[], key: string, restoreKeys?: string[]) => Promise<string | undefined>;
  saveCache: (paths: string[], key: string) => Promise<number>;
  /** Whether this job has a cache service at all (false: none configured). */
  available?: () => boolean;
}

export const actionsCache: CacheApi = {
  restoreCache: (p, k, r) => cache.restoreCache(p, k, r),
  saveCache: (p, k) => cache.saveCache(p, k),
  available: () => cache.isFeatureAvailable(),
};

/** Why a job cannot use the Actions cache (CacheApi.available() is false). */
export const NO_CACHE_SERVICE =
  "this job has no Actions cache service (neither ACTIONS_CACHE_URL nor ACTIONS_RESULTS_URL is set)";

/** Decodes a workflow command's escaped message (%25, %0D, %0A). */
const unescape = (s: string) => s.replace(/%0D/g, "\r").replace(/%0A/g, "\n").replace(/%25/g, "%");

/**
 * Runs `fn` while watching this process's output for the cache library's "Failed to restore"
 * messages, which are its only report of a service error. Returns fn's value and those messages.
 */
export async function watchRestore<T>(fn: () => Promise<T>): Promise<{ value: T; failures: string[] }> {
  const failures: string[] = [];
  const original = process.stdout.write;
  const scan = (chunk: unknown) => {
    const text = typeof chunk === "string" ? chunk : Buffer.isBuffer(chunk) ? chunk.toString("utf8") : "";
    for (const line of text.split(/\r?\n/)) {
      const m = /^::(?:error|warning)(?: [^:]*)?::Failed to restore: (.*)$/.exec(line);
      if (m) failures.push(unescape(m[1]));
    }
  };
  process.stdout.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
    scan(chunk);
    return (original as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof process.stdout.write;
  try {
    return { value: await fn(), failures };
  } finally {
    process.stdout.write = original;
  }
}

/** The keys a restore tries, in order, for the report of a miss. */
export function keysTried(suiteHash: string, baseSha: string): string {
  return `exact key ${cacheKey(suiteHash, baseSha)}, then the newest key starting with ${cacheKeyPrefix(suiteHash)}`;
}

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
 * Returns null on a real miss. A cache service that fails or is absent throws a UserError with
 * the service's answer: a broken cache must not look like "no baseline".
 */
export async function restoreFromCache(
  api: CacheApi,
  suiteHash: string,
  baseSha: string,
  now = new Date(),
): Promise<Baseline | null> {
  rmSync(CACHE_DIR, { recursive: true, force: true });
  if (api.available && !api.available()) {
    throw new UserError(
      `baseline: cache: ${NO_CACHE_SERVICE}; use \`baseline: run\` or \`baseline: file:<path>\``,
      1,
    );
  }
  const key = cacheKey(suiteHash, baseSha);
  let restored: { value: string | undefined; failures: string[] };
  try {
    restored = await watchRestore(() => api.restoreCache([CACHE_DIR], key, [cacheKeyPrefix(suiteHash)]));
  } catch (e) {
    throw new UserError(`baseline: cache: the cache restore failed: ${(e as Error).message}`, 1);
  }
  if (restored.failures.length > 0) {
    throw new UserError(
      `baseline: cache: the cache service failed, so whether a baseline exists is unknown; no agent was run. ` +
        `The service answered: ${restored.failures.join("; ")}. Re-run the job, or use \`baseline: run\`.`,
      1,
    );
  }
  const hit = restored.value;
  const file = join(CACHE_DIR, CACHE_FILE);
  const results = hit && existsSync(file) ? readCachedResults(file, hit) : null;
  if (!hit || !results) return null;
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
