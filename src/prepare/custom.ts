import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { PNG } from "pngjs";
import yazl from "yazl";
import { pyFloat, quoteCell } from "./csv.js";
import { dumpPyJson, field, parsePyJson, type PyJson } from "./pyjson.js";
import { trainTestSplit } from "./numpy-random.js";
import { CsvWriter } from "./table-file.js";
import { extractZip, zipFiles, zipFolder } from "./zip.js";

/**
 * Preparers for lite competitions whose raw data is a file listing rather than a table, too
 * particular for a declarative recipe. Each follows lite-prepare.md §2 for its competition.
 */
export type CustomPreparer = (rawDir: string, outDir: string) => Promise<void>;

function need(file: string): string {
  if (!existsSync(file)) throw new Error(`${file} not found in the Kaggle download`);
  return file;
}

function codePointSort(names: string[]): string[] {
  return names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** dogs-vs-cats-redux-kernels-edition (§2.6): split of the sorted image list, renamed. */
async function dogsVsCats(rawDir: string, outDir: string): Promise<void> {
  await extractZip(need(join(rawDir, "train.zip")), rawDir);
  const files = codePointSort(readdirSync(join(rawDir, "train")).filter((f) => f.endsWith(".jpg")));
  const { train, test } = trainTestSplit(files.length, 0.1, 0);
  const pub = (...p: string[]) => join(outDir, "public", ...p);
  mkdirSync(pub("train"), { recursive: true });
  mkdirSync(pub("test"), { recursive: true });
  let cats = 0;
  let dogs = 0;
  for (const i of train) {
    const name = files[i];
    const renamed = name.includes("cat") ? `cat.${cats++}.jpg` : `dog.${dogs++}.jpg`;
    copyFileSync(join(rawDir, "train", name), pub("train", renamed));
  }
  const answers = ["id,label"];
  const sample = ["id,label"];
  test.forEach((i, k) => {
    copyFileSync(join(rawDir, "train", files[i]), pub("test", `${k + 1}.jpg`));
    answers.push(`${k + 1},${files[i].includes("dog") ? 1 : 0}`);
    sample.push(`${k + 1},${pyFloat(0.5)}`);
  });
  await zipFolder(pub("train"), pub("train.zip"));
  await zipFolder(pub("test"), pub("test.zip"));
  writeFileSync(pub("sample_submission.csv"), sample.join("\n") + "\n");
  mkdirSync(join(outDir, "private"), { recursive: true });
  writeFileSync(join(outDir, "private", "answers.csv"), answers.join("\n") + "\n");
}

/** A zip with a folder entry `dir/` and `dir/<name>` entries, like shutil.make_archive. */
async function zipWithFolder(files: [string, string][], dir: string, zipFile: string): Promise<void> {
  const z = new yazl.ZipFile();
  z.addEmptyDirectory(`${dir}/`);
  for (const [path, name] of files) z.addFile(path, `${dir}/${name}`, { compress: true });
  const done = pipeline(z.outputStream, createWriteStream(zipFile));
  z.end();
  await done;
}

/** the-icml-2013-whale-challenge-right-whale-redux (§2.22): split by recording date, renamed. */
async function whale(rawDir: string, outDir: string): Promise<void> {
  await extractZip(need(join(rawDir, "train2.zip")), rawDir);
  const clips = codePointSort(readdirSync(join(rawDir, "train2")).filter((f) => f.endsWith(".aif")));
  const dates = codePointSort([...new Set(clips.map((c) => c.split("_")[0]))]);
  if (dates.length !== 4) throw new Error(`expected clips from 4 dates in train2/, found ${dates.length}`);
  const train = clips.filter((c) => dates.indexOf(c.split("_")[0]) < 2);
  const test = clips.filter((c) => dates.indexOf(c.split("_")[0]) >= 2);
  const trainNames = train.map((c, i) => {
    if (!/TRAIN\d+/.test(c)) throw new Error(`unexpected clip name ${c}`);
    return c.replace(/TRAIN\d+/, `TRAIN${i}`);
  });
  const testNames = test.map((c, i) => `${c.slice(0, c.indexOf("TRAIN"))}Test${i}.aif`);
  const pub = (...p: string[]) => join(outDir, "public", ...p);
  mkdirSync(pub(), { recursive: true });
  await zipWithFolder(
    train.map((c, i) => [join(rawDir, "train2", c), trainNames[i]]),
    "train2",
    pub("train2.zip"),
  );
  await zipWithFolder(
    test.map((c, i) => [join(rawDir, "train2", c), testNames[i]]),
    "test2",
    pub("test2.zip"),
  );
  writeFileSync(
    pub("sampleSubmission.csv"),
    ["clip,probability", ...testNames.map((n) => `${n},0`)].join("\n") + "\n",
  );
  const answers = test.map((c, i) => `${testNames[i]},${c.replace(/\.aif$/, "").endsWith("_1") ? 1 : 0}`);
  mkdirSync(join(outDir, "private"), { recursive: true });
  writeFileSync(join(outDir, "private", "test.csv"), ["clip,probability", ...answers].join("\n") + "\n");
}

/** random-acts-of-pizza (§2.14): split of the JSON request list; test records keep Kaggle's test fields. */
async function randomActsOfPizza(rawDir: string, outDir: string): Promise<void> {
  const train = parsePyJson(readFileSync(need(join(rawDir, "train.json")), "utf8"));
  const kaggleTest = parsePyJson(readFileSync(need(join(rawDir, "test.json")), "utf8"));
  if (train.t !== "arr" || kaggleTest.t !== "arr" || kaggleTest.v[0]?.t !== "obj") {
    throw new Error("train.json and test.json must be lists of request objects");
  }
  const testKeys = kaggleTest.v[0].v.map(([k]) => k);
  const records = train.v;
  const { train: trainIdx, test: testIdx } = trainTestSplit(
    records.length,
    kaggleTest.v.length / (records.length + kaggleTest.v.length),
    0,
  );
  const pub = (...p: string[]) => join(outDir, "public", ...p);
  mkdirSync(pub(), { recursive: true });
  const newTrain: PyJson = { t: "arr", v: [...trainIdx].map((i) => records[i]) };
  const newTest: PyJson = {
    t: "arr",
    v: [...testIdx].map((i) => ({
      t: "obj",
      v: testKeys.map((k): [string, PyJson] => {
        const x = field(records[i], k);
        if (x === undefined) throw new Error(`train.json record ${i} lacks the test field "${k}"`);
        return [k, x];
      }),
    })),
  };
  writeFileSync(pub("train.json"), dumpPyJson(newTrain));
  writeFileSync(pub("test.json"), dumpPyJson(newTest));
  await zipFiles([pub("train.json")], pub("train.zip"));
  await zipFiles([pub("test.json")], pub("test.zip"));
  const ids = [...testIdx].map((i) => {
    const id = field(records[i], "request_id");
    if (id?.t !== "str") throw new Error(`train.json record ${i} has no request_id`);
    return id.v;
  });
  const labels = [...testIdx].map((i) => {
    const got = field(records[i], "requester_received_pizza");
    return got?.t === "lit" && got.v === "true" ? 1 : 0;
  });
  const header = "request_id,requester_received_pizza";
  writeFileSync(
    pub("sampleSubmission.csv"),
    [header, ...ids.map((id) => `${quoteCell(id)},0`)].join("\n") + "\n",
  );
  mkdirSync(join(outDir, "private"), { recursive: true });
  const answers = ids.map((id, k) => `${quoteCell(id)},${labels[k]}`);
  writeFileSync(join(outDir, "private", "test.csv"), [header, ...answers].join("\n") + "\n");
}

/** Pillow's convert("L") of a decoded PNG: grey values row-major (ITU-R 601-2 luma for colour). */
export function pngGrey(file: string): { width: number; height: number; grey: Uint8Array } {
  const png = PNG.sync.read(readFileSync(file));
  if (png.depth === 16) throw new Error(`${file}: 16-bit PNGs are not supported`);
  const { width, height, data } = png;
  const grey = new Uint8Array(width * height);
  for (let p = 0; p < width * height; p++) {
    const [r, g, b] = [data[4 * p], data[4 * p + 1], data[4 * p + 2]];
    grey[p] = png.color || png.palette ? (r * 19595 + g * 38470 + b * 7471 + 0x8000) >>> 16 : r;
  }
  return { width, height, grey };
}

/** denoising-dirty-documents (§2.3): split of the sorted image list; answers are the cleaned pixels. */
async function denoisingDirtyDocuments(rawDir: string, outDir: string): Promise<void> {
  const pub = (...p: string[]) => join(outDir, "public", ...p);
  const priv = (...p: string[]) => join(outDir, "private", ...p);
  await extractZip(need(join(rawDir, "train.zip")), pub());
  const images = codePointSort(readdirSync(pub("train")).filter((f) => f.endsWith(".png")));
  const { test } = trainTestSplit(images.length, 0.2, 0);
  const testNames = [...test].map((i) => images[i]);
  mkdirSync(pub("test"), { recursive: true });
  for (const name of testNames) renameSync(pub("train", name), pub("test", name));
  await extractZip(need(join(rawDir, "train_cleaned.zip")), pub());
  mkdirSync(priv("train_cleaned"), { recursive: true });
  for (const name of testNames) renameSync(pub("train_cleaned", name), priv("train_cleaned", name));
  const answers = new CsvWriter(priv("answers.csv"), ["id", "value"]);
  const sample = new CsvWriter(pub("sampleSubmission.csv"), ["id", "value"]);
  try {
    for (const name of codePointSort(readdirSync(priv("train_cleaned")))) {
      const { width, height, grey } = pngGrey(priv("train_cleaned", name));
      const stem = name.replace(/\.[^.]*$/, "");
      const values = Array.from({ length: 256 }, (_, v) => pyFloat(v / 255));
      for (let r = 0; r < height; r++) {
        for (let c = 0; c < width; c++) {
          const id = `${stem}_${r + 1}_${c + 1}`;
          answers.row([id, values[grey[r * width + c]]]);
          sample.row([id, "1"]);
        }
      }
    }
  } finally {
    answers.close();
    sample.close();
  }
  rmSync(priv("train_cleaned"), { recursive: true, force: true });
}

export const CUSTOM_PREPARERS: Record<string, CustomPreparer> = {
  "denoising-dirty-documents": denoisingDirtyDocuments,
  "dogs-vs-cats": dogsVsCats,
  whale,
  "random-acts-of-pizza": randomActsOfPizza,
};
