import { readFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import type { Thresholds } from "./types.js";
import { readCsvText } from "../tabular/csv.js";

export interface MedalFlags {
  any_medal: boolean;
  gold_medal: boolean;
  silver_medal: boolean;
  bronze_medal: boolean;
  above_median: boolean;
}

/** 1-based leaderboard positions of the gold, silver and bronze thresholds (Kaggle's four team-count brackets). */
export function thresholdPositions(n: number): { gold: number; silver: number; bronze: number } {
  if (!Number.isInteger(n) || n < 1) throw new Error(`a leaderboard needs at least one team (got ${n})`);
  const at = (c: number) => Math.max(1, Math.floor(n * c));
  if (n < 100) return { gold: at(0.1), silver: at(0.2), bronze: at(0.4) };
  if (n < 250) return { gold: 10, silver: at(0.2), bronze: at(0.4) };
  if (n < 1000) return { gold: 10 + Math.floor(0.002 * n), silver: 50, bronze: 100 };
  return { gold: 10 + Math.floor(0.002 * n), silver: at(0.05), bronze: at(0.1) };
}

/** Median of the non-missing values, as pandas Series.median (NaN when none). */
export function median(values: ArrayLike<number | null>): number {
  const xs: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v !== null && v !== undefined && !Number.isNaN(v)) xs.push(v);
  }
  if (xs.length === 0) return NaN;
  xs.sort((a, b) => a - b);
  const mid = xs.length >> 1;
  return xs.length % 2 === 1 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}

/**
 * MLE-bench's thresholds from leaderboard scores in file order (best first, never re-sorted).
 * Lower is better iff the first score is strictly below the last. A missing score at a
 * threshold position gives a NaN threshold (unreachable).
 */
export function thresholdsFromLeaderboard(scores: (number | null)[]): Thresholds {
  const n = scores.length;
  const pos = thresholdPositions(n);
  const at = (p: number) => {
    const v = scores[p - 1];
    return v === null || v === undefined ? NaN : v;
  };
  return {
    gold: at(pos.gold),
    silver: at(pos.silver),
    bronze: at(pos.bronze),
    median: median(scores),
    isLowerBetter: at(1) < at(n),
  };
}

/** Medal flags for a (5-decimal-rounded) score; null = missing or invalid submission. */
export function rankScore(score: number | null, t: Thresholds): MedalFlags {
  if (score === null || Number.isNaN(score)) {
    return {
      any_medal: false,
      gold_medal: false,
      silver_medal: false,
      bronze_medal: false,
      above_median: false,
    };
  }
  const reaches = (thr: number) => (t.isLowerBetter ? score <= thr : score >= thr);
  const gold = reaches(t.gold);
  const silver = !gold && reaches(t.silver);
  const bronze = !gold && !silver && reaches(t.bronze);
  const above = t.isLowerBetter ? score < t.median : score > t.median;
  return {
    any_medal: gold || silver || bronze,
    gold_medal: gold,
    silver_medal: silver,
    bronze_medal: bronze,
    above_median: above,
  };
}

/**
 * Fraction (0..1) of scored leaderboard teams that `score` beats: teams strictly worse count 1,
 * teams with an equal score count ½, teams without a score are left out. NaN beats nobody (0);
 * null (not scored) or a board without scores gives null.
 */
export function percentile(
  score: number | null,
  leaderboardScores: ArrayLike<number | null>,
  isLowerBetter: boolean,
): number | null {
  if (score === null) return null;
  let teams = 0;
  let beaten = 0;
  for (let i = 0; i < leaderboardScores.length; i++) {
    const v = leaderboardScores[i];
    if (v === null || v === undefined || Number.isNaN(v)) continue;
    teams++;
    if (Number.isNaN(score)) continue;
    if (v === score) beaten += 0.5;
    else if (isLowerBetter ? score < v : score > v) beaten += 1;
  }
  if (teams === 0) return null;
  return beaten / teams;
}

/** The `score` column of a Kaggle leaderboard export, in file order (missing → null). */
export function leaderboardScoresFromCsv(text: string, source = "leaderboard"): (number | null)[] {
  const table = readCsvText(text, source, { keep: (n) => n === "score" });
  const col = table.column("score");
  if (!col) throw new Error(`${source}: no "score" column`);
  if (col.kind === "text") {
    const out: (number | null)[] = [];
    for (const s of col.strings!) {
      if (s === null) out.push(null);
      else {
        const v = Number(s.trim());
        if (s.trim() === "" || Number.isNaN(v))
          throw new Error(`${source}: score ${JSON.stringify(s)} is not a number`);
        out.push(v);
      }
    }
    return out;
  }
  return Array.from(col.values!, (v) => (Number.isNaN(v) ? null : v));
}

export async function readLeaderboardCsv(path: string): Promise<(number | null)[]> {
  return leaderboardScoresFromCsv(await readFile(path, "utf8"), path);
}

export function readLeaderboardScores(path: string): (number | null)[] {
  return leaderboardScoresFromCsv(readFileSync(path, "utf8"), path);
}
