import { z } from "zod";
import type { SuiteResults } from "../results/schema.js";
import { summarize } from "../compare/compare.js";

/**
 * The default branch's history of suite summaries: one entry per default-branch run, newest last,
 * kept in the Actions cache (see cache.ts). Pure: parse, append, trim, and the trend to draw.
 */

export const HISTORY_VERSION = 1;
/** Entries kept; the trend shows the last 30 plus this run. */
export const HISTORY_KEEP = 100;
export const TREND_POINTS = 30;

export const HistoryEntrySchema = z.object({
  sha: z.string().nullable(),
  finishedAt: z.string(),
  suiteHash: z.string(),
  agent: z.string(),
  runs: z.number().int().min(0),
  comparable: z.number().int().min(0),
  medalRate: z.number().min(0).max(1).nullable(),
  meanPercentile: z.number().min(0).max(1).nullable(),
  dollars: z.number().nullable(),
  durationMs: z.number().min(0),
});

export const HistorySchema = z.object({
  version: z.literal(HISTORY_VERSION),
  entries: z.array(HistoryEntrySchema),
});

export type HistoryEntry = z.output<typeof HistoryEntrySchema>;
export type History = z.output<typeof HistorySchema>;

export const emptyHistory = (): History => ({ version: HISTORY_VERSION, entries: [] });

/** A history file's text, or an empty history with the reason when it cannot be read. */
export function parseHistory(text: string): { history: History; problem: string | null } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { history: emptyHistory(), problem: `history is not JSON (${(e as Error).message})` };
  }
  const parsed = HistorySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      history: emptyHistory(),
      problem: `history ${issue.path.join(".") || "(root)"}: ${issue.message}`,
    };
  }
  return { history: parsed.data, problem: null };
}

export function entryOf(s: SuiteResults): HistoryEntry {
  const sum = summarize(s);
  return {
    sha: s.git.sha,
    finishedAt: s.finishedAt,
    suiteHash: s.suite.hash,
    agent: s.agent.description,
    runs: sum.runs,
    comparable: sum.comparable,
    medalRate: sum.medalRate,
    meanPercentile: sum.meanPercentile,
    dollars: sum.dollars,
    durationMs: sum.durationMs,
  };
}

/** Appends an entry (replacing one of the same commit and suite) and keeps the newest `keep`. */
export function appendEntry(h: History, e: HistoryEntry, keep = HISTORY_KEEP): History {
  const rest = h.entries.filter((x) => !(x.sha !== null && x.sha === e.sha && x.suiteHash === e.suiteHash));
  return { version: HISTORY_VERSION, entries: [...rest, e].slice(-keep) };
}

export interface TrendPoint {
  label: string;
  medalRate: number | null;
  meanPercentile: number | null;
  /** True for this run's head (the last point). */
  current: boolean;
}

/**
 * The last `n` default-branch results of the same suite, then this run's head as the last point.
 * Entries of other suites (different competitions, seeds or limits) are left out: not comparable.
 */
export function trend(h: History, head: SuiteResults, n = TREND_POINTS): TrendPoint[] {
  const same = h.entries.filter(
    (e) => e.suiteHash === head.suite.hash && !(head.git.sha && e.sha === head.git.sha),
  );
  const pts: TrendPoint[] = same.slice(-n).map((e) => ({
    label: e.sha ? e.sha.slice(0, 7) : e.finishedAt.slice(0, 10),
    medalRate: e.medalRate,
    meanPercentile: e.meanPercentile,
    current: false,
  }));
  const me = entryOf(head);
  pts.push({ label: "this run", medalRate: me.medalRate, meanPercentile: me.meanPercentile, current: true });
  return pts;
}
