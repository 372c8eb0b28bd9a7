import { readInside } from "../util/runfiles.js";
import { usableAmount } from "../results/usage.js";
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

/**
 * The agent's optional logs/usage.json ({tokens, dollars}), self-reported and unverified: null when
 * absent or not a JSON object; a field that is not a finite, non-negative, plausible number
 * (usableAmount: NaN strings, 1e308, negatives) is left out and named in `ignored`.
 */
export function readUsage(runDir: string): RunResult["usage"] {
  let raw: unknown;
  try {
    // Read without following links, bounded: the agent wrote this file (util/runfiles.ts).
    const file = readInside(runPaths(runDir).logsDir, "usage.json", 64 * 1024);
    if (!file.ok) return null;
    raw = JSON.parse(file.data.toString("utf8"));
  } catch {
    return null;
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return null;
  const usage: NonNullable<RunResult["usage"]> = {};
  const ignored: ("tokens" | "dollars")[] = [];
  for (const key of ["tokens", "dollars"] as const) {
    if (!(key in raw)) continue;
    const v = (raw as Record<string, unknown>)[key];
    if (usableAmount(v)) usage[key] = v;
    else ignored.push(key);
  }
  return ignored.length ? { ...usage, ignored } : usage;
}
