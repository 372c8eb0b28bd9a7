import { insidePath } from "./paths.js";
import { z } from "zod";

/**
 * A declarative preparation recipe: how a Kaggle download (extracted into raw/) becomes
 * prepared/public and prepared/private, the way upstream MLE-bench's prepare.py does it.
 * Paths in `to` start with "public/" or "private/". Placeholders `{col}` stand for a row's raw
 * value of column col, `{=col}` for its value after renumbering.
 */

const md5 = z.string().regex(/^[0-9a-f]{32}$/);
const part = z.enum(["train", "test"]);
const outPath = insidePath.pipe(
  z.string().regex(/^(public|private)\/[^]+$/, 'expected a path starting with "public/" or "private/"'),
);

/**
 * Rows of one part, with all columns, a subset (`columns`, which may name `computed` columns) or
 * all but some (`drop`); `rename` changes header names. `quoting: "nonnumeric"` is pandas'
 * QUOTE_NONNUMERIC (every text cell quoted, missing text as ""); `zip` stores the CSV alone in
 * `<to>.zip` (no compression) instead.
 */
const RowsOutput = z.strictObject({
  kind: z.literal("rows"),
  to: outPath,
  part,
  columns: z.array(z.string()).optional(),
  drop: z.array(z.string()).optional(),
  rename: z.record(z.string(), z.string()).optional(),
  quoting: z.enum(["minimal", "nonnumeric"]).default("minimal"),
  zip: z.boolean().default(false),
});

/** The part's key columns plus constant columns; values are written verbatim (pre-rendered). */
const ConstantOutput = z.strictObject({
  kind: z.literal("constant"),
  to: outPath,
  part,
  keep: z.array(z.string()).min(1),
  values: z.record(z.string(), z.string()),
});

/** One column per class (sorted labels of the whole table unless listed): 0/1, or a constant. */
const OneHotOutput = z.strictObject({
  kind: z.literal("one-hot"),
  to: outPath,
  part,
  id: z.string(),
  label: z.string(),
  classes: z.array(z.string()).optional(),
  constant: z.string().optional(),
});

/** Rows of another raw table whose `key` belongs to a part, in file order. */
const FilterOutput = z.strictObject({
  kind: z.literal("filter"),
  from: insidePath,
  to: outPath,
  part,
  key: z.string(),
});

export const RecipeOutputSchema = z.discriminatedUnion("kind", [
  RowsOutput,
  ConstantOutput,
  OneHotOutput,
  FilterOutput,
]);

/** New ids in output order: prefix + (start, start+1, …); "after-train" continues the train ids. */
const Numbering = z.strictObject({
  start: z.union([z.number().int(), z.literal("after-train")]),
  prefix: z.string().optional(),
});
/** dense: each distinct value gets the next number, in order of first appearance within the part. */
const Renumber = z.strictObject({
  column: z.string(),
  dense: z.boolean().default(false),
  train: Numbering,
  test: Numbering,
});

export const TableSplitRecipeSchema = z.strictObject({
  kind: z.literal("table-split"),
  /** Inner archives of raw/ to extract first (into raw/, or into raw/<into>). */
  extract: z.array(z.strictObject({ archive: insidePath, into: insidePath.optional() })).default([]),
  /** The labelled table in raw/ that is split. */
  table: insidePath,
  /** A fraction (ceil(t·n) test rows, as scikit-learn) or a row count. */
  testSize: z.number().positive().optional(),
  /** Or the fraction k / (n + k), k = the number of raw files in `dir` whose names end in `suffix`. */
  testSizeFromFiles: z.strictObject({ dir: insidePath, suffix: z.string() }).optional(),
  /** Or no randomness: the test rows are those whose `column` is among the values of a bytes
   *  feature stored in these TFRecord files; rows keep file order. */
  testMembers: z
    .strictObject({ tfrecords: z.array(insidePath).min(1), feature: z.string(), column: z.string() })
    .optional(),
  /** Copy <dir>/train*.tfrec (sorted) to `to`, renumbered: the `test` files as testNN-<count>, the others as trainNN-<count>. */
  renameTfrecords: z.strictObject({ dir: insidePath, test: z.array(z.string()), to: outPath }).optional(),
  randomState: z.number().int().min(0).default(0),
  /** Row order of the written parts: permutation order (train_test_split) or raw file order. */
  order: z.enum(["permutation", "file"]).default("permutation"),
  /** Split the distinct values of this column (in order of first appearance) instead of the rows. */
  groupBy: z.string().optional(),
  renumber: Renumber.optional(),
  /** Text columns made from templates over a row's values, usable in `rows` outputs. */
  computed: z.record(z.string(), z.string()).default({}),
  outputs: z.array(RecipeOutputSchema).min(1),
  /** Per-row file copies, e.g. images: from raw/<from> to <to>. */
  copies: z.array(z.strictObject({ part, from: insidePath, to: outPath })).default([]),
  /** Whole raw files copied unchanged. */
  files: z.array(z.strictObject({ from: insidePath, to: outPath })).default([]),
  /** Folders zipped into an archive of bare file names, the folder then removed. */
  archives: z.array(z.strictObject({ dir: outPath, to: outPath })).default([]),
  /** Empty folders to create. */
  dirs: z.array(outPath).default([]),
});

/** One whole raw table re-rendered (or copied byte for byte), with optional column choices. */
const TableOutput = z.strictObject({
  from: insidePath,
  to: outPath,
  /** Byte copy instead of a pandas read/write round trip. */
  copy: z.boolean().default(false),
  columns: z.array(z.string()).optional(),
  /** Constant values for (existing or new) columns, written verbatim. */
  set: z.record(z.string(), z.string()).optional(),
});

/** Recipes without a split (Kaggle's test labels were published): whole tables re-rendered. */
export const TablesRecipeSchema = z.strictObject({
  kind: z.literal("tables"),
  extract: z.array(z.strictObject({ archive: insidePath, into: insidePath.optional() })).default([]),
  outputs: z.array(TableOutput).min(1),
});

/** A preparer written in code (src/prepare/custom.ts) for raw data that is a file listing. */
export const CustomRecipeSchema = z.strictObject({
  kind: z.literal("custom"),
  preparer: z.string(),
});

/** Preparation facts for a competition; `split` absent means no native recipe (use `mlebench prepare`). */
export const RecipeSchema = z.strictObject({
  /** MD5 of Kaggle's zip as pinned upstream (checksums.yaml `zip`). */
  zipMd5: md5.optional(),
  /** MD5 of upstream's description.md, which becomes public/description.md. */
  descriptionMd5: md5.optional(),
  /** MD5 of the prepared CSV/JSON files upstream (checksums.yaml public/private). */
  checksums: z
    .strictObject({ public: z.record(z.string(), md5), private: z.record(z.string(), md5) })
    .optional(),
  split: z
    .discriminatedUnion("kind", [TableSplitRecipeSchema, TablesRecipeSchema, CustomRecipeSchema])
    .refine(
      (r) =>
        r.kind !== "table-split" ||
        [r.testSize, r.testSizeFromFiles, r.testMembers].filter((x) => x !== undefined).length === 1,
      { message: "give exactly one of testSize, testSizeFromFiles and testMembers" },
    )
    .optional(),
  /** Why there is no native recipe, when there is none. */
  note: z.string().optional(),
});

export type TableSplitRecipe = z.output<typeof TableSplitRecipeSchema>;
export type TablesRecipe = z.output<typeof TablesRecipeSchema>;
export type RecipeOutput = z.output<typeof RecipeOutputSchema>;
