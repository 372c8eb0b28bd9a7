/**
 * competitions/<id>/grader.json: how a competition is graded, declared. Each kind names one
 * of upstream's grading recipes; the options capture the per-competition differences
 * (column rules, id matching, range checks). See docs/grading.md.
 */
import { z } from "zod";
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { formatZodError } from "../config/errors.js";

const name = z.string().min(1);
const names = z.array(name).min(1);
const note = z.string().optional();
/** Which rounding upstream's Grader applies: python (a Python float) or numpy (a numpy float64). Default per kind. */
const rounding = z.enum(["python", "numpy"]).optional();

/** How submission ids must relate to the answers' ids. */
const IdRule = z.enum([
  /** Sorted id lists equal (same multiset): missing, extra, duplicated or retyped ids are invalid. */
  "match",
  /** Ids only used to sort both sides, rows then paired by position; no check (nyc-taxi). */
  "sort-only",
]);

export const GraderSpecSchema = z.discriminatedUnion("kind", [
  /** One probability column scored with ROC AUC; values must lie in [0,1] (lite-grading §2.3). */
  z.strictObject({ kind: z.literal("binary-auc"), id: name, target: name, rounding, note }),
  /** Mean of per-column ROC AUCs. */
  z.strictObject({
    kind: z.literal("column-auc"),
    id: name,
    targets: names,
    /** superset: extra columns ignored; exact: the column set must be exactly id + targets. */
    columns: z.enum(["superset", "exact"]).default("superset"),
    /** Require every target value to lie in [0,1]. */
    range: z.boolean().default(true),
    /** by-name: target k scored against answers' target k; by-position: the submission's non-id columns in its own order (jigsaw). */
    pairing: z.enum(["by-name", "by-position"]).default("by-name"),
    /** Drop answer rows whose targets sum below 0 (Kaggle's unscored rows marked -1). */
    skipNegativeRows: z.boolean().default(false),
    /** reject: ids must match exactly; allow: duplicated submission ids are paired by sorted position (jigsaw). */
    duplicateIds: z.enum(["reject", "allow"]).default("reject"),
    rounding,
    note,
  }),
  /** Root mean squared error of one column. */
  z.strictObject({
    kind: z.literal("rmse"),
    id: name,
    target: name,
    ids: IdRule.default("match"),
    rounding,
    note,
  }),
  /** Mean of per-column RMSLEs, rows paired in file order (ids ignored). */
  z.strictObject({ kind: z.literal("column-rmsle"), targets: names, rounding, note }),
  /** Multi-class log loss over one-hot answer columns; rows must sum to 1 ± tolerance and lie in [0,1]. */
  z.strictObject({
    kind: z.literal("multiclass-logloss"),
    id: name,
    classes: names,
    /** superset: extras ignored; exact: column set exactly id + classes; exact-count: exactly 1+K columns, probability checks by position (id first). */
    columns: z.enum(["superset", "exact", "exact-count"]).default("superset"),
    /** numpy isclose(sum, 1, atol=1e-6) with rtol 1e-5 ⇒ 1.1e-5. */
    rowSumTolerance: z.number().nonnegative().default(1.1e-5),
    rounding,
    note,
  }),
  /** Binary log loss of P(label = 1); ids compared as sets, values in [0,1]. */
  z.strictObject({ kind: z.literal("binary-logloss"), id: name, target: name, rounding, note }),
  /** Fraction of rows equal to the answer. value: pandas/sklearn comparison; string: both sides as pandas astype(str). */
  z.strictObject({
    kind: z.literal("accuracy"),
    id: name,
    target: name,
    compare: z.enum(["value", "string"]).default("value"),
    rounding,
    note,
  }),
  /** Quadratic weighted kappa over integral labels; ids compared as sets. */
  z.strictObject({ kind: z.literal("qwk"), id: name, target: name, rounding, note }),
]);

export type GraderSpec = z.output<typeof GraderSpecSchema>;

/** Upstream's metric return type decides the rounding: scikit-learn AUC, kappa and accuracy return numpy floats. */
export function roundingOf(spec: GraderSpec): "python" | "numpy" {
  if (spec.rounding) return spec.rounding;
  return spec.kind === "binary-auc" ||
    spec.kind === "column-auc" ||
    spec.kind === "qwk" ||
    spec.kind === "accuracy"
    ? "numpy"
    : "python";
}

export function parseGraderSpec(raw: unknown, source = "grader.json"): GraderSpec {
  const parsed = GraderSpecSchema.safeParse(raw);
  if (!parsed.success) throw new Error(formatZodError(parsed.error, source));
  return parsed.data;
}

/** Reads <competitionDir>/grader.json; null when the file is absent. */
export function loadGraderSpec(competitionDir: string): GraderSpec | null {
  const file = join(competitionDir, "grader.json");
  if (!existsSync(file)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`${file}: not valid JSON (${(e as Error).message})`);
  }
  return parseGraderSpec(raw, file);
}
