/**
 * The versions of Medalist's own documents and the steps between them (see migrate.ts).
 * results.json: v1 (schemaVersion 1) → v2 (a `failure` record on every run).
 * run.json: v1 (no schemaVersion) → v2 (schemaVersion, and its result as in results v2).
 */
import type { DocumentKind, Json } from "./migrate.js";

export const RESULTS_SCHEMA_VERSION = 2;
export const RUN_SCHEMA_VERSION = 2;

/**
 * A v1 run gains `failure`: null when it completed, else the error line it recorded as the cause
 * (v1 kept no signal or stderr lines).
 */
function runV1ToV2(run: unknown): unknown {
  if (run === null || typeof run !== "object" || Array.isArray(run)) return run;
  const r = run as Json;
  if (r.failure !== undefined) return r;
  const completed = r.outcome === "completed";
  return {
    ...r,
    failure: completed
      ? null
      : {
          cause: typeof r.error === "string" && r.error ? r.error : String(r.outcome),
          exitCode: typeof r.exitCode === "number" ? r.exitCode : null,
          signal: null,
          stderrTail: [],
        },
  };
}

export const RESULTS_DOCUMENT: DocumentKind = {
  name: "results",
  current: RESULTS_SCHEMA_VERSION,
  unversioned: 1,
  versionOf: (doc) => doc.schemaVersion,
  migrations: [
    {
      from: 1,
      change: "every run records its failure (cause, exit code, signal, last stderr lines)",
      up: (doc) => ({
        ...doc,
        schemaVersion: 2,
        runs: Array.isArray(doc.runs) ? doc.runs.map(runV1ToV2) : doc.runs,
      }),
    },
  ],
};

export const RUN_DOCUMENT: DocumentKind = {
  name: "run",
  current: RUN_SCHEMA_VERSION,
  unversioned: 1,
  versionOf: (doc) => doc.schemaVersion,
  migrations: [
    {
      from: 1,
      change: "run.json carries schemaVersion; its result records its failure",
      up: (doc) => ({ schemaVersion: 2, ...doc, result: runV1ToV2(doc.result) }),
    },
  ],
};
