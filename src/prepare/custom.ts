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
import { pyFloat, quoteCell, renderCell } from "./csv.js";
import { dumpPyJson, field, parsePyJson, type PyJson } from "./pyjson.js";
import { permutation, trainTestSplit } from "./numpy-random.js";
import { CsvWriter, RecordReader, scanTable } from "./table-file.js";
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

/** Python's round() for k + 0.5 ties: to even. */
function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  return d > 0.5 || (d === 0.5 && f % 2 === 1) ? f + 1 : f;
}

/** Lines as Python's str.splitlines() gives them (the line breaks a text file can hold). */
function lines(file: string): string[] {
  // eslint-disable-next-line no-control-regex -- these control characters are line breaks for Python
  const parts = readFileSync(file, "utf8").split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (parts.at(-1) === "") parts.pop();
  return parts;
}

/**
 * mlsp-2013-birds (§2.10): the labelled recordings (fold 0) renumbered 0..n−1, a fifth of them
 * (DataFrame.sample(frac=0.2, random_state=0)) become the new test set; text files filtered.
 */
async function mlspBirds(rawDir: string, outDir: string): Promise<void> {
  await extractZip(need(join(rawDir, "mlsp_contest_dataset.zip")), rawDir);
  const src = (...p: string[]) => join(rawDir, "mlsp_contest_dataset", ...p);
  const pub = (...p: string[]) => join(outDir, "public", ...p);
  for (const d of [
    "essential_data/src_wavs",
    ...["filtered_spectrograms", "segmentation_examples", "spectrograms", "supervised_segmentation"].map(
      (x) => `supplemental_data/${x}`,
    ),
  ]) {
    mkdirSync(pub(d), { recursive: true });
  }
  mkdirSync(join(outDir, "private"), { recursive: true });

  // Fold 0 recordings, in file order; sample(frac=0.2) = a prefix of permutation(n).
  const folds = await scanTable(need(src("essential_data", "CVfolds_2.txt")));
  const foldsReader = new RecordReader(folds);
  const kept: string[] = [];
  for (let i = 0; i < folds.n; i++) {
    const [recId, fold] = foldsReader.cells(i);
    if (Number(fold) === 0) kept.push(recId);
  }
  foldsReader.close();
  const isTest = new Uint8Array(kept.length);
  for (const p of permutation(kept.length, 0).subarray(0, roundHalfEven(0.2 * kept.length))) isTest[p] = 1;
  const newId = new Map(kept.map((old, k) => [Number(old), k]));
  writeFileSync(
    pub("essential_data", "CVfolds_2.txt"),
    ["rec_id,fold", ...kept.map((_, k) => `${k},${isTest[k]}`)].join("\n") + "\n",
  );

  // rec_id2filename: kept rows in file order, renumbered (a pandas round trip).
  const names = await scanTable(need(src("essential_data", "rec_id2filename.txt")));
  const namesReader = new RecordReader(names);
  const idCol = names.header.indexOf("rec_id");
  const fileCol = names.header.indexOf("filename");
  if (idCol < 0 || fileCol < 0) throw new Error("rec_id2filename.txt needs rec_id and filename columns");
  const filenames: string[] = [];
  const w = new CsvWriter(pub("essential_data", "rec_id2filename.txt"), names.header);
  for (let i = 0; i < names.n; i++) {
    const raw = namesReader.cells(i);
    const id = newId.get(Number(raw[idCol]));
    if (id === undefined) continue;
    const out = raw.map((v, k) => (k === idCol ? String(id) : renderCell(v, names.types[k])));
    filenames.push(raw[fileCol]);
    w.row(out);
  }
  w.close();
  namesReader.close();

  // Labels: public file with "?" for the new test recordings; answers per (recording, species).
  const labelled = lines(need(src("essential_data", "rec_labels_test_hidden.txt")))
    .slice(1)
    .map((line) => {
      const [id, ...rest] = line.split(",");
      return { id: newId.get(Number(id)), labels: rest.join(",") };
    })
    .filter((x): x is { id: number; labels: string } => x.id !== undefined);
  const pubLabels = ["rec_id,[labels]"];
  const answers = ["Id,Probability"];
  for (const { id, labels } of labelled) {
    const shown = isTest[id] ? "?" : labels;
    pubLabels.push(shown === "" ? `${id}` : `${id},${shown}`);
    if (!isTest[id]) continue;
    const species = new Set(
      labels
        .split(",")
        .filter((x) => x !== "")
        .map(Number),
    );
    for (let sp = 0; sp < 19; sp++) answers.push(`${id * 100 + sp},${species.has(sp) ? 1 : 0}`);
  }
  writeFileSync(pub("essential_data", "rec_labels_test_hidden.txt"), pubLabels.join("\n") + "\n");
  writeFileSync(join(outDir, "private", "answers.csv"), answers.join("\n") + "\n");
  const sample = ["Id,Probability"];
  kept.forEach((_, k) => {
    if (isTest[k]) for (let sp = 0; sp < 19; sp++) sample.push(`${k * 100 + sp},0`);
  });
  writeFileSync(pub("sample_submission.csv"), sample.join("\n") + "\n");

  // Copies for every kept recording, and the filtered supplemental text files.
  copyFileSync(need(src("essential_data", "species_list.txt")), pub("essential_data", "species_list.txt"));
  for (const f of filenames) {
    copyFileSync(
      need(src("essential_data", "src_wavs", `${f}.wav`)),
      pub("essential_data", "src_wavs", `${f}.wav`),
    );
    for (const d of [
      "filtered_spectrograms",
      "segmentation_examples",
      "spectrograms",
      "supervised_segmentation",
    ]) {
      const from = src("supplemental_data", d, `${f}.bmp`);
      if (d === "segmentation_examples" && !existsSync(from)) continue;
      copyFileSync(need(from), pub("supplemental_data", d, `${f}.bmp`));
    }
  }
  for (const f of ["segment_clusters.bmp", "segment_mosaic.bmp"]) {
    copyFileSync(need(src("supplemental_data", f)), pub("supplemental_data", f));
  }
  for (const f of ["histogram_of_segments.txt", "segment_features.txt", "segment_rectangles.txt"]) {
    const out = ["rec_id,[histogram of segment features]"];
    for (const line of lines(need(src("supplemental_data", f))).slice(1)) {
      const [id, ...rest] = line.split(",");
      const n = newId.get(Number(id));
      if (n !== undefined) out.push(`${n},${rest.join(",")}`);
    }
    writeFileSync(pub("supplemental_data", f), out.join("\n") + "\n");
  }
}

export const CUSTOM_PREPARERS: Record<string, CustomPreparer> = {
  "mlsp-2013-birds": mlspBirds,
  "denoising-dirty-documents": denoisingDirtyDocuments,
  "dogs-vs-cats": dogsVsCats,
  whale,
  "random-acts-of-pizza": randomActsOfPizza,
};
