import { createHash } from "node:crypto";
import { z } from "zod";
import type { RunResult, SuiteResults } from "../results/schema.js";
import { summarize } from "../compare/compare.js";

/**
 * The default branch's history of suite summaries: one entry per default-branch run, newest last,
 * kept in the Actions cache (see cache.ts). Pure: parse, append, trim, and the trend to draw.
 */

export const HISTORY_VERSION = 1;
/** Entries kept; the trend shows the last 30 plus this run. */
export const HISTORY_KEEP = 100;
export const TREND_POINTS = 30;

/**
 * One competition's base runs in one default-branch suite: comparable runs, medals among them,
 * their mean duration, and the run identity they share (suite/identity.ts: agent code, command,
 * env, limits, data, grader), null when the runs differ. Only runs of the same identity as the base
 * today are exchangeable with the base's current behaviour, so history is pooled by identity.
 */
export const CompetitionRecordSchema = z
  .object({
    runs: z.number().int().min(0),
    medals: z.number().int().min(0),
    meanSecs: z.number().min(0),
    identity: z.string().nullable(),
    /**
     * Each comparable run's record key (runKey) and whether it won a medal: a run reused by
     * identity keeps its key, so copies recorded by later suites count once. Absent in entries
     * written before it existed (baseHistory counts those conservatively).
     */
    runKeys: z
      .array(z.object({ key: z.string().regex(/^[0-9a-f]{16}$/), medal: z.boolean() }))
      .max(100_000)
      .optional(),
  })
  .refine(
    (r) =>
      !r.runKeys || (r.runKeys.length === r.runs && r.runKeys.filter((k) => k.medal).length === r.medals),
    { message: "runKeys must list every run and its medal (runs and medals disagree)", path: ["runKeys"] },
  );
export type CompetitionRecord = z.output<typeof CompetitionRecordSchema>;

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
  /** Per competition (absent in entries written before it existed). */
  competitions: z.record(z.string(), CompetitionRecordSchema).optional(),
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
    competitions: competitionRecords(s),
  };
}

const comparable = (r: SuiteResults["runs"][number]) =>
  r.outcome !== "infra_error" && r.grade?.grader_error !== true;

/**
 * A run's record key: its competition, seed, identity and start time. A run reused by identity
 * keeps the start time of the execution it copies, so every copy has the same key; two executions
 * of the same identity start at different times.
 */
export function runKey(r: Pick<RunResult, "competitionId" | "seed" | "identity" | "startedAt">): string {
  const text = [r.competitionId, String(r.seed), r.identity ?? "", r.startedAt].join("\n");
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** Each competition's comparable runs, medals, mean duration and shared identity. */
export function competitionRecords(s: SuiteResults): Record<string, CompetitionRecord> {
  const out: Record<string, CompetitionRecord> = {};
  for (const id of s.suite.competitions) {
    const ok = s.runs.filter((r) => r.competitionId === id && comparable(r));
    if (ok.length === 0) continue;
    const ids = new Set(ok.map((r) => r.identity ?? null));
    const only = ids.size === 1 ? [...ids][0] : null;
    out[id] = {
      runs: ok.length,
      medals: ok.filter((r) => r.grade?.any_medal).length,
      meanSecs: ok.reduce((a, r) => a + r.durationMs, 0) / ok.length / 1000,
      identity: only ?? null,
      runKeys: ok.map((r) => ({ key: runKey(r), medal: r.grade?.any_medal === true })),
    };
  }
  return out;
}

/** The base's pooled history of one competition. */
export interface BaseHistory {
  runs: number;
  medals: number;
  meanSecs: number;
  /** Suites (default-branch runs) the pooled runs come from (the ones that added a run). */
  suites: number;
  /** Recorded runs left out as copies of a run counted already (or of the base's runs now). */
  copies: number;
  /** Indices of the history's entries the counted runs come from. */
  entries: number[];
}

/**
 * Pools each competition's history over the entries of this suite whose runs have the identity the
 * base has today (`identities`: competition → run identity). Runs of another identity (the agent,
 * its command, env, limits, data or grader changed) are left out: they are not the base's behaviour.
 * A competition without a known identity today gets no history.
 *
 * Each run counts once, by its record key (runKey): a run reused by identity is recorded again by
 * every suite that reused it, and those copies are left out, as are copies of the base's runs now
 * (`excludeKeys`). Records written before keys existed cannot be told apart from their copies, so
 * of those only one record per competition counts (the one with the most runs), and the keyed runs
 * count instead when they are more: never more runs than surely exist.
 */
export function baseHistory(
  h: History,
  suiteHash: string,
  identities: Map<string, string>,
  /** Leave out this commit's entry (the base's runs now, counted once). */
  excludeSha: string | null = null,
  /** Record keys of the base's runs now: copies of them in the history are not earlier runs. */
  excludeKeys: ReadonlySet<string> = new Set(),
): Map<string, BaseHistory> {
  const keyed = new Map<string, BaseHistory>();
  const keyless = new Map<string, BaseHistory>();
  const recorded = new Map<string, number>();
  const seen = new Set<string>();
  for (const [index, e] of h.entries.entries()) {
    if (e.suiteHash !== suiteHash || !e.competitions) continue;
    if (excludeSha !== null && e.sha === excludeSha) continue;
    for (const [id, rec] of Object.entries(e.competitions)) {
      const want = identities.get(id);
      if (want === undefined || rec.identity !== want) continue;
      recorded.set(id, (recorded.get(id) ?? 0) + rec.runs);
      if (!rec.runKeys) {
        const best = keyless.get(id);
        if (!best || rec.runs > best.runs)
          keyless.set(id, {
            runs: rec.runs,
            medals: rec.medals,
            meanSecs: rec.meanSecs,
            suites: 1,
            copies: 0,
            entries: [index],
          });
        continue;
      }
      const fresh = rec.runKeys.filter((k) => {
        const key = `${id}\n${k.key}`;
        if (seen.has(key) || excludeKeys.has(k.key)) return false;
        seen.add(key);
        return true;
      });
      if (fresh.length === 0) continue;
      const b = keyed.get(id) ?? { runs: 0, medals: 0, meanSecs: 0, suites: 0, copies: 0, entries: [] };
      const runs = b.runs + fresh.length;
      keyed.set(id, {
        runs,
        medals: b.medals + fresh.filter((k) => k.medal).length,
        meanSecs: (b.meanSecs * b.runs + rec.meanSecs * fresh.length) / runs,
        suites: b.suites + 1,
        copies: 0,
        entries: [...b.entries, index],
      });
    }
  }
  const out = new Map<string, BaseHistory>();
  for (const id of new Set([...keyed.keys(), ...keyless.keys()])) {
    const a = keyed.get(id);
    const b = keyless.get(id);
    const use = !b || (a && a.runs >= b.runs) ? a! : b;
    out.set(id, { ...use, copies: (recorded.get(id) ?? 0) - use.runs });
  }
  return out;
}

/** Record keys of a side's comparable runs (the base's runs now, left out of its history). */
export function runKeysOf(s: SuiteResults): Set<string> {
  return new Set(s.runs.filter(comparable).map(runKey));
}

/** The run identity each competition's comparable runs share in `s` (competitions whose runs differ are left out). */
export function identitiesOf(s: SuiteResults): Map<string, string> {
  const out = new Map<string, string>();
  for (const [id, rec] of Object.entries(competitionRecords(s))) if (rec.identity) out.set(id, rec.identity);
  return out;
}

/**
 * Appends an entry (replacing one of the same commit and suite, or without a commit one of the same
 * suite and finish time) and keeps the newest `keep`: writing the same entry twice changes nothing.
 */
export function appendEntry(h: History, e: HistoryEntry, keep = HISTORY_KEEP): History {
  const same = (x: HistoryEntry) =>
    x.suiteHash === e.suiteHash &&
    (e.sha !== null ? x.sha === e.sha : x.sha === null && x.finishedAt === e.finishedAt);
  const rest = h.entries.filter((x) => !same(x));
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

/**
 * Each competition's run identity in the newest entry of this suite that records one: the base as
 * the default branch last ran it. `medalist plan` keys the history on it when no base results are given.
 */
export function latestIdentities(h: History, suiteHash: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of [...h.entries].reverse()) {
    if (e.suiteHash !== suiteHash || !e.competitions) continue;
    for (const [id, rec] of Object.entries(e.competitions))
      if (!out.has(id) && rec.identity) out.set(id, rec.identity);
  }
  return out;
}
