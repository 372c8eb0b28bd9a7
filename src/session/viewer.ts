// The viewer as the session writes it: the leaderboards of the suites' competitions come from the
// registry the session holds (view/ reads no registry or leaderboard file itself).
import { dirname, resolve } from "node:path";
import { readLeaderboardScores } from "../grade/medals.js";
import { defaultLeaderboardsDir, leaderboardPath } from "../registry/leaderboards.js";
import { loadRegistry, type Registry } from "../registry/registry.js";
import type { SuiteResults } from "../results/schema.js";
import { readResults } from "../suite/store.js";
import type { LeaderboardData } from "../view/model.js";
import { writeViewer, type ViewerInput } from "../view/write.js";

export interface SuiteViewerInput extends Omit<ViewerInput, "leaderboards"> {
  /** The session's registry (else it is read from registryDir or the bundled one). */
  registry?: Registry;
  registryDir?: string;
  leaderboardsDir?: string;
}

/** Writes the viewer of these suites with the leaderboards of their competitions. */
export function writeSuiteViewer(input: SuiteViewerInput): ReturnType<typeof writeViewer> {
  const { registry, registryDir, leaderboardsDir, ...rest } = input;
  return writeViewer({ ...rest, leaderboards: leaderboards(input, registry, registryDir, leaderboardsDir) });
}

/** `medalist view`: the viewer of a results file (and a base's), run folders read beside each. */
export function viewResults(headFile: string, baseFile: string | undefined, out: string) {
  const headPath = resolve(headFile);
  const basePath = baseFile ? resolve(baseFile) : undefined;
  return writeSuiteViewer({
    head: readResults(headPath),
    headDir: dirname(headPath),
    base: basePath ? readResults(basePath) : null,
    baseDir: basePath ? dirname(basePath) : undefined,
    out,
  });
}

/** Leaderboard scores per competition of the suites, where a leaderboard file is known; null otherwise. */
function leaderboards(
  suites: { head: SuiteResults; base?: SuiteResults | null },
  given: Registry | undefined,
  registryDir?: string,
  leaderboardsDir?: string,
): Record<string, LeaderboardData | null> {
  const ids = [...new Set([...(suites.base?.runs ?? []), ...suites.head.runs].map((r) => r.competitionId))];
  const out: Record<string, LeaderboardData | null> = {};
  let registry: Registry;
  try {
    registry = given ?? loadRegistry(registryDir);
  } catch {
    registry = new Map();
  }
  for (const id of ids) {
    const entry = registry.get(id);
    const path = entry ? leaderboardPath(entry, leaderboardsDir ?? defaultLeaderboardsDir()) : undefined;
    try {
      out[id] = path
        ? {
            scores: readLeaderboardScores(path),
            source: path.includes(entry!.dir) ? "bundled leaderboard.csv" : "fetched leaderboard.csv",
          }
        : null;
    } catch {
      out[id] = null;
    }
  }
  return out;
}
