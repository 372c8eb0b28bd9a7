import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { formatZodError } from "../../config/errors.js";
import { HISTORY_FILE } from "../../history/cache.js";
import { HistorySchema } from "../../history/history.js";
import { buildTrend, pointOfEntry, pointOfResults, trendText, type TrendRow } from "../../report/trend.js";
import { readResults } from "../../suite/store.js";
import { writeAtomic } from "../../util/atomic.js";
import { toCliJson } from "../../util/json.js";
import { trendPage } from "../../view/trend-page.js";
import { parseCommandArgs, UserError, type Command } from "../command.js";

/** Largest file read as a point (a results.json of 75 competitions × 20 seeds is a few MiB). */
const MAX_BYTES = 256 * 1024 ** 2;

const usage = `Usage: medalist trend PATH... [--html FILE] [--json]

The medal rate (with its 95% interval), mean leaderboard percentile and cost (agent time,
GPU-hours, self-reported dollars) of earlier results, oldest first, as a table.
Each PATH is one of:
  a folder \`medalist run\` wrote (--out DIR, default .medalist/<name>/): its head/results.json
  a results.json (any side, or one written by \`medalist merge\` or \`medalist import\`)
  a history file (the action's history.json: one point per default-branch run)
Points of different suites (other competitions, seeds, limits or grading) are marked with their
own letter and said how they differ: they are not comparable, and never joined in the chart.

Options:
  --html FILE   also write a chart page (self-contained HTML, no network) to FILE
  --json        print the points as JSON instead of the table`;

type Point = Omit<TrendRow, "suite">;

/** The file a PATH names: a folder's head/results.json, results.json or history.json, or the file itself. */
function fileOf(path: string): string {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new UserError(`not found: ${path}`);
  }
  if (st.isFile()) return path;
  if (!st.isDirectory()) throw new UserError(`${path} is neither a file nor a folder`);
  for (const name of [join("head", "results.json"), "results.json", HISTORY_FILE]) {
    const file = join(path, name);
    if (existsSync(file)) return file;
  }
  throw new UserError(
    `${path} holds no head/results.json, results.json or ${HISTORY_FILE}: give a folder \`medalist run\` wrote, a results.json or a history file`,
  );
}

/** The points of one PATH: one for a results file, one per entry for a history file. */
export function readPoints(path: string): Point[] {
  // Named as the user gave it (relative stays relative): the table's "from" column.
  const file = fileOf(path);
  const st = statSync(file);
  if (!st.isFile()) throw new UserError(`${file} is not a regular file`);
  if (st.size > MAX_BYTES)
    throw new UserError(`${file} is ${st.size} bytes, larger than the ${MAX_BYTES} bytes trend reads`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    // Never the parser's message: it quotes the file's bytes.
    throw new UserError(`${file}: not a results or history file (not valid JSON)`);
  }
  const doc =
    raw !== null && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  if ("entries" in doc && !("runs" in doc)) {
    const parsed = HistorySchema.safeParse(raw);
    // The first problem, in one sentence with its path (a wrong file has many).
    if (!parsed.success) throw new UserError(formatZodError(new z.ZodError([parsed.error.issues[0]]), file));
    return parsed.data.entries.map((e, i) => pointOfEntry(e, `${file} entry ${i + 1}`));
  }
  // Results (migrated from older versions, validated; a bad field is named with its path).
  return [pointOfResults(readResults(file), file)];
}

export const trendCommand: Command = {
  name: "trend",
  summary: "Medal rate, percentile and cost over earlier results (run folders, results.json, history file)",
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(
      argv,
      { html: { type: "string" }, json: { type: "boolean", default: false } },
      true,
    );
    if (positionals.length === 0)
      throw new UserError("expects at least one results folder, results.json or history file (see --help)");
    const points = positionals.flatMap(readPoints);
    if (points.length === 0) throw new UserError("no points: the history files given hold no entries");
    const trend = buildTrend(points);
    if (values.html) {
      writeAtomic(resolve(values.html), trendPage(trend));
    }
    if (values.json) console.log(toCliJson(trend));
    else {
      console.log(trendText(trend));
      if (values.html) console.log(`\nchart: ${resolve(values.html)}`);
    }
    return 0;
  },
};
