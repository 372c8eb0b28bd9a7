import { markdownTable } from "markdown-table";
import { summarize, untimed } from "../compare/compare.js";
import type { HistoryEntry } from "../history/history.js";
import { clopperPearson } from "../plan/informed.js";
import type { SuiteResults } from "../results/schema.js";
import { duration, pct } from "./format.js";

/**
 * `medalist trend`: earlier results (results.json files, history entries) as points in time, each
 * with its medal rate and interval, mean percentile and cost. Pure: the CLI reads the files.
 * Points of different suites (other competitions, seeds, limits or grading) are never drawn as one
 * line: each suite gets a letter, and how it differs from the newest point's suite is said.
 */

/** Two-sided level of the medal rate's interval. */
export const TREND_LEVEL = 0.95;

export interface TrendRow {
  /** Where the point came from: a results file, or a history file and its entry. */
  source: string;
  finishedAt: string;
  commit: string | null;
  suiteName: string | null;
  suiteHash: string;
  /** The suite's competitions; null when the source does not record them (history entries). */
  competitions: string[] | null;
  seeds: number | null;
  agent: string;
  runs: number;
  /** Runs that count (not infrastructure errors or grader failures). */
  comparable: number;
  medals: number;
  /** Medals ÷ comparable runs (as the PR comment's history); null when nothing is comparable. */
  medalRate: number | null;
  /** Clopper–Pearson interval at TREND_LEVEL over the comparable runs; null when there are none. */
  interval: { lower: number; upper: number } | null;
  meanPercentile: number | null;
  /** Total wall time of the runs; null when not recorded (runs imported from MLE-bench). */
  agentMs: number | null;
  /** Σ wall time × GPUs pinned, in hours; null when not recorded (history entries, imported runs). */
  gpuHours: number | null;
  /** Self-reported by the agent (logs/usage.json), unverified; null when no run reported one. */
  dollars: number | null;
  /** Runs whose cost counts in `dollars`; null when the source does not say (history entries). */
  dollarsRuns: number | null;
  /** The suite's letter: A for the newest point's suite, then B, C… by recency. */
  suite: string;
}

export interface TrendSuite {
  letter: string;
  name: string | null;
  hash: string;
  competitions: string[] | null;
  seeds: number | null;
  points: number;
  /** How it differs from suite A (empty for A itself). */
  differences: string[];
}

export interface Trend {
  level: number;
  rows: TrendRow[];
  suites: TrendSuite[];
  /** Points given twice (the same suite, commit and finish time) and counted once. */
  duplicates: string[];
}

type Point = Omit<TrendRow, "suite">;

function interval(medals: number, n: number): TrendRow["interval"] {
  if (n === 0) return null;
  const a = (1 - TREND_LEVEL) / 2;
  return clopperPearson(medals, n, a);
}

/** One results document as a point. */
export function pointOfResults(s: SuiteResults, source: string): Point {
  const sum = summarize(s);
  const timed = !s.runs.some(untimed);
  return {
    source,
    finishedAt: s.finishedAt,
    commit: s.git.sha,
    suiteName: s.suite.name,
    suiteHash: s.suite.hash,
    competitions: [...s.suite.competitions].sort(),
    seeds: s.suite.seeds,
    agent: s.agent.description,
    runs: sum.runs,
    comparable: sum.comparable,
    medals: sum.medals,
    medalRate: sum.medalRate,
    interval: interval(sum.medals, sum.comparable),
    meanPercentile: sum.meanPercentile,
    agentMs: timed ? sum.durationMs : null,
    gpuHours: timed ? s.runs.reduce((a, r) => a + r.durationMs * r.gpus.length, 0) / 3_600_000 : null,
    dollars: sum.dollars,
    dollarsRuns: sum.dollarsRuns,
  };
}

/** One history entry (the action's default-branch history) as a point. */
export function pointOfEntry(e: HistoryEntry, source: string): Point {
  // The history keeps the rate and the count it is over: the medals are their product.
  const medals = e.medalRate === null ? 0 : Math.round(e.medalRate * e.comparable);
  return {
    source,
    finishedAt: e.finishedAt,
    commit: e.sha,
    suiteName: null,
    suiteHash: e.suiteHash,
    competitions: null,
    seeds: null,
    agent: e.agent,
    runs: e.runs,
    comparable: e.comparable,
    medals,
    medalRate: e.medalRate,
    interval: e.medalRate === null ? null : interval(medals, e.comparable),
    meanPercentile: e.meanPercentile,
    agentMs: e.durationMs,
    gpuHours: null,
    dollars: e.dollars,
    dollarsRuns: null,
  };
}

/**
 * Text from a results file for the terminal: control characters (escape sequences a crafted file
 * could use to rewrite the screen) become spaces, and "|" cannot break the table.
 */
export function plain(text: string, max = 120): string {
  // eslint-disable-next-line no-control-regex
  const s = text.replace(/[\x00-\x1f\x7f-\x9f]/g, " ").replace(/\|/g, "\\|");
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

const time = (iso: string) => {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? Infinity : t;
};

/** How suite `s` differs from suite `a`, in words. */
function differences(a: TrendSuite, s: TrendSuite): string[] {
  const out: string[] = [];
  if (a.competitions && s.competitions) {
    const mine = new Set(s.competitions);
    const theirs = new Set(a.competitions);
    const extra = s.competitions.filter((c) => !theirs.has(c));
    const missing = a.competitions.filter((c) => !mine.has(c));
    const shared = s.competitions.length - extra.length;
    if (extra.length || missing.length)
      out.push(
        `${s.competitions.length} competition${s.competitions.length === 1 ? "" : "s"}, ${shared} of them in suite ${a.letter}` +
          (extra.length ? `; not in ${a.letter}: ${listed(extra)}` : "") +
          (missing.length ? `; missing ${a.letter}'s ${listed(missing)}` : ""),
      );
  }
  if (a.seeds !== null && s.seeds !== null && a.seeds !== s.seeds)
    out.push(`${s.seeds} seed${s.seeds === 1 ? "" : "s"} (suite ${a.letter}: ${a.seeds})`);
  if (out.length === 0)
    out.push(
      a.competitions && s.competitions
        ? `the same competitions and seeds, but another suite hash (limits, data or grading differ)`
        : `another suite hash (competitions, seeds, limits or grading differ; a history entry does not record which)`,
    );
  return out;
}

function listed(ids: string[], max = 5): string {
  const shown = ids.slice(0, max).map((id) => plain(id, 80));
  return ids.length <= max ? shown.join(", ") : `${shown.join(", ")} and ${ids.length - max} more`;
}

/**
 * The points in time order (oldest first), duplicates counted once, each with its suite's letter:
 * A is the newest point's suite, then B, C… by their newest point.
 */
export function buildTrend(points: Point[]): Trend {
  const seen = new Map<string, Point>();
  const duplicates: string[] = [];
  for (const p of points) {
    const key = [p.suiteHash, p.commit ?? "", p.finishedAt].join("\n");
    if (seen.has(key)) duplicates.push(`${p.source} (the same run as ${seen.get(key)!.source})`);
    else seen.set(key, p);
  }
  const ordered = [...seen.values()]
    .map((p, i) => ({ p, i }))
    .sort((x, y) => time(x.p.finishedAt) - time(y.p.finishedAt) || x.i - y.i)
    .map((x) => x.p);
  const letters = new Map<string, TrendSuite>();
  for (const p of [...ordered].reverse()) {
    const known = letters.get(p.suiteHash);
    if (known) {
      known.points++;
      // A history entry knows no competitions: a results file of the same suite does.
      if (!known.competitions && p.competitions) {
        known.competitions = p.competitions;
        known.seeds = p.seeds;
        known.name = p.suiteName;
      }
      continue;
    }
    letters.set(p.suiteHash, {
      letter: letterOf(letters.size),
      name: p.suiteName,
      hash: p.suiteHash,
      competitions: p.competitions,
      seeds: p.seeds,
      points: 1,
      differences: [],
    });
  }
  const suites = [...letters.values()];
  for (const s of suites.slice(1)) s.differences = differences(suites[0], s);
  return {
    level: TREND_LEVEL,
    rows: ordered.map((p) => ({ ...p, suite: letters.get(p.suiteHash)!.letter })),
    suites,
    duplicates,
  };
}

function letterOf(i: number): string {
  return i < 26 ? String.fromCharCode(65 + i) : `S${i + 1}`;
}

/** "2026-01-05 14:02" (UTC) from an ISO time; the text itself when it is not one. */
export function whenText(iso: string): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : new Date(t).toISOString().slice(0, 16).replace("T", " ");
}

export function intervalText(i: TrendRow["interval"]): string {
  return i ? `${(i.lower * 100).toFixed(1)}–${(i.upper * 100).toFixed(1)}%` : "—";
}

export function gpuText(r: TrendRow): string {
  if (r.gpuHours === null) return "unknown";
  return r.gpuHours === 0 ? "none" : r.gpuHours < 10 ? r.gpuHours.toFixed(2) : r.gpuHours.toFixed(1);
}

export const agentTimeText = (r: TrendRow) => (r.agentMs === null ? "unknown" : duration(r.agentMs));

/** "$1.20", or "$1.20 (3/4)" when only some runs reported a cost. */
export const dollarsText = (r: TrendRow) =>
  r.dollars === null
    ? "—"
    : `$${r.dollars.toFixed(2)}${r.dollarsRuns !== null && r.dollarsRuns < r.runs ? ` (${r.dollarsRuns}/${r.runs})` : ""}`;

/** The sentences under the table: the interval, the suites and how they differ, duplicates. */
export function trendNotes(t: Trend): string[] {
  const out: string[] = [];
  if (t.rows.length === 0) return ["No points."];
  const a = t.suites[0];
  const about = (s: TrendSuite) =>
    [
      s.name ? `"${plain(s.name)}"` : null,
      s.competitions ? `${s.competitions.length} competition${s.competitions.length === 1 ? "" : "s"}` : null,
      s.seeds !== null ? `${s.seeds} seed${s.seeds === 1 ? "" : "s"}` : null,
      `hash ${plain(s.hash.slice(0, 12))}`,
    ]
      .filter((x) => x !== null)
      .join(", ");
  if (t.suites.length === 1)
    out.push(
      `All ${t.rows.length} point${t.rows.length === 1 ? " is" : "s are"} of one suite (A: ${about(a)}).`,
    );
  else {
    out.push(
      `⚠ The points are of ${t.suites.length} different suites: only points of the same suite are comparable, ` +
        `and each suite is its own line in the chart.`,
    );
    out.push(`Suite A (the newest point's): ${about(a)}.`);
    for (const s of t.suites.slice(1))
      out.push(
        `Suite ${s.letter} (${s.points} point${s.points === 1 ? "" : "s"}): ${about(s)}; differs from A: ${s.differences.join("; ")}.`,
      );
  }
  out.push(
    `Medal rate: medals ÷ comparable runs (infrastructure errors and grader failures left out); ` +
      `interval: ${Math.round(t.level * 100)}% Clopper–Pearson over those runs, each seed an independent try.`,
  );
  out.push(
    "Agent time: the runs' total wall time; GPU-hours: wall time × GPUs pinned (unknown in a history entry, " +
      "which does not record GPUs); cost: self-reported by the agent, unverified (k/n: only k of the n runs reported one).",
  );
  if (t.rows.some((r) => r.agentMs === null))
    out.push(
      "Runs imported from MLE-bench have no recorded time: their agent time and GPU-hours are unknown.",
    );
  for (const d of t.duplicates) out.push(`Counted once: ${plain(d, 400)}.`);
  return out;
}

/** The terminal table: one row per point, oldest first. */
export function trendTable(t: Trend): string {
  const rows = t.rows.map((r, i) => [
    String(i + 1),
    plain(whenText(r.finishedAt)),
    r.commit ? plain(r.commit.slice(0, 7)) : "—",
    r.suite,
    r.medalRate === null ? "—" : `${pct(r.medalRate)} (${r.medals}/${r.comparable})`,
    intervalText(r.interval),
    pct(r.meanPercentile),
    agentTimeText(r),
    gpuText(r),
    dollarsText(r),
    plain(r.source),
  ]);
  return markdownTable([trendColumns(t), ...rows], {
    align: ["r", "l", "l", "c", "r", "r", "r", "r", "r", "r", "l"],
  });
}

/** The text `medalist trend` prints: the table, then the notes. */
export function trendText(t: Trend): string {
  return [trendTable(t), "", ...trendNotes(t)].join("\n");
}

/** The trend table's column names (terminal and HTML alike). */
export function trendColumns(t: Trend): string[] {
  return [
    "#",
    "finished (UTC)",
    "commit",
    "suite",
    "medal rate",
    `${Math.round(t.level * 100)}% interval`,
    "percentile",
    "agent time",
    "GPU-hours",
    "cost",
    "from",
  ];
}
