import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from "node:fs";
import { dirname } from "node:path";
import { SuiteResultsSchema, RunResultSchema, type RunResult, type SuiteResults } from "../results/schema.js";
import { formatZodError } from "../config/errors.js";
import { UserError } from "../errors.js";

/** JSON with NaN scores written as "NaN" (JSON has no NaN). */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === "number" && Number.isNaN(v) ? "NaN" : v), 2) + "\n";
}

/** Writes a file atomically: a temporary file in the same folder, then rename. */
export function writeAtomic(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/** Validates and writes results.json; returns the document as written. */
export function writeResults(path: string, results: SuiteResults): SuiteResults {
  const parsed = SuiteResultsSchema.parse(results);
  writeAtomic(path, toJson(parsed));
  return parsed;
}

export function readResults(path: string): SuiteResults {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(
      code === "ENOENT"
        ? `results file not found: ${path}`
        : `${path}: not a results JSON file (${(e as Error).message})`,
    );
  }
  const parsed = SuiteResultsSchema.safeParse(raw);
  if (!parsed.success) throw new UserError(formatZodError(parsed.error, path));
  return parsed.data;
}

/** A run's own result file (run.json), kept so a re-run can skip finished runs. */
export interface StoredRun {
  suiteHash: string;
  agent: string;
  result: RunResult;
}

export function readStoredRun(path: string): StoredRun | null {
  if (!existsSync(path)) return null;
  try {
    const raw = JSON.parse(readFileSync(path, "utf8")) as StoredRun;
    const result = RunResultSchema.parse(raw.result);
    return { suiteHash: String(raw.suiteHash), agent: String(raw.agent), result };
  } catch {
    return null;
  }
}

/**
 * Saves one run's result (run.json) atomically, so a resumed suite can reuse it. The one place a
 * run's result reaches the disk.
 */
export function saveRun(path: string, stored: StoredRun): void {
  writeAtomic(path, toJson(stored));
}
