import { readFileSync } from "node:fs";
import { z } from "zod";
import { formatZodError } from "../config/errors.js";
import { UserError } from "../errors.js";
import { reportFlagFields } from "../results/schema.js";

/**
 * The files of an upstream MLE-bench run group, as its tools write and read them:
 * run_agent.py's metadata.json, make_submission.py's submission.jsonl, and `mlebench grade`'s
 * <timestamp>_grading_report.json. Extra fields are allowed (newer upstream versions may add some).
 */

/** run_agent.py: {"run_group", "created_at", "runs": {<run id>: {"success": bool}}}. */
export const RunGroupMetadataSchema = z.object({
  run_group: z.string(),
  created_at: z.string(),
  runs: z.record(z.string(), z.object({ success: z.boolean() })),
});
export type RunGroupMetadata = z.output<typeof RunGroupMetadataSchema>;

/** One line of submission.jsonl (make_submission.py); `mlebench grade` reads the first two. */
export const SubmissionLineSchema = z.object({
  competition_id: z.string(),
  submission_path: z.string().nullable(),
  logs_path: z.string().nullable(),
  code_path: z.string().nullable(),
});
export type SubmissionLine = z.output<typeof SubmissionLineSchema>;

/** Python's json.dump writes NaN for a float NaN: read here as the string "NaN". */
const pyFloat = z.union([z.number(), z.literal("NaN")]);

/** CompetitionReport.to_dict() (mlebench/grade_helpers.py). */
export const CompetitionReportSchema = z.object({
  competition_id: z.string().min(1),
  score: pyFloat.nullable(),
  gold_threshold: pyFloat,
  silver_threshold: pyFloat,
  bronze_threshold: pyFloat,
  median_threshold: pyFloat,
  ...reportFlagFields,
});
export type CompetitionReport = z.output<typeof CompetitionReportSchema>;

const count = z.number().int().min(0);

/** aggregate_reports() (mlebench/grade.py): the totals and one report per graded submission. */
export const GradingReportSchema = z.object({
  total_runs: count,
  total_runs_with_submissions: count,
  total_valid_submissions: count,
  total_medals: count,
  total_gold_medals: count,
  total_silver_medals: count,
  total_bronze_medals: count,
  total_above_median: count,
  competition_reports: z.array(CompetitionReportSchema),
});
export type GradingReport = z.output<typeof GradingReportSchema>;

/**
 * JSON as Python writes it: bare NaN, Infinity and -Infinity (outside strings) become "NaN",
 * 1e999 and -1e999, which JSON.parse reads as NaN-marker, Infinity and -Infinity.
 */
export function parsePythonJson(text: string): unknown {
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      out += ch;
      if (ch === "\\") out += text[++i] ?? "";
      else if (ch === '"') inString = false;
    } else if (ch === '"') {
      inString = true;
      out += ch;
    } else if (text.startsWith("NaN", i)) {
      out += '"NaN"';
      i += 2;
    } else if (text.startsWith("Infinity", i)) {
      out += "1e999";
      i += 7;
    } else out += ch;
  }
  return JSON.parse(out);
}

/** Reads and validates one upstream file; a bad file is one sentence naming it and the bad field (exit 2). */
export function readUpstream<T extends z.ZodType>(path: string, schema: T, what: string): z.output<T> {
  let raw: unknown;
  try {
    raw = parsePythonJson(readFileSync(path, "utf8"));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(
      code === "ENOENT" ? `${what} not found: ${path}` : `${path}: not ${what} (${(e as Error).message})`,
    );
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new UserError(formatZodError(new z.ZodError([parsed.error.issues[0]]), path));
  return parsed.data;
}

/** json.dumps of a flat object with Python's default separators and ensure_ascii (one JSONL line). */
export function pythonJsonLine(obj: Record<string, string | null>): string {
  const ascii = (s: string) =>
    JSON.stringify(s).replace(
      /[\u0080-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
  const fields = Object.entries(obj).map(([k, v]) => `${ascii(k)}: ${v === null ? "null" : ascii(v)}`);
  return `{${fields.join(", ")}}`;
}

/** Python's time.strftime("%Y-%m-%dT%H-%M-%S-%Z", time.gmtime()): upstream's timestamps. */
export function upstreamTimestamp(d: Date): string {
  const iso = d.toISOString(); // 2024-10-08T18:09:02.000Z
  return `${iso.slice(0, 10)}T${iso.slice(11, 19).replace(/:/g, "-")}-UTC`;
}
