import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import { IDENTITY_PARTS, type IdentityPart, type RunIdentity } from "./identity.js";
import { SuiteResultsSchema, RunResultSchema, type RunResult, type SuiteResults } from "../results/schema.js";
import { formatZodError } from "../config/errors.js";
import { UserError } from "../errors.js";
import { migrate, MigrationError, type Migrated } from "../results/migrate.js";
import { RESULTS_DOCUMENT, RUN_DOCUMENT, RUN_SCHEMA_VERSION } from "../results/versions.js";

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
  if (!existsSync(path)) return null;
  try {
    const raw = migrate(RUN_DOCUMENT, JSON.parse(readFileSync(path, "utf8"))).doc as unknown as StoredRun;
    const result = RunResultSchema.parse(raw.result);
    const id = StoredIdentity.safeParse(raw.identity);
    return {
      suiteHash: String(raw.suiteHash),
      agent: String(raw.agent),
      identity: id.success ? id.data : null,
      result,
    };
  } catch {
    return null;
  }
}

/**
 * Saves one run's result (run.json) atomically, so a resumed suite can reuse it. The one place a
 * run's result reaches the disk.
 */
export function saveRun(path: string, stored: StoredRun): void {
  writeAtomic(path, toJson({ schemaVersion: RUN_SCHEMA_VERSION, ...stored }));
}
