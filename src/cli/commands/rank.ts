import { resolve } from "node:path";
import { numberOption, parseCommandArgs, requireOption, UserError, type Command } from "../command.js";
import {
  percentile,
  rankScore,
  readLeaderboardScores,
  thresholdsFromLeaderboard,
} from "../../grade/medals.js";
import { pythonJson } from "../../grade/json.js";

const usage = `Usage: medalist rank --leaderboard FILE --score X [--json]

Medals a score would earn on a Kaggle leaderboard export (columns
scoreNullable,teamId,hasTeamName,submissionDate,score,hasScore), as MLE-bench's rank_score.
The score is used as given (MLE-bench rounds grades to 5 decimals before ranking).

Options:
  --leaderboard FILE  leaderboard CSV, best first as Kaggle lists it
  --score X           the score; NaN allowed (never medals)
  --json              print JSON (MLE-bench field names; NaN as NaN)`;

export const rankCommand: Command = {
  name: "rank",
  summary: "Medals and percentile a score would get on a leaderboard",
  usage,
  async run(argv) {
    const { values } = parseCommandArgs(argv, {
      leaderboard: { type: "string" },
      score: { type: "string" },
      json: { type: "boolean", default: false },
    });
    const file = resolve(requireOption(values.leaderboard, "--leaderboard"));
    const score = numberOption(requireOption(values.score, "--score"), "--score", true);
    let scores: (number | null)[];
    try {
      scores = readLeaderboardScores(file);
      if (scores.length === 0) throw new Error("the leaderboard has no rows");
    } catch (e) {
      throw new UserError(`cannot read the leaderboard ${file}: ${(e as Error).message}`);
    }
    const t = thresholdsFromLeaderboard(scores);
    const out = {
      score,
      ...rankScore(score, t),
      gold_threshold: t.gold,
      silver_threshold: t.silver,
      bronze_threshold: t.bronze,
      median_threshold: t.median,
      is_lower_better: t.isLowerBetter,
      team_count: scores.length,
      percentile: percentile(score, scores, t.isLowerBetter),
    };
    if (values.json) console.log(pythonJson(out));
    else {
      const medal = out.gold_medal
        ? "gold"
        : out.silver_medal
          ? "silver"
          : out.bronze_medal
            ? "bronze"
            : "none";
      console.log(
        `score ${score}: medal ${medal}, above median: ${out.above_median ? "yes" : "no"}, beats ${((out.percentile ?? 0) * 100).toFixed(1)}% of ${scores.length} teams\n` +
          `thresholds (${t.isLowerBetter ? "lower" : "higher"} is better): gold ${t.gold}, silver ${t.silver}, bronze ${t.bronze}, median ${t.median}`,
      );
    }
    return 0;
  },
};
