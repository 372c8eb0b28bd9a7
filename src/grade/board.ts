/**
 * The one leaderboard resolver (grade, rank and run all use it): which board a score is medalled
 * against. In order: a leaderboard file the user named; a fetched leaderboard whose SHA-256
 * matches the competition's pin (`medalist leaderboards fetch`); one shipped in the competition's
 * folder; the precomputed thresholds; none.
 */
import type { Competition } from "../registry/schema.js";
import { leaderboardPath as resolvedLeaderboardPath } from "../registry/leaderboards.js";
import type { GradeReport, Thresholds } from "./types.js";
import { readLeaderboardScores, thresholdsFromLeaderboard } from "./medals.js";

export interface Board {
  thresholds: Thresholds;
  /** The leaderboard's scores in file order (for percentiles); null without a leaderboard. */
  scores: (number | null)[] | null;
  source: GradeReport["thresholds_source"];
  /** The leaderboard file used, when there is one. */
  file?: string;
}

export function boardFor(
  competition: Competition,
  competitionDir: string,
  leaderboardPath?: string,
  leaderboardsDir?: string,
): Board {
  const path =
    leaderboardPath ?? resolvedLeaderboardPath({ competition, dir: competitionDir }, leaderboardsDir);
  if (leaderboardPath) return boardFromFile(leaderboardPath);
  if (path) {
    try {
      return boardFromFile(path);
    } catch {
      // A resolved leaderboard that cannot be read: fall back to the precomputed thresholds
      // (thresholds_source then says "thresholds").
    }
  }
  const t = competition.thresholds;
  if (t) {
    return {
      thresholds: {
        gold: t.gold,
        silver: t.silver,
        bronze: t.bronze,
        median: t.median,
        isLowerBetter: competition.isLowerBetter,
      },
      scores: null,
      source: "thresholds",
    };
  }
  return noBoard(competition);
}

/** The board of one leaderboard CSV; a plain Error when it cannot be read or has no rows. */
export function boardFromFile(path: string): Board {
  try {
    const scores = readLeaderboardScores(path);
    if (scores.length === 0) throw new Error("the leaderboard has no rows");
    return { thresholds: thresholdsFromLeaderboard(scores), scores, source: "leaderboard", file: path };
  } catch (e) {
    throw new Error(`cannot read the leaderboard ${path}: ${(e as Error).message}`);
  }
}

/** No thresholds at all: nothing can medal. */
export function noBoard(competition: Competition): Board {
  return {
    thresholds: {
      gold: NaN,
      silver: NaN,
      bronze: NaN,
      median: NaN,
      isLowerBetter: competition.isLowerBetter,
    },
    scores: null,
    source: "none",
  };
}
