import { readInside } from "../util/runfiles.js";
import { z } from "zod";
import { runPaths } from "../execute/types.js";
import type { GradeReport } from "../grade/types.js";
import type { GradeReportJson, RunResult } from "../results/schema.js";

/** A grade report as results.json holds it (NaN written as "NaN"). */
export function gradeJson(r: GradeReport): GradeReportJson {
  const n = (v: number | null) => (v !== null && Number.isNaN(v) ? ("NaN" as const) : v);
  return {
    ...r,
    score: n(r.score),
    gold_threshold: n(r.gold_threshold),
    silver_threshold: n(r.silver_threshold),
    bronze_threshold: n(r.bronze_threshold),
    median_threshold: n(r.median_threshold),
    ...(r.unrounded_score === undefined ? {} : { unrounded_score: n(r.unrounded_score) }),
  };
}

const UsageSchema = z.object({
  tokens: z.number().nonnegative().optional(),
  dollars: z.number().nonnegative().optional(),
});

/** The agent's optional logs/usage.json ({tokens, dollars}); ignored when absent or malformed. */
export function readUsage(runDir: string): RunResult["usage"] {
  try {
    // Read without following links, bounded: the agent wrote this file (util/runfiles.ts).
    const file = readInside(runPaths(runDir).logsDir, "usage.json", 64 * 1024);
    if (!file.ok) return null;
    const parsed = UsageSchema.safeParse(JSON.parse(file.data.toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
