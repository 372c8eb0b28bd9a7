import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { SuiteResults } from "../results/schema.js";
import { loadRegistry, type Registry } from "../registry/registry.js";
import { defaultLeaderboardsDir, leaderboardPath } from "../registry/leaderboards.js";
import { readLeaderboardScores } from "../grade/medals.js";
import { scriptJson } from "./escape.js";
import { loadRun } from "./load.js";
import { runKey, type HistoryPoint, type LeaderboardData, type RunData, type SiteData } from "./model.js";
import { diffPageName, renderDiff, renderIndex, renderRun } from "./pages.js";

export interface ViewerInput {
  head: SuiteResults;
  /** Folder of the head results file (run folders are relative to it). */
  headDir: string;
  base?: SuiteResults | null;
  baseDir?: string;
  /** Output folder; its previous viewer files are replaced. */
  out: string;
  registryDir?: string;
  /** An already loaded registry (else it is read from registryDir or the bundled one). */
  registry?: Registry;
  leaderboardsDir?: string;
  history?: HistoryPoint[];
}

/** Leaderboard scores per competition, where a leaderboard file is known; null otherwise. */
function leaderboards(
  ids: string[],
  given: Registry | undefined,
  registryDir?: string,
  leaderboardsDir?: string,
): Record<string, LeaderboardData | null> {
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

/** Writes the static viewer site (index.html, runs/, diffs/) and returns the index path. */
export function writeViewer(input: ViewerInput): { index: string; runs: number; diffs: number } {
  const out = resolve(input.out);
  for (const d of ["runs", "diffs"]) rmSync(join(out, d), { recursive: true, force: true });
  mkdirSync(join(out, "runs"), { recursive: true });
  mkdirSync(join(out, "diffs"), { recursive: true });
  const runs: RunData[] = [];
  const sides: ["base" | "head", SuiteResults | null | undefined, string | undefined][] = [
    ["base", input.base, input.baseDir],
    ["head", input.head, input.headDir],
  ];
  for (const [side, suite, dir] of sides) {
    if (!suite) continue;
    for (const r of suite.runs) {
      const loaded = loadRun(side, r, dir ?? ".");
      runs.push(loaded.data);
      if (loaded.data.logDir) {
        const logDir = join(out, loaded.data.logDir);
        mkdirSync(logDir, { recursive: true });
        loaded.logPages.forEach((text, i) =>
          writeFileSync(join(logDir, `${i}.js`), `medalistLog(${i},${scriptJson(text)});\n`),
        );
      }
    }
  }
  const ids = [...new Set(runs.map((r) => r.result.competitionId))];
  const site: SiteData = {
    head: input.head,
    base: input.base ?? null,
    runs,
    leaderboards: leaderboards(ids, input.registry, input.registryDir, input.leaderboardsDir),
    history: input.history ?? [],
  };
  for (const run of runs) writeFileSync(join(out, run.page), renderRun(site, run));
  const heads = new Map(runs.filter((r) => r.side === "head").map((r) => [runKey(r.result), r]));
  let diffs = 0;
  for (const b of runs.filter((r) => r.side === "base")) {
    const h = heads.get(runKey(b.result));
    if (!h) continue;
    const file = join(out, diffPageName(b.result.competitionId, b.result.seed));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, renderDiff(b, h));
    diffs++;
  }
  const index = join(out, "index.html");
  writeFileSync(index, renderIndex(site));
  return { index, runs: runs.length, diffs };
}
