import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as core from "@actions/core";
import type { CacheApi } from "../../src/action/baseline.js";

/**
 * An in-memory Actions cache with the service's semantics: a key is saved once (-1 after), and a
 * restore takes the exact key, else the newest entry whose key starts with a restore prefix.
 * With `status` set (e.g. 503) the service is down: a restore behaves as @actions/cache's does
 * then, logging "Failed to restore: …" (an error for 5xx, a warning otherwise) and answering
 * undefined, like a miss.
 * Every file of the (flat) cached folder is kept.
 */
export function fakeCache(): CacheApi & {
  store: Map<string, string>;
  keys: string[];
  status: number | null;
} {
  const store = new Map<string, string>();
  return {
    store,
    status: null,
    get keys() {
      return [...store.keys()];
    },
    async saveCache(paths, key) {
      if (store.has(key)) return -1;
      const files = Object.fromEntries(
        readdirSync(paths[0]).map((f) => [f, readFileSync(join(paths[0], f), "utf8")]),
      );
      store.set(key, JSON.stringify(files));
      return store.size;
    },
    async restoreCache(paths, key, restoreKeys = []) {
      if (this.status !== null) {
        const message = `Failed to restore: Cache service responded with ${this.status}`;
        if (this.status >= 500) core.error(message);
        else core.warning(message);
        return undefined;
      }
      const hit = store.has(key)
        ? key
        : [...store.keys()].reverse().find((k) => restoreKeys.some((p) => k.startsWith(p)));
      if (!hit) return undefined;
      mkdirSync(paths[0], { recursive: true });
      for (const [f, text] of Object.entries(JSON.parse(store.get(hit)!) as Record<string, string>))
        writeFileSync(join(paths[0], f), text);
      return hit;
    },
  };
}
