import { z } from "zod";
import { COMPETITION_ID, CompetitionIdSchema } from "../registry/schema.js";
import { RESULTS_SCHEMA_VERSION } from "./versions.js";

/** Bump (in versions.ts, with a migration) when the results document changes incompatibly. */
export { RESULTS_SCHEMA_VERSION };

/** JSON cannot hold NaN: a NaN score is written as the string "NaN". */
const score = z.union([z.number(), z.literal("NaN", { error: "expected a number or null" }), z.null()]);

/** The medal flags and paths of MLE-bench's CompetitionReport.to_dict() (also read from upstream's files). */
export const reportFlagFields = {
  any_medal: z.boolean(),
  gold_medal: z.boolean(),
  silver_medal: z.boolean(),
  bronze_medal: z.boolean(),
  above_median: z.boolean(),
  submission_exists: z.boolean(),
  valid_submission: z.boolean(),
  is_lower_better: z.boolean(),
  created_at: z.string(),
  submission_path: z.string(),
};

export const GradeReportSchema = z.object({
  competition_id: z.string(),
  score,
  gold_threshold: score,
  silver_threshold: score,
  bronze_threshold: score,
  median_threshold: score,
  ...reportFlagFields,
  percentile: z.number().min(0).max(1).nullable(),
  error: z.string().nullable(),
  /** The metric's value before rounding to 5 decimals. */
  unrounded_score: score.optional(),
  /** Where the thresholds came from: the full leaderboard, precomputed figures, or nowhere. */
  thresholds_source: z.enum(["leaderboard", "thresholds", "none"]).optional(),
  /** Grading itself failed (answers unreadable, grader misconfigured): not the agent's fault. */
  grader_error: z.boolean().optional(),
});

export const OutcomeSchema = z.enum(["completed", "failed", "timed_out", "oom", "infra_error"]);

export const RunResultSchema = z.object({
  /** "<competition>.s<seed>": a folder's name under runs/, so one path component like the id. */
  runId: z
    .string()
    .max(160)
    .regex(COMPETITION_ID, "not a run id (letters, digits, _ . -, starting with a letter or digit)"),
  competitionId: CompetitionIdSchema,
  seed: z.number().int(),
  outcome: OutcomeSchema,
  exitCode: z.number().int().nullable(),
  startedAt: z.string(),
  durationMs: z.number().min(0),
  /** Tries taken (infrastructure errors are retried); 0 for a run that never ran (details.notRun, a lost shard). */
  attempts: z.number().int().min(0),
  /** The run's folder (logs/, code/, submission/, run.log), relative to the results file. */
  runDir: z.string(),
  error: z.string().nullable(),
  /** null when the run never produced something gradeable (infra_error). */
  grade: GradeReportSchema.nullable(),
  /** Self-reported by the agent (logs/usage.json); `ignored` names fields that were not usable numbers. */
  usage: z
    .object({
      tokens: z.number().optional(),
      dollars: z.number().optional(),
      ignored: z.array(z.enum(["tokens", "dollars"])).optional(),
    })
    .nullable()
    .default(null),
  gpus: z.array(z.string()).default([]),
  details: z.record(z.string(), z.string()).default({}),
  /** The run's identity (see suite/identity.ts): reused only while it matches. */
  identity: z.string().optional(),
  /** Kept from an earlier invocation with the same identity instead of executed now. */
  reused: z.boolean().optional(),
  /** Why the run did not complete: a one-line cause, exit code, signal, last stderr lines. */
  failure: z
    .object({
      cause: z.string(),
      exitCode: z.number().int().nullable(),
      signal: z.string().nullable(),
      stderrTail: z.array(z.string()),
    })
    .nullable()
    .optional(),
});

export const SuiteResultsSchema = z.object({
  schemaVersion: z.literal(RESULTS_SCHEMA_VERSION),
  medalistVersion: z.string(),
  /** "base" or "head" in a comparison; free text otherwise. */
  label: z.string(),
  suite: z.object({
    name: z.string(),
    /** Hash of what makes two runs comparable (competitions, seeds, limits, grading). */
    hash: z.string(),
    competitions: z.array(z.string()),
    seeds: z.number().int(),
  }),
  agent: z.object({
    description: z.string(),
    image: z.string().nullable().default(null),
    imageDigest: z.string().nullable().default(null),
  }),
  git: z.object({ sha: z.string().nullable(), ref: z.string().nullable() }).default({ sha: null, ref: null }),
  environment: z.object({
    executor: z.string(),
    timeLimitSecs: z.number(),
    gpuModel: z.string().nullable().default(null),
    /** The OCI runtime the agent's containers ran under (the Docker executor). */
    runtime: z.string().max(64).optional(),
    /** Set when the agent ran with no sandbox: why (the local executor). */
    unsandboxed: z.string().optional(),
    node: z.string(),
    platform: z.string(),
  }),
  startedAt: z.string(),
  finishedAt: z.string(),
  /** Set on one shard's results (`medalist run --shard i/N`); absent once merged. */
  shard: z
    .object({ index: z.number().int().min(1), count: z.number().int().min(1), runIds: z.array(z.string()) })
    .optional(),
  runs: z.array(RunResultSchema),
});

export type RunResult = z.output<typeof RunResultSchema>;
export type SuiteResults = z.output<typeof SuiteResultsSchema>;
export type GradeReportJson = z.output<typeof GradeReportSchema>;
