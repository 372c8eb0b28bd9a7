import { mkdirSync, readFileSync } from "node:fs";
import { writeAtomic } from "../util/atomic.js";
import { join } from "node:path";
import { appendEntry, emptyHistory, parseHistory, type History, type HistoryEntry } from "./history.js";

/** The part of @actions/cache the history needs (restore the newest by prefix, save a new key). */
export interface CacheApi {
  restoreCache(paths: string[], primaryKey: string, restoreKeys?: string[]): Promise<string | undefined>;
  saveCache(paths: string[], key: string): Promise<number>;
}

export const HISTORY_FILE = "history.json";

/** Keys: medalist-history-<suite name>-<time>: restore takes the newest under the prefix. */
export function historyKeyPrefix(suiteName: string): string {
  return `medalist-history-${suiteName.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 80)}-`;
}

/** Restores the newest history into `dir`; an empty history (with why) when none or unreadable. */
export async function restoreHistory(
  cache: CacheApi,
  dir: string,
  suiteName: string,
): Promise<{ history: History; problem: string | null; key: string | null }> {
  mkdirSync(dir, { recursive: true });
  const prefix = historyKeyPrefix(suiteName);
  let key: string | undefined;
  try {
    key = await cache.restoreCache([dir], `${prefix}none`, [prefix]);
  } catch (e) {
    return { history: emptyHistory(), problem: `history not restored: ${(e as Error).message}`, key: null };
  }
  if (!key) return { history: emptyHistory(), problem: null, key: null };
  let text: string;
  try {
    text = readFileSync(join(dir, HISTORY_FILE), "utf8");
  } catch {
    return { history: emptyHistory(), problem: `history cache ${key} holds no ${HISTORY_FILE}`, key };
  }
  return { ...parseHistory(text), key };
}

/** Appends the entry and saves the history under a new key (a failed save only warns: returns why). */
export async function appendAndSave(
  cache: CacheApi,
  dir: string,
  suiteName: string,
  history: History,
  entry: HistoryEntry,
  now: Date = new Date(),
): Promise<{ history: History; problem: string | null }> {
  const next = appendEntry(history, entry);
  try {
    writeAtomic(join(dir, HISTORY_FILE), JSON.stringify(next, null, 2) + "\n");
  } catch (e) {
    // The old history stays whole (atomic write); this head joins it next time.
    return { history, problem: `history not saved: ${(e as Error).message}` };
  }
  const key = `${historyKeyPrefix(suiteName)}${now.toISOString().replace(/[:.]/g, "-")}`;
  try {
    await cache.saveCache([dir], key);
    return { history: next, problem: null };
  } catch (e) {
    return { history: next, problem: `history not saved: ${(e as Error).message}` };
  }
}
