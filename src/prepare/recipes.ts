import type { z } from "zod";
import type {
  CustomRecipeSchema,
  TableSplitRecipeSchema,
  TablesRecipeSchema,
} from "../registry/recipe-schema.js";

type SplitInput =
  | z.input<typeof TableSplitRecipeSchema>
  | z.input<typeof TablesRecipeSchema>
  | z.input<typeof CustomRecipeSchema>;

/**
 * Native preparation recipes for the lite competitions with tabular raw data, written from
 * ../shared/mlebench/lite-prepare.md §2 (upstream's prepare.py, one competition each).
 * scripts/gen-registry.ts copies them into competitions/<id>/competition.json.
 */
export const SPLIT_RECIPES: Record<string, SplitInput> = {
  "aerial-cactus-identification": {
    kind: "table-split",
    extract: [{ archive: "train.zip" }],
    table: "train.csv",
    testSize: 0.19,
    outputs: [
      { kind: "rows", to: "public/train.csv", part: "train" },
      {
        kind: "constant",
        to: "public/sample_submission.csv",
        part: "test",
        keep: ["id"],
        values: { has_cactus: "0.5" },
      },
      { kind: "rows", to: "private/test.csv", part: "test" },
    ],
    copies: [
      { part: "train", from: "train/{id}", to: "public/train/{id}" },
      { part: "test", from: "train/{id}", to: "public/test/{id}" },
    ],
    archives: [
      { dir: "public/train", to: "public/train.zip" },
      { dir: "public/test", to: "public/test.zip" },
    ],
  },
  "aptos2019-blindness-detection": {
    kind: "table-split",
    table: "train.csv",
    testSize: 0.1,
    outputs: [
      { kind: "rows", to: "public/train.csv", part: "train" },
      { kind: "rows", to: "public/test.csv", part: "test", columns: ["id_code"] },
      {
        kind: "constant",
        to: "public/sample_submission.csv",
        part: "test",
        keep: ["id_code"],
        values: { diagnosis: "0" },
      },
      { kind: "rows", to: "private/test.csv", part: "test" },
    ],
    copies: [
      { part: "train", from: "train_images/{id_code}.png", to: "public/train_images/{id_code}.png" },
      { part: "test", from: "train_images/{id_code}.png", to: "public/test_images/{id_code}.png" },
    ],
  },
  "detecting-insults-in-social-commentary": {
    kind: "tables",
    outputs: [
      { from: "train.csv", to: "public/train.csv", copy: true },
      { from: "test_with_solutions.csv", to: "public/test.csv", columns: ["Date", "Comment"] },
      {
        from: "test_with_solutions.csv",
        to: "public/sample_submission_null.csv",
        columns: ["Insult", "Date", "Comment"],
        set: { Insult: "0" },
      },
      { from: "test_with_solutions.csv", to: "private/test.csv", copy: true },
      {
        from: "test_with_solutions.csv",
        to: "private/gold_submission.csv",
        columns: ["Insult", "Date", "Comment"],
      },
    ],
  },
  "dog-breed-identification": {
    kind: "table-split",
    table: "labels.csv",
    testSize: 0.1,
    outputs: [
      { kind: "rows", to: "public/labels.csv", part: "train" },
      {
        kind: "one-hot",
        to: "public/sample_submission.csv",
        part: "test",
        id: "id",
        label: "breed",
        constant: "0.008333333333333333",
      },
      { kind: "one-hot", to: "private/test.csv", part: "test", id: "id", label: "breed" },
    ],
    copies: [
      { part: "train", from: "train/{id}.jpg", to: "public/train/{id}.jpg" },
      { part: "test", from: "train/{id}.jpg", to: "public/test/{id}.jpg" },
    ],
  },
  "histopathologic-cancer-detection": {
    kind: "table-split",
    table: "train_labels.csv",
    testSizeFromFiles: { dir: "test", suffix: ".tif" },
    order: "file",
    outputs: [
      { kind: "rows", to: "public/train_labels.csv", part: "train" },
      {
        kind: "constant",
        to: "public/sample_submission.csv",
        part: "test",
        keep: ["id"],
        values: { label: "0" },
      },
      { kind: "rows", to: "private/answers.csv", part: "test" },
    ],
    copies: [
      { part: "train", from: "train/{id}.tif", to: "public/train/{id}.tif" },
      { part: "test", from: "train/{id}.tif", to: "public/test/{id}.tif" },
    ],
  },
  "jigsaw-toxic-comment-classification-challenge": {
    kind: "tables",
    extract: [
      { archive: "train.csv.zip" },
      { archive: "test.csv.zip" },
      { archive: "test_labels.csv.zip" },
      { archive: "sample_submission.csv.zip" },
    ],
    outputs: [
      { from: "train.csv", to: "public/train.csv" },
      { from: "test.csv", to: "public/test.csv" },
      {
        from: "sample_submission.csv",
        to: "public/sample_submission.csv",
        set: Object.fromEntries(
          ["toxic", "severe_toxic", "obscene", "threat", "insult", "identity_hate"].map((c) => [c, "0.5"]),
        ),
      },
      { from: "test_labels.csv", to: "private/test.csv" },
    ],
  },
  "leaf-classification": {
    kind: "table-split",
    extract: [{ archive: "train.csv.zip" }, { archive: "images.zip" }],
    table: "train.csv",
    testSize: 0.1,
    outputs: [
      { kind: "rows", to: "public/train.csv", part: "train" },
      { kind: "rows", to: "public/test.csv", part: "test", drop: ["species"] },
      {
        kind: "one-hot",
        to: "public/sample_submission.csv",
        part: "test",
        id: "id",
        label: "species",
        constant: "0.010101010101010102",
      },
      { kind: "one-hot", to: "private/test.csv", part: "test", id: "id", label: "species" },
    ],
    copies: [
      { part: "train", from: "images/{id}.jpg", to: "public/images/{id}.jpg" },
      { part: "test", from: "images/{id}.jpg", to: "public/images/{id}.jpg" },
    ],
    dirs: ["private/images"],
  },
  "new-york-city-taxi-fare-prediction": {
    kind: "table-split",
    table: "train.csv",
    testSize: 9914,
    outputs: [
      { kind: "rows", to: "public/labels.csv", part: "train" },
      { kind: "rows", to: "public/test.csv", part: "test", drop: ["fare_amount"] },
      {
        kind: "constant",
        to: "public/sample_submission.csv",
        part: "test",
        keep: ["key"],
        values: { fare_amount: "11.35" },
      },
      { kind: "rows", to: "private/test.csv", part: "test" },
    ],
    files: [{ from: "GCP-Coupons-Instructions.rtf", to: "public/GCP-Coupons-Instructions.rtf" }],
  },
  "nomad2018-predict-transparent-conductors": {
    kind: "table-split",
    extract: [
      { archive: "train.csv.zip", into: "train.csv" },
      { archive: "train.zip", into: "train" },
    ],
    table: "train.csv/train.csv",
    testSize: 0.1,
    renumber: { column: "id", train: { start: 1 }, test: { start: 1 } },
    outputs: [
      { kind: "rows", to: "public/train.csv", part: "train" },
      {
        kind: "rows",
        to: "public/test.csv",
        part: "test",
        drop: ["formation_energy_ev_natom", "bandgap_energy_ev"],
      },
      {
        kind: "constant",
        to: "public/sample_submission.csv",
        part: "test",
        keep: ["id"],
        values: { formation_energy_ev_natom: "0.1779", bandgap_energy_ev: "1.8892" },
      },
      { kind: "rows", to: "private/test.csv", part: "test" },
    ],
    copies: [
      { part: "train", from: "train/train/{id}/geometry.xyz", to: "public/train/{=id}/geometry.xyz" },
      { part: "test", from: "train/train/{id}/geometry.xyz", to: "public/test/{=id}/geometry.xyz" },
    ],
  },
  "plant-pathology-2020-fgvc7": {
    kind: "table-split",
    table: "train.csv",
    testSize: 0.1,
    renumber: {
      column: "image_id",
      train: { start: 0, prefix: "Train_" },
      test: { start: 0, prefix: "Test_" },
    },
    outputs: [
      { kind: "rows", to: "public/train.csv", part: "train" },
      { kind: "rows", to: "public/test.csv", part: "test", columns: ["image_id"] },
      {
        kind: "constant",
        to: "public/sample_submission.csv",
        part: "test",
        keep: ["image_id"],
        values: { healthy: "0.25", multiple_diseases: "0.25", rust: "0.25", scab: "0.25" },
      },
      { kind: "rows", to: "private/test.csv", part: "test" },
    ],
    copies: [
      { part: "train", from: "images/{image_id}.jpg", to: "public/images/{=image_id}.jpg" },
      { part: "test", from: "images/{image_id}.jpg", to: "public/images/{=image_id}.jpg" },
    ],
  },
  "ranzcr-clip-catheter-line-classification": {
    kind: "table-split",
    table: "train.csv",
    testSize: 0.1,
    outputs: [
      { kind: "rows", to: "public/train.csv", part: "train" },
      {
        kind: "filter",
        from: "train_annotations.csv",
        to: "public/train_annotations.csv",
        part: "train",
        key: "StudyInstanceUID",
      },
      {
        kind: "constant",
        to: "public/sample_submission.csv",
        part: "test",
        keep: ["StudyInstanceUID"],
        values: Object.fromEntries(
          [
            "ETT - Abnormal",
            "ETT - Borderline",
            "ETT - Normal",
            "NGT - Abnormal",
            "NGT - Borderline",
            "NGT - Incompletely Imaged",
            "NGT - Normal",
            "CVC - Abnormal",
            "CVC - Borderline",
          ].map((c) => [c, "0"]),
        ),
      },
      { kind: "rows", to: "private/test.csv", part: "test" },
    ],
    copies: [
      { part: "train", from: "train/{StudyInstanceUID}.jpg", to: "public/train/{StudyInstanceUID}.jpg" },
      { part: "test", from: "train/{StudyInstanceUID}.jpg", to: "public/test/{StudyInstanceUID}.jpg" },
    ],
  },
  "siim-isic-melanoma-classification": {
    kind: "table-split",
    table: "train.csv",
    // No randomness: the new test set is the images stored in two of the 16 training TFRecord files.
    testMembers: {
      tfrecords: ["tfrecords/train00-2071.tfrec", "tfrecords/train06-2071.tfrec"],
      feature: "image_name",
      column: "image_name",
    },
    order: "file",
    outputs: [
      { kind: "rows", to: "public/train.csv", part: "train" },
      {
        kind: "rows",
        to: "public/test.csv",
        part: "test",
        columns: ["image_name", "patient_id", "sex", "age_approx", "anatom_site_general_challenge"],
      },
      {
        kind: "constant",
        to: "public/sample_submission.csv",
        part: "test",
        keep: ["image_name"],
        values: { target: "0" },
      },
      { kind: "rows", to: "private/test.csv", part: "test", columns: ["image_name", "target"] },
    ],
    copies: [
      { part: "train", from: "train/{image_name}.dcm", to: "public/train/{image_name}.dcm" },
      { part: "train", from: "jpeg/train/{image_name}.jpg", to: "public/jpeg/train/{image_name}.jpg" },
      { part: "test", from: "train/{image_name}.dcm", to: "public/test/{image_name}.dcm" },
      { part: "test", from: "jpeg/train/{image_name}.jpg", to: "public/jpeg/test/{image_name}.jpg" },
    ],
    renameTfrecords: {
      dir: "tfrecords",
      test: ["train00-2071.tfrec", "train06-2071.tfrec"],
      to: "public/tfrecords",
    },
  },
  "spooky-author-identification": {
    kind: "table-split",
    extract: [{ archive: "train.zip" }],
    table: "train.csv",
    testSize: 0.1,
    outputs: [
      { kind: "rows", to: "public/train.csv", part: "train" },
      { kind: "rows", to: "public/test.csv", part: "test", columns: ["id", "text"] },
      {
        kind: "constant",
        to: "public/sample_submission.csv",
        part: "test",
        keep: ["id"],
        values: { EAP: "0.403493538995863", HPL: "0.287808366106543", MWS: "0.308698094897594" },
      },
      {
        kind: "one-hot",
        to: "private/test.csv",
        part: "test",
        id: "id",
        label: "author",
        classes: ["EAP", "HPL", "MWS"],
      },
    ],
  },
  "tabular-playground-series-dec-2021": {
    kind: "table-split",
    table: "train.csv",
    testSize: 0.1,
    outputs: [
      { kind: "rows", to: "public/train.csv", part: "train" },
      { kind: "rows", to: "public/test.csv", part: "test", drop: ["Cover_Type"] },
      {
        kind: "constant",
        to: "public/sample_submission.csv",
        part: "test",
        keep: ["Id"],
        values: { Cover_Type: "2" },
      },
      { kind: "rows", to: "private/test.csv", part: "test" },
    ],
  },
  "tabular-playground-series-may-2022": {
    kind: "table-split",
    table: "train.csv",
    testSize: 100000,
    renumber: { column: "id", train: { start: 0 }, test: { start: "after-train" } },
    outputs: [
      { kind: "rows", to: "public/train.csv", part: "train" },
      { kind: "rows", to: "public/test.csv", part: "test", drop: ["target"] },
      {
        kind: "constant",
        to: "public/sample_submission.csv",
        part: "test",
        keep: ["id"],
        values: { target: "0.5" },
      },
      { kind: "rows", to: "private/test.csv", part: "test" },
      { kind: "rows", to: "private/gold_submission.csv", part: "test", columns: ["id", "target"] },
    ],
  },
};

/** The two text-normalization competitions: a split of sentences, QUOTE_NONNUMERIC CSVs, stored zips. */
function textNormalization(lang: "en" | "ru"): SplitInput {
  const q = { quoting: "nonnumeric" } as const;
  const sample = { columns: ["id", "before"], rename: { before: "after" }, ...q };
  return {
    kind: "table-split",
    extract: [{ archive: `${lang}_train.csv.zip` }],
    table: `${lang}_train.csv`,
    testSize: 0.1,
    groupBy: "sentence_id",
    order: "file",
    renumber: { column: "sentence_id", dense: true, train: { start: 0 }, test: { start: 0 } },
    computed: { id: "{=sentence_id}_{=token_id}" },
    outputs: [
      { kind: "rows", to: "private/answers.csv", part: "test", columns: ["id", "after"], ...q },
      { kind: "rows", to: "private/sample_submission.csv", part: "test", ...sample },
      { kind: "rows", to: `public/${lang}_train.csv`, part: "train", ...q, zip: true },
      {
        kind: "rows",
        to: `public/${lang}_test_2.csv`,
        part: "test",
        columns: ["sentence_id", "token_id", "before"],
        ...q,
        zip: true,
      },
      { kind: "rows", to: `public/${lang}_sample_submission_2.csv`, part: "test", ...sample, zip: true },
    ],
  };
}

SPLIT_RECIPES["text-normalization-challenge-english-language"] = textNormalization("en");
SPLIT_RECIPES["text-normalization-challenge-russian-language"] = textNormalization("ru");
// File listings rather than tables: preparers in code (src/prepare/custom.ts).
SPLIT_RECIPES["dogs-vs-cats-redux-kernels-edition"] = { kind: "custom", preparer: "dogs-vs-cats" };
SPLIT_RECIPES["the-icml-2013-whale-challenge-right-whale-redux"] = { kind: "custom", preparer: "whale" };
SPLIT_RECIPES["random-acts-of-pizza"] = { kind: "custom", preparer: "random-acts-of-pizza" };
SPLIT_RECIPES["denoising-dirty-documents"] = { kind: "custom", preparer: "denoising-dirty-documents" };
SPLIT_RECIPES["mlsp-2013-birds"] = { kind: "custom", preparer: "mlsp-2013-birds" };
