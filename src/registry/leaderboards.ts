import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { RegistryEntry } from "./registry.js";

/** Where `medalist leaderboards fetch` keeps verified leaderboards: <dir>/<id>/leaderboard.csv. */
export function defaultLeaderboardsDir(): string {
  return process.env.MEDALIST_LEADERBOARDS_DIR ?? join(homedir(), ".cache", "medalist", "leaderboards");
}

export function fetchedLeaderboardFile(dir: string, id: string): string {
  return join(dir, id, "leaderboard.csv");
}

const verified = new Map<string, string>(); // path → "size:mtime" it was verified at

/** True when the file's SHA-256 and size match the competition's pinned leaderboard. */
export function matchesPin(entry: RegistryEntry, file: string): boolean {
  const pin = entry.competition.leaderboardPin;
  if (!pin || !existsSync(file)) return false;
  const st = statSync(file);
  if (st.size !== pin.bytes) return false;
  const stamp = `${st.size}:${st.mtimeMs}`;
  if (verified.get(file) === stamp) return true;
  const ok = createHash("sha256").update(readFileSync(file)).digest("hex") === pin.sha256;
  if (ok) verified.set(file, stamp);
  return ok;
}

/**
 * The leaderboard CSV to take thresholds and percentiles from, or undefined (then the precomputed
 * `thresholds` apply): a fetched leaderboard whose SHA-256 matches the pin takes precedence over one
 * shipped in the competition's folder (`leaderboard` field).
 */
export function leaderboardPath(
  entry: RegistryEntry,
  leaderboardsDir: string = defaultLeaderboardsDir(),
): string | undefined {
  const fetched = fetchedLeaderboardFile(leaderboardsDir, entry.competition.id);
  if (matchesPin(entry, fetched)) return fetched;
  if (entry.competition.leaderboard) {
    const shipped = join(entry.dir, entry.competition.leaderboard);
    if (existsSync(shipped)) return shipped;
  }
  return undefined;
}
