import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { RunResult, SuiteResults } from "../results/schema.js";
import { loadRun } from "./load.js";
import { writeLogPages } from "./log-pages.js";
import { LIMITS } from "./read.js";
import { runKey, type LeaderboardData, type RunData, type SiteData } from "./model.js";
import type { TrendPoint as HistoryPoint } from "../history/history.js";
import { renderRun } from "./pages.js";
import { renderIndex } from "./index-page.js";
import { diffPageName, siteNav } from "./nav.js";
import { compareRuns, type Comparison } from "../compare/compare.js";
import { GATE_DEFAULTS } from "../config/schema.js";
import { renderDiff } from "./diff-page.js";
import { buildLogName, writeBuildLogPage, type BuildLogLink } from "./build-log.js";

export interface ViewerInput {
  head: SuiteResults;
  /** Folder of the head results file (run folders are relative to it). */
  headDir: string;
  base?: SuiteResults | null;
  baseDir?: string;
  /** Output folder; its previous viewer files are replaced. */
  out: string;
  /**
   * Leaderboard scores per competition of the suites (null: none known), as the session holds them
   * (session/viewer.ts); the viewer reads no registry or leaderboard file itself.
   */
  leaderboards: Record<string, LeaderboardData | null>;
  history?: HistoryPoint[];
  /**
   * The comparison the report and the comment show (with the suite's gate). Without it, and with a
   * base, the viewer compares the two sides itself at the default gate and says so.
   */
  comparison?: Comparison | null;
}

/** The comparison the index leads with, and a note when it is not the run's own (or is missing). */
function comparisonOf(input: ViewerInput): { comparison: Comparison | null; note: string | null } {
  if (!input.base) return { comparison: null, note: null };
  if (input.comparison) return { comparison: input.comparison, note: null };
  try {
    return {
      comparison: compareRuns(input.base, input.head, GATE_DEFAULTS, "results file"),
      note: `The viewer compared the two results files itself, at the default gate (tolerance ${GATE_DEFAULTS.tolerance * 100} points, α = ${GATE_DEFAULTS.alpha}); a suite whose config sets another gate may have a different verdict in its report.`,
    };
  } catch (e) {
    return { comparison: null, note: `Base and head could not be compared: ${(e as Error).message}.` };
  }
}

/** A run's data without what only its own page needs (kept for the index and the diffs). */
const light = (r: RunData): RunData => ({
  ...r,
  texts: {},
  tree: null,
  events: null,
  metrics: null,
  submission: null,
});

/**
 * Writes the static viewer site (index.html, runs/, diffs/) and returns the index path. Runs are
 * loaded, written and dropped one competition and seed at a time (base and head together, for the
 * diff), so memory stays at about two runs whatever the suite's size; every page is bounded
 * (LIMITS.pageBytes; log pages LIMITS.logBytes per run and LIMITS.siteLogBytes in all).
 */
export function writeViewer(input: ViewerInput): { index: string; runs: number; diffs: number } {
  const out = resolve(input.out);
  for (const d of ["runs", "diffs", "build-base.html", "build-head.html"])
    rmSync(join(out, d), { recursive: true, force: true });
  mkdirSync(join(out, "runs"), { recursive: true });
  mkdirSync(join(out, "diffs"), { recursive: true });
  const { comparison, note } = comparisonOf(input);
  const site: SiteData = {
    head: input.head,
    base: input.base ?? null,
    runs: [],
    leaderboards: input.leaderboards,
    history: input.history ?? [],
    comparison,
    comparisonNote: note,
  };
  const nav = siteNav(input.base, input.head);
  // Base and head runs of one competition and seed, in the results' order.
  const pairs = new Map<string, { base?: RunResult; head?: RunResult }>();
  for (const [side, suite] of [
    ["base", input.base],
    ["head", input.head],
  ] as const)
    for (const r of suite?.runs ?? []) {
      const p = pairs.get(runKey(r)) ?? {};
      p[side] = r;
      pairs.set(runKey(r), p);
    }
  let logBudget = LIMITS.siteLogBytes;
  // A side whose setup failed: its build log's page, linked from each of its run pages.
  const builds = new Map<string, BuildLogLink | null>();
  const buildLink = (side: "base" | "head", r: RunResult, dir: string | undefined) => {
    const name = buildLogName(r);
    if (!name || dir === undefined) return null;
    if (!builds.has(side)) builds.set(side, writeBuildLogPage(out, side, dir, name));
    return builds.get(side) ?? null;
  };
  const load = (side: "base" | "head", r: RunResult | undefined, dir: string | undefined): RunData | null => {
    if (!r) return null;
    const loaded = loadRun(side, r, dir ?? ".");
    const run = loaded.data;
    const log = writeLogPages(
      loaded.root,
      join(out, run.logDir!),
      LIMITS.logBytes,
      Math.min(LIMITS.logBytes, logBudget),
    );
    if (log) {
      const { written, ...info } = log;
      logBudget -= Math.min(logBudget, written);
      run.log = info;
    } else run.logDir = null;
    run.nav = nav.get(`${side}|${runKey(r)}`);
    run.buildLog = buildLink(side, r, dir);
    writeFileSync(join(out, run.page), renderRun(site, run));
    site.runs.push(light(run));
    return run;
  };
  let diffs = 0;
  for (const p of pairs.values()) {
    const b = load("base", p.base, input.baseDir);
    const h = load("head", p.head, input.headDir);
    if (!b || !h) continue;
    const file = join(out, diffPageName(b.result.competitionId, b.result.seed));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, renderDiff(b, h));
    diffs++;
  }
  const index = join(out, "index.html");
  writeFileSync(index, renderIndex(site));
  return { index, runs: site.runs.length, diffs };
}
