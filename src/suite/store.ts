import { readFileSync, existsSync } from "node:fs";
import { z } from "zod";
import { IDENTITY_PARTS, type IdentityPart, type RunIdentity } from "./identity.js";
import { SuiteResultsSchema, RunResultSchema, type RunResult, type SuiteResults } from "../results/schema.js";
import { formatZodError } from "../config/errors.js";
import { UserError } from "../errors.js";
import { migrate, MigrationError, type Migrated } from "../results/migrate.js";
import { RESULTS_DOCUMENT, RUN_DOCUMENT, RUN_SCHEMA_VERSION } from "../results/versions.js";
import { writeAtomic } from "../util/atomic.js";

/** JSON with NaN scores written as "NaN" (JSON has no NaN). */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === "number" && Number.isNaN(v) ? "NaN" : v), 2) + "\n";
}

/** Validates and writes results.json; returns the document as written. */
export function writeResults(path: string, results: SuiteResults): SuiteResults {
  const parsed = SuiteResultsSchema.parse(results);
  writeAtomic(path, toJson(parsed));
  return parsed;
}

/** A results document of any version has its suite and its runs; anything else is another file. */
function looksLikeResults(raw: unknown): boolean {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return false;
  const doc = raw as Record<string, unknown>;
  return typeof doc.suite === "object" && doc.suite !== null && Array.isArray(doc.runs);
}

export function readResults(path: string): SuiteResults {
  return readResultsMigrated(path).results;
}

/** Reads results.json, migrating an older version before validation; `applied` lists the steps. */
export function readResultsMigrated(path: string): Omit<Migrated, "doc"> & { results: SuiteResults } {
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
  if (!looksLikeResults(raw)) {
    throw new UserError(
      `${path} is not a Medalist results document (it has no "suite" and "runs"): ` +
        "pass a results.json written by `medalist run` (DIR/head/results.json or DIR/base/results.json)",
    );
  }
  let migrated: Migrated;
  try {
    migrated = migrate(RESULTS_DOCUMENT, raw);
  } catch (e) {
    if (e instanceof MigrationError) throw new UserError(`${path}: ${e.message}`);
    throw e;
  }
  const parsed = SuiteResultsSchema.safeParse(migrated.doc);
  if (!parsed.success) throw new UserError(formatZodError(parsed.error, path));
  return { results: parsed.data, from: migrated.from, applied: migrated.applied };
}

/** A run's own result file (run.json), kept so a re-run can skip finished runs. */
export interface StoredRun {
  suiteHash: string;
  agent: string;
  /** null for runs written before identities were recorded: never reused. */
  identity: RunIdentity | null;
  result: RunResult;
}

const StoredIdentity = z.object({
  hash: z.string(),
  parts: z.object(
    Object.fromEntries(IDENTITY_PARTS.map((p) => [p, z.string()])) as Record<IdentityPart, z.ZodString>,
  ),
});

export function readStoredRun(path: string): StoredRun | null {
  const r = readStoredRunChecked(path);
  return "stored" in r ? r.stored : null;
}

/**
 * A run's record, or why it cannot be used: missing (absent), or unreadable — half-written by a
 * process killed mid-write before writes were atomic, damaged, or not a run record. Either way it is
 * never reused; `problem` says why, so the caller can say it once.
 */
export function readStoredRunChecked(
  path: string,
): { stored: StoredRun } | { stored: null; problem: string | null } {
  if (!existsSync(path)) return { stored: null, problem: null };
  try {
    const raw = migrate(RUN_DOCUMENT, JSON.parse(readFileSync(path, "utf8"))).doc as unknown as StoredRun;
    const result = RunResultSchema.parse(raw.result);
    const id = StoredIdentity.safeParse(raw.identity);
    return {
      stored: {
        suiteHash: String(raw.suiteHash),
        agent: String(raw.agent),
        identity: id.success ? id.data : null,
        result,
      },
    };
  } catch (e) {
    const why = e instanceof SyntaxError ? "not complete JSON" : "not a valid run record";
    return { stored: null, problem: `${why}, half-written or damaged` };
  }
}

/**
 * Saves one run's result (run.json) atomically, so a resumed suite can reuse it. The one place a
 * run's result reaches the disk.
 */
export function saveRun(path: string, stored: StoredRun): void {
  writeAtomic(path, toJson({ schemaVersion: RUN_SCHEMA_VERSION, ...stored }));
}
