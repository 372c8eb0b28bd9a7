import type { RunResult, SuiteResults } from "../results/schema.js";
import { runPage } from "./load.js";
import { runKey, type RunNav } from "./model.js";

/** Competition, then seed: the order of the runs everywhere in the viewer. */
export function byCompetitionAndSeed(a: RunResult, b: RunResult): number {
  return a.competitionId < b.competitionId ? -1 : a.competitionId > b.competitionId ? 1 : a.seed - b.seed;
}

export function diffPageName(competitionId: string, seed: number): string {
  return `diffs/${competitionId.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 120)}-s${seed}.html`;
}

/**
 * Every run page's links, keyed by side and run key ("head|id#seed"): the other side's run of the
 * same competition and seed, their code diff (when both sides ran it), and the previous and next
 * run of the same side.
 */
export function siteNav(base: SuiteResults | null | undefined, head: SuiteResults): Map<string, RunNav> {
  const out = new Map<string, RunNav>();
  const sides = [
    ["base", [...(base?.runs ?? [])].sort(byCompetitionAndSeed)],
    ["head", [...head.runs].sort(byCompetitionAndSeed)],
  ] as const;
  const pages = new Map<string, string>();
  for (const [side, runs] of sides)
    for (const r of runs) pages.set(`${side}|${runKey(r)}`, runPage(side, r.runId));
  for (const [side, runs] of sides) {
    const other = side === "base" ? "head" : "base";
    runs.forEach((r, i) => {
      const pair = pages.get(`${other}|${runKey(r)}`) ?? null;
      out.set(`${side}|${runKey(r)}`, {
        pair,
        diff: pair ? diffPageName(r.competitionId, r.seed) : null,
        prev: i > 0 ? runPage(side, runs[i - 1].runId) : null,
        next: i + 1 < runs.length ? runPage(side, runs[i + 1].runId) : null,
      });
    });
  }
  return out;
}
