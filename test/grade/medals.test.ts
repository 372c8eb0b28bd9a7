import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { VECTORS } from "./helpers.js";
import { round5 } from "../../src/grade/round.js";
import {
  leaderboardScoresFromCsv,
  percentile,
  rankScore,
  thresholdPositions,
  thresholdsFromLeaderboard,
} from "../../src/grade/medals.js";

interface Board {
  name: string;
  n: number;
  scores: (number | null)[];
  expected: {
    is_lower_better: boolean;
    gold_threshold: number;
    silver_threshold: number;
    bronze_threshold: number;
    median_threshold: number;
    positions_1based: { gold: number; silver: number; bronze: number };
  };
  probes: { label: string; score: number | "NaN" | null; expected: Record<string, boolean> }[];
}

const boards = (JSON.parse(readFileSync(join(VECTORS, "medals.json"), "utf8")) as { leaderboards: Board[] })
  .leaderboards;
const same = (a: number, b: number) => (Number.isNaN(a) && Number.isNaN(b)) || a === b;

describe("medals.json", () => {
  for (const board of boards) {
    it(`${board.name}: thresholds and direction`, () => {
      const t = thresholdsFromLeaderboard(board.scores);
      const e = board.expected;
      expect(t.isLowerBetter).toBe(e.is_lower_better);
      expect(same(t.gold, e.gold_threshold ?? NaN)).toBe(true);
      expect(same(t.silver, e.silver_threshold ?? NaN)).toBe(true);
      expect(same(t.bronze, e.bronze_threshold ?? NaN)).toBe(true);
      expect(same(t.median, e.median_threshold ?? NaN)).toBe(true);
      expect(thresholdPositions(board.n)).toEqual(e.positions_1based);
    });
    for (const probe of board.probes) {
      it(`${board.name}: ${probe.label}`, () => {
        const t = thresholdsFromLeaderboard(board.scores);
        const score = probe.score === "NaN" ? NaN : probe.score;
        expect(rankScore(score, t)).toEqual(probe.expected);
      });
    }
    it(`${board.name}: through a Kaggle leaderboard CSV`, () => {
      const csv = ["scoreNullable,teamId,hasTeamName,submissionDate,score,hasScore"]
        .concat(
          board.scores.map((s, i) => `${s ?? ""},${i + 1},True,2020-01-01 00:00:00,${s ?? ""},${s !== null}`),
        )
        .join("\n");
      expect(leaderboardScoresFromCsv(csv)).toEqual(board.scores);
    });
  }
});

describe("thresholds edge cases", () => {
  it("N=1, equal ends and missing ends mean higher is better", () => {
    expect(thresholdsFromLeaderboard([0.5]).isLowerBetter).toBe(false);
    expect(thresholdsFromLeaderboard([1, 2, 1]).isLowerBetter).toBe(false);
    expect(thresholdsFromLeaderboard([1, 2, null]).isLowerBetter).toBe(false);
    expect(thresholdsFromLeaderboard([1, 2, 3]).isLowerBetter).toBe(true);
  });
  it("missing score at a threshold position gives NaN (unreachable)", () => {
    const t = thresholdsFromLeaderboard([null, 0.5, 0.4]);
    expect(t.gold).toBeNaN();
    expect(rankScore(1, t).gold_medal).toBe(false);
    expect(t.median).toBeCloseTo(0.45, 15);
  });
  it("brackets", () => {
    expect(thresholdPositions(1)).toEqual({ gold: 1, silver: 1, bronze: 1 });
    expect(thresholdPositions(100)).toEqual({ gold: 10, silver: 20, bronze: 40 });
    expect(thresholdPositions(249)).toEqual({ gold: 10, silver: 49, bronze: 99 });
    expect(thresholdPositions(250)).toEqual({ gold: 10, silver: 50, bronze: 100 });
    expect(thresholdPositions(999)).toEqual({ gold: 11, silver: 50, bronze: 100 });
    expect(thresholdPositions(1000)).toEqual({ gold: 12, silver: 50, bronze: 100 });
    expect(() => thresholdPositions(0)).toThrow();
  });
  it("even median is (a+b)/2 in doubles", () => {
    expect(
      thresholdsFromLeaderboard([0.77819, 0.77819 - 1e-9, 0.7781899999999999 * 2 - 0.77819, 0.1]).median,
    ).toBe((0.77819 - 1e-9 + (0.7781899999999999 * 2 - 0.77819)) / 2);
  });
});

describe("percentile", () => {
  it("counts strictly beaten teams, ties as half, ignores missing", () => {
    expect(percentile(0.5, [0.9, 0.5, 0.1, null], false)).toBeCloseTo((1 + 0.5) / 3, 15);
    expect(percentile(0.05, [0.9, 0.5, 0.1], true)).toBe(1);
    expect(percentile(1, [0.9, 0.5, 0.1], false)).toBe(1);
    expect(percentile(NaN, [0.9, 0.5], false)).toBe(0);
    expect(percentile(null, [0.9, 0.5], false)).toBeNull();
  });
});

describe("round5", () => {
  it("ties to even on exact binary ties", () => {
    expect(round5(0.953125)).toBe(0.95312);
    expect(round5(0.890625)).toBe(0.89062);
    expect(round5(0.015625)).toBe(0.01562);
    expect(round5(0.078125)).toBe(0.07812);
    expect(round5(0.109375)).toBe(0.10938);
    expect(round5(-0.953125)).toBe(-0.95312);
    expect(round5(-0.109375)).toBe(-0.10938);
  });
  it("nearest otherwise; non-finite unchanged", () => {
    expect(round5(0.123455)).toBe(0.12345); // 0.123455 is below the tie in binary
    expect(round5(0.999996)).toBe(1);
    expect(round5(2.220446049250313e-16)).toBe(0);
    expect(round5(4.787491742782046)).toBe(4.78749);
    expect(round5(NaN)).toBeNaN();
    expect(round5(Infinity)).toBe(Infinity);
    expect(round5(1e20)).toBe(1e20);
  });
});
