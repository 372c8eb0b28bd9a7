import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseCommandArgs, requireOption, UserError, type Command } from "../command.js";
import { unknownCompetition, loadRegistry } from "../../registry/registry.js";
import { grade } from "../../grade/grade.js";
import { toCliJson } from "../../util/json.js";
import type { GradeReport } from "../../grade/types.js";

const usage = `Usage: medalist grade --competition ID --submission FILE --data-dir DIR [options]

Grades one submission exactly as MLE-bench does and prints the report.

Options:
  --competition ID        competition id (see \`medalist competitions\`)
  --submission FILE       the submission CSV
  --data-dir DIR          MLE-bench data folder (answers in DIR/ID/prepared/private)
  --leaderboard FILE      leaderboard CSV (Kaggle export) to take thresholds from; without it
                          the board is resolved as \`medalist run\` resolves it: a fetched
                          leaderboard matching its pin, one shipped with the competition, else
                          the precomputed thresholds
  --leaderboards-dir DIR  fetched leaderboards (default: $MEDALIST_LEADERBOARDS_DIR or ~/.cache/medalist/leaderboards)
  --registry DIR          competitions folder (default: the bundled one)
  --external-command CMD  grader command for externally graded competitions
                          ({submission}, {competition}, {private_dir} are filled in)
  --json                  print the report as JSON (MLE-bench field names; NaN/±Infinity as null, named in "nonFinite")`;

function fmt(x: number | null): string {
  return x === null ? "—" : String(x);
}

const SOURCES: Record<NonNullable<GradeReport["thresholds_source"]>, string> = {
  leaderboard: "the leaderboard",
  thresholds: "the precomputed thresholds",
  none: "nowhere: no leaderboard or thresholds",
};

export function formatReport(r: GradeReport): string {
  const medal = r.gold_medal ? "gold" : r.silver_medal ? "silver" : r.bronze_medal ? "bronze" : "none";
  const lines = [
    `${r.competition_id}: ${r.valid_submission ? `score ${fmt(r.score)}` : r.submission_exists ? "invalid submission" : "no submission"}`,
    `  medal ${medal}, above median: ${r.above_median ? "yes" : "no"}${r.percentile !== null ? `, beats ${(r.percentile * 100).toFixed(1)}% of the leaderboard` : ""}`,
    `  thresholds (${r.is_lower_better ? "lower" : "higher"} is better; from ${SOURCES[r.thresholds_source ?? "none"]}): gold ${r.gold_threshold}, silver ${r.silver_threshold}, bronze ${r.bronze_threshold}, median ${r.median_threshold}`,
  ];
  if (r.error) lines.push(`  reason: ${r.error}`);
  return lines.join("\n");
}

export const gradeCommand: Command = {
  name: "grade",
  summary: "Grade a submission CSV as MLE-bench does (score, medal, percentile)",
  usage,
  async run(argv) {
    const { values } = parseCommandArgs(argv, {
      competition: { type: "string" },
      submission: { type: "string" },
      "data-dir": { type: "string" },
      leaderboard: { type: "string" },
      "leaderboards-dir": { type: "string" },
      registry: { type: "string" },
      "external-command": { type: "string" },
      json: { type: "boolean", default: false },
    });
    const id = requireOption(values.competition, "--competition");
    const submission = requireOption(values.submission, "--submission");
    const dataDir = requireOption(values["data-dir"], "--data-dir");
    const registry = loadRegistry(values.registry ? resolve(values.registry) : undefined);
    const entry = registry.get(id);
    if (!entry) throw unknownCompetition(registry, id, "--competition");
    const ext = values["external-command"]?.trim();
    const privateDir = join(resolve(dataDir), id, "prepared", "private");
    // The answers first: without them every submission would read as invalid.
    const answers = join(privateDir, entry.competition.answers);
    if (!existsSync(answers)) {
      throw new UserError(
        `the answers of ${id} are missing (${answers} does not exist): prepare the competition first ` +
          `(medalist prepare --competition ${id} --data-dir ${dataDir}), or pass the --data-dir where it is prepared`,
      );
    }
    const report = await grade({
      competition: entry.competition,
      competitionDir: entry.dir,
      privateDir,
      submissionPath: submission,
      leaderboardPath: values.leaderboard ? resolve(values.leaderboard) : undefined,
      leaderboardsDir: values["leaderboards-dir"] ? resolve(values["leaderboards-dir"]) : undefined,
      external: ext ? { command: ext.split(/\s+/) } : undefined,
    });
    console.log(values.json ? toCliJson(report) : formatReport(report));
    return report.grader_error ? 1 : 0;
  },
};
