import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { z } from "zod";
import { formatZodError } from "../config/errors.js";
import { UserError } from "../errors.js";
import { CompetitionIdSchema } from "../registry/schema.js";
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
  competition_id: CompetitionIdSchema,
  submission_path: z.string().nullable(),
  logs_path: z.string().nullable(),
  code_path: z.string().nullable(),
});
export type SubmissionLine = z.output<typeof SubmissionLineSchema>;

/**
 * Python's json.dump writes NaN for a float NaN: read here as the string "NaN". Anything else is
 * "expected a number" (NaN is one), not zod's `expected "NaN"` from the literal's branch.
 */
const pyFloat = z.union([z.number(), z.literal("NaN", { error: "expected a number" })]);
const pyFloatOrNull = z.union([
  z.number(),
  z.literal("NaN", { error: "expected a number or null" }),
  z.null(),
]);

/** CompetitionReport.to_dict() (mlebench/grade_helpers.py). */
export const CompetitionReportSchema = z.object({
  competition_id: CompetitionIdSchema,
  score: pyFloatOrNull,
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

/**
 * JSON as Python writes it: bare NaN, Infinity and -Infinity (outside strings) become "NaN",
 * 1e999 and -1e999, which JSON.parse reads as NaN-marker, Infinity and -Infinity.
 */
export function parsePythonJson(text: string): unknown {
  // Strings are kept as they are (an unrolled loop: no backtracking on long strings).
  const out = text.replace(/"[^"\\]*(?:\\[\s\S][^"\\]*)*"|NaN|Infinity/g, (m) =>
    m === "NaN" ? '"NaN"' : m === "Infinity" ? "1e999" : m,
  );
  return JSON.parse(out);
}

/** Largest upstream file read: tens of thousands of graded submissions (75 competitions × 20 seeds is about 1 MiB). */
export const MAX_UPSTREAM_BYTES = 32 * 1024 ** 2;

/** The cap on upstream files: MEDALIST_MAX_IMPORT_BYTES when set (tests), else MAX_UPSTREAM_BYTES. */
export function maxUpstreamBytes(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.MEDALIST_MAX_IMPORT_BYTES);
  return Number.isSafeInteger(n) && n > 0 ? n : MAX_UPSTREAM_BYTES;
}

/** Reads and validates one upstream file; a bad file is one sentence naming it and the bad field (exit 2). */
export function readUpstream<T extends z.ZodType>(
  path: string,
  schema: T,
  what: string,
  maxBytes = maxUpstreamBytes(),
): z.output<T> {
  let raw: unknown;
  let bytes: Buffer;
  try {
    bytes = readBounded(path, maxBytes);
  } catch (e) {
    if (e instanceof UserError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(
      code === "ENOENT" ? `${what} not found: ${path}` : `cannot read ${path} (${code ?? "error"})`,
    );
  }
  try {
    raw = parsePythonJson(bytes.toString("utf8"));
  } catch {
    // Never the parser's message: it quotes the file's bytes.
    throw new UserError(`${path}: not ${what} (not valid JSON)`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new UserError(formatZodError(new z.ZodError([parsed.error.issues[0]]), path));
  return parsed.data;
}

/** The bytes of the regular file `path`, at most `maxBytes` (refused with one sentence when larger). */
export function readBounded(path: string, maxBytes: number): Buffer {
  const fd = openSync(path, "r");
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new UserError(`${path} is not a regular file`);
    if (st.size > maxBytes)
      throw new UserError(
        `${path} is ${st.size} bytes, larger than the ${maxBytes} bytes Medalist reads from such a file`,
      );
    // Read to maxBytes + 1: a file that grows while read is refused the same way.
    const buf = Buffer.alloc(Math.min(maxBytes + 1, Math.max(st.size, 0) + 1));
    let n = 0;
    for (let r; n < buf.length && (r = readSync(fd, buf, n, buf.length - n, null)) > 0;) n += r;
    if (n > maxBytes)
      throw new UserError(`${path} is larger than the ${maxBytes} bytes Medalist reads from such a file`);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
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
