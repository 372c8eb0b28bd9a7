import { insidePath, preparedPath } from "./paths.js";
import { z } from "zod";
import { RecipeSchema } from "./recipe-schema.js";

/** Precomputed thresholds (when the full leaderboard CSV is not available). */
export const ThresholdsSchema = z.strictObject({
  gold: z.number(),
  silver: z.number(),
  bronze: z.number(),
  median: z.number(),
  teamCount: z.number().int().positive().optional(),
  /** Where the figures come from. */
  source: z.string(),
  /** True when teamCount is an estimate rather than the leaderboard's row count. */
  teamCountEstimated: z.boolean().optional(),
});

/** The upstream leaderboard CSV pinned by its Git LFS pointer. */
export const LeaderboardPinSchema = z.strictObject({
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().positive(),
});

/** A competition id: one path component (no "/", no leading "." or "-", no NUL), at most 128 characters. */
export const COMPETITION_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/**
 * A competition id wherever a file names one (registry, results, run records, imports): checked
 * before a path is built from it.
 */
export const CompetitionIdSchema = z
  .string()
  .max(128)
  .regex(COMPETITION_ID, "not a competition id (letters, digits, _ . -, starting with a letter or digit)");

/** competitions/<id>/competition.json */
export const CompetitionSchema = z.strictObject({
  id: CompetitionIdSchema,
  name: z.string(),
  category: z.string().default("Other"),
  /** Splits this competition belongs to (toy, low, medium, high, split75, dev, …). */
  splits: z.array(z.string().max(64)).max(64).default([]),
  /** Human-readable metric name. */
  metric: z.string(),
  isLowerBetter: z.boolean(),
  /** native: graded by Medalist (needs grader.json); external: by a configured command. */
  grading: z.enum(["native", "external"]).default("native"),
  /** Answers file, relative to <data-dir>/<id>/prepared/private. */
  answers: insidePath,
  /** Sample submission, relative to <data-dir>/<id>/prepared/public. */
  sampleSubmission: preparedPath,
  /** Leaderboard CSV (Kaggle export columns), relative to this competition's folder. */
  leaderboard: insidePath.optional(),
  /** SHA-256 and size of upstream's leaderboard.csv (fetched by `medalist leaderboards fetch`). */
  leaderboardPin: LeaderboardPinSchema.optional(),
  thresholds: ThresholdsSchema.optional(),
  /** Known problems upstream (e.g. "leaked-test-labels", "crowded-leaderboard"). */
  flags: z.array(z.string().max(128)).max(64).default([]),
  /** Rough agent run time in seconds, used to schedule the longest runs first. */
  expectedDurationSecs: z.number().positive().optional(),
  /** How the data is obtained; toy competitions are generated locally. */
  source: z.enum(["toy", "kaggle"]).default("kaggle"),
  /** Toy generator parameters (source: toy). */
  toy: z.record(z.string(), z.unknown()).optional(),
  /** Upstream metadata kept as facts (grade function name, dataset size, …). */
  upstream: z.record(z.string(), z.unknown()).optional(),
  /** How the Kaggle download becomes prepared/{public,private} (see src/prepare/recipe.ts). */
  prepare: RecipeSchema.optional(),
});

export type Competition = z.output<typeof CompetitionSchema>;
