import { resolve } from "node:path";
import { numberOption, parseCommandArgs, requireOption, UserError, type Command } from "../command.js";
import { percentile, rankScore } from "../../grade/medals.js";
import { boardFor, boardFromFile, type Board } from "../../grade/board.js";
import { unknownCompetition, loadRegistry } from "../../registry/registry.js";
import { toCliJson } from "../../util/json.js";

const usage = `Usage: medalist rank (--leaderboard FILE | --competition ID) --score X [--json]

Medals a score would earn on a Kaggle leaderboard export (columns
scoreNullable,teamId,hasTeamName,submissionDate,score,hasScore), as MLE-bench's rank_score.
The score is used as given (MLE-bench rounds grades to 5 decimals before ranking).
With --competition the board is resolved as \`medalist grade\` and \`medalist run\` resolve it: a
fetched leaderboard matching its pin, else one shipped with the competition, else the
precomputed thresholds.

Options:
  --leaderboard FILE      leaderboard CSV, best first as Kaggle lists it
  --competition ID        resolve the competition's board instead
  --registry DIR          competitions folder (default: the bundled one)
  --leaderboards-dir DIR  fetched leaderboards (default: $MEDALIST_LEADERBOARDS_DIR or ~/.cache/medalist/leaderboards)
  --score X               the score; NaN allowed (never medals)
  --json                  print JSON (MLE-bench field names; NaN/±Infinity as null, named in "nonFinite")`;

export const rankCommand: Command = {
  name: "rank",
  summary: "Medals and percentile a score would get on a leaderboard",
  usage,
  async run(argv) {
    const { values } = parseCommandArgs(argv, {
      leaderboard: { type: "string" },
      competition: { type: "string" },
      registry: { type: "string" },
      "leaderboards-dir": { type: "string" },
      score: { type: "string" },
      json: { type: "boolean", default: false },
    });
    const score = numberOption(requireOption(values.score, "--score"), "--score", true);
    const board = resolveRankBoard(values);
    const t = board.thresholds;
    const scores = board.scores;
    const out = {
      score,
      ...rankScore(score, t),
      gold_threshold: t.gold,
      silver_threshold: t.silver,
      bronze_threshold: t.bronze,
      median_threshold: t.median,
      is_lower_better: t.isLowerBetter,
      team_count: scores ? scores.length : null,
      percentile: scores ? percentile(score, scores, t.isLowerBetter) : null,
      thresholds_source: board.source,
    };
    if (values.json) console.log(toCliJson(out));
    else {
      const medal = out.gold_medal
        ? "gold"
        : out.silver_medal
          ? "silver"
          : out.bronze_medal
            ? "bronze"
            : "none";
      const beats = scores
        ? `, beats ${((out.percentile ?? 0) * 100).toFixed(1)}% of ${scores.length} teams`
        : "";
      const from =
        board.source === "leaderboard"
          ? `the leaderboard ${board.file}`
          : board.source === "thresholds"
            ? "the precomputed thresholds (no leaderboard file)"
            : "no thresholds";
      console.log(
        `score ${score}: medal ${medal}, above median: ${out.above_median ? "yes" : "no"}${beats}\n` +
          `thresholds (${t.isLowerBetter ? "lower" : "higher"} is better) from ${from}: gold ${shown(t.gold)}, silver ${shown(t.silver)}, bronze ${shown(t.bronze)}, median ${shown(t.median)}`,
      );
    }
    return 0;
  },
};

/**
 * A threshold for reading: 12 significant digits, which keeps every digit a leaderboard holds and
 * drops the last-bit noise of float arithmetic (a median of 0.7591 and 0.7593 is 0.7592, not 0.7592000000000001).
 */
export function shown(x: number): string {
  return Number.isFinite(x) ? String(Number(x.toPrecision(12))) : String(x);
}

function resolveRankBoard(values: {
  leaderboard?: string;
  competition?: string;
  registry?: string;
  "leaderboards-dir"?: string;
}): Board {
  if (values.leaderboard !== undefined && values.competition !== undefined)
    throw new UserError("give either --leaderboard or --competition, not both");
  if (values.competition === undefined) {
    const file = resolve(requireOption(values.leaderboard, "--leaderboard"));
    try {
      return boardFromFile(file);
    } catch (e) {
      throw new UserError((e as Error).message);
    }
  }
  const registry = loadRegistry(values.registry ? resolve(values.registry) : undefined);
  const entry = registry.get(values.competition);
  if (!entry) throw unknownCompetition(registry, values.competition, "--competition");
  const dir = values["leaderboards-dir"] ? resolve(values["leaderboards-dir"]) : undefined;
  return boardFor(entry.competition, entry.dir, undefined, dir);
}
