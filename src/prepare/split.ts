import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { RecipeOutput, TableSplitRecipe } from "../registry/recipe-schema.js";
import { renderCell } from "./csv.js";
import { trainTestSplit, testCount } from "./numpy-random.js";
import { CsvWriter, RecordReader, scanTable } from "./table-file.js";
import { extractZip, zipFiles, zipFolder } from "./zip.js";
import { tfrecordFeature } from "./tfrecord.js";

type Part = "train" | "test";

/** Row indices of each part, in the order they are written. */
export function splitIndices(
  n: number,
  testSize: number,
  recipe: Pick<TableSplitRecipe, "randomState" | "order">,
) {
  const { train, test } = trainTestSplit(n, testSize, recipe.randomState);
  if (recipe.order === "file")
    return { train: Uint32Array.from(train).sort(), test: Uint32Array.from(test).sort() };
  return { train, test };
}

/**
 * Runs a table-split recipe: raw/ (the extracted Kaggle zip) → out/public, out/private.
 * Mirrors upstream's prepare.py for the competition (lite-prepare.md §2).
 */
export async function runTableSplit(
  recipe: TableSplitRecipe,
  rawDir: string,
  outDir: string,
  log: (line: string) => void = () => {},
): Promise<{ train: number; test: number }> {
  for (const x of recipe.extract) {
    const archive = join(rawDir, x.archive);
    if (!existsSync(archive)) throw new Error(`raw file ${x.archive} not found in the Kaggle download`);
    await extractZip(archive, join(rawDir, x.into ?? ""));
  }
  const tableFile = join(rawDir, recipe.table);
  if (!existsSync(tableFile)) throw new Error(`raw table ${recipe.table} not found in the Kaggle download`);
  const labelCols = recipe.outputs.flatMap((o) => (o.kind === "one-hot" && !o.classes ? [o.label] : []));
  const table = await scanTable(tableFile, labelCols, recipe.groupBy);
  // Columns of a rendered row: the table's, then the computed ones.
  const computed = Object.entries(recipe.computed);
  const names = [...table.header, ...computed.map(([name]) => name)];
  const col = (name: string) => {
    const k = names.indexOf(name);
    if (k < 0) throw new Error(`${recipe.table}: no column "${name}" (columns: ${names.join(", ")})`);
    return k;
  };
  let testSize = recipe.testSize;
  if (recipe.testMembers)
    testSize = 0; // membership below, no randomness
  else if (testSize === undefined) {
    // Upstream sizes the split like Kaggle's: test share = raw test files / (rows + raw test files).
    const { dir, suffix } = recipe.testSizeFromFiles!;
    const k = readdirSync(join(rawDir, dir)).filter((f) => f.endsWith(suffix)).length;
    testSize = k / (table.n + k);
  }
  const reader = new RecordReader(table);
  let parts: { train: Uint32Array; test: Uint32Array };
  if (recipe.testMembers) {
    const m = recipe.testMembers;
    const ids = new Set(m.tfrecords.flatMap((f) => tfrecordFeature(join(rawDir, f), m.feature)));
    const k = col(m.column);
    const train: number[] = [];
    const test: number[] = [];
    for (let i = 0; i < table.n; i++) (ids.has(reader.cells(i)[k]) ? test : train).push(i);
    log(`${recipe.table}: ${table.n} rows, ${test.length} in the TFRecord files ${m.tfrecords.join(", ")}`);
    parts = { train: Uint32Array.from(train), test: Uint32Array.from(test) };
  } else if (table.groups) {
    // Split the groups; rows keep file order and follow their group.
    const g = table.groups;
    const k = g.values.length;
    log(`${recipe.table}: ${table.n} rows, ${testCount(k, testSize)} of ${k} groups to the new test set`);
    const inTest = new Uint8Array(k);
    for (const t of trainTestSplit(k, testSize, recipe.randomState).test) inTest[t] = 1;
    const train: number[] = [];
    const test: number[] = [];
    for (let i = 0; i < table.n; i++) (inTest[g.of[i]] ? test : train).push(i);
    parts = { train: Uint32Array.from(train), test: Uint32Array.from(test) };
  } else {
    log(`${recipe.table}: ${table.n} rows, ${testCount(table.n, testSize)} to the new test set`);
    parts = splitIndices(table.n, testSize, recipe);
  }
  const renumberCol = recipe.renumber ? col(recipe.renumber.column) : -1;
  const types = [...table.types, ...computed.map(() => "text" as const)];
  if (recipe.renumber) {
    const prefixed = recipe.renumber.train.prefix !== undefined || recipe.renumber.test.prefix !== undefined;
    types[renumberCol] = prefixed ? "text" : "int";
  }
  const fill = (tpl: string, raw: string[], out: string[]) =>
    tpl.replace(/\{(=?)([^}]+)\}/g, (_, eq: string, name: string) => (eq ? out : raw)[col(name)]);

  /** Visits a part's rows in output order: raw cells and rendered (renumbered) cells. */
  const each = (part: Part, fn: (raw: string[], out: string[], pos: number) => void) => {
    const idx = parts[part];
    const rn = recipe.renumber?.[part];
    const start = rn?.start === "after-train" ? parts.train.length : (rn?.start ?? 0);
    const dense = new Map<string, number>();
    for (let pos = 0; pos < idx.length; pos++) {
      const raw = reader.cells(idx[pos]);
      const out = raw.map((v, k) => renderCell(v, table.types[k]));
      if (rn) {
        let n = pos;
        if (recipe.renumber!.dense) {
          const v = raw[renumberCol];
          n = dense.get(v) ?? dense.size;
          dense.set(v, n);
        }
        out[renumberCol] = `${rn.prefix ?? ""}${start + n}`;
      }
      for (const [, tpl] of computed) out.push(fill(tpl, raw, out));
      fn(raw, out, pos);
    }
  };

  const target = (to: string) => {
    const file = join(outDir, to);
    mkdirSync(dirname(file), { recursive: true });
    return file;
  };

  try {
    for (const o of recipe.outputs) await writeOutput(o);
  } finally {
    reader.close();
  }

  async function writeOutput(o: RecipeOutput): Promise<void> {
    if (o.kind === "rows") {
      let keep = o.columns ? o.columns.map(col) : table.header.map((_, k) => k);
      if (o.drop) {
        const drop = new Set(o.drop.map(col));
        keep = keep.filter((k) => !drop.has(k));
      }
      const header = keep.map((k) => o.rename?.[names[k]] ?? names[k]);
      const text = o.quoting === "nonnumeric" ? keep.map((k) => types[k] === "text") : undefined;
      const file = target(o.to);
      const w = new CsvWriter(file, header, text);
      each(o.part, (_, out) => w.row(keep.map((k) => out[k])));
      w.close();
      if (o.zip) {
        await zipFiles([file], `${file}.zip`, false);
        rmSync(file);
      }
    } else if (o.kind === "constant") {
      const keep = o.keep.map(col);
      const values = Object.values(o.values);
      const w = new CsvWriter(target(o.to), [...o.keep, ...Object.keys(o.values)]);
      each(o.part, (_, out) => w.row([...keep.map((k) => out[k]), ...values]));
      w.close();
    } else if (o.kind === "one-hot") {
      const id = col(o.id);
      const label = col(o.label);
      const classes = o.classes ?? [...table.distinct.get(o.label)!].sort();
      const w = new CsvWriter(target(o.to), [o.id, ...classes]);
      each(o.part, (raw, out) =>
        w.row([out[id], ...classes.map((c) => o.constant ?? (raw[label] === c ? "1" : "0"))]),
      );
      w.close();
    } else {
      const key = col(o.key);
      const keys = new Set<string>();
      each(o.part, (raw) => keys.add(raw[key]));
      const other = await scanTable(join(rawDir, o.from));
      const k2 = other.header.indexOf(o.key);
      if (k2 < 0) throw new Error(`${o.from}: no column "${o.key}"`);
      const r2 = new RecordReader(other);
      const w = new CsvWriter(target(o.to), other.header);
      try {
        for (let i = 0; i < other.n; i++) {
          const raw = r2.cells(i);
          if (keys.has(raw[k2])) w.row(raw.map((v, k) => renderCell(v, other.types[k])));
        }
      } finally {
        w.close();
        r2.close();
      }
    }
  }

  // Per-row file copies (images, geometry files): moved out of raw/, which is deleted afterwards.
  const moved = new Map<string, string>();
  for (const c of recipe.copies) {
    each(c.part, (raw, out) => {
      const from = join(rawDir, fill(c.from, raw, out));
      const to = target(fill(c.to, raw, out));
      const earlier = moved.get(from);
      if (earlier) copyFileSync(earlier, to);
      else if (existsSync(from)) {
        renameSync(from, to);
        moved.set(from, to);
      } else throw new Error(`raw file ${fill(c.from, raw, out)} not found in the Kaggle download`);
    });
  }
  for (const f of recipe.files) copyFileSync(join(rawDir, f.from), target(f.to));
  for (const a of recipe.archives) {
    const dir = join(outDir, a.dir);
    mkdirSync(dir, { recursive: true });
    await zipFolder(dir, target(a.to));
    rmSync(dir, { recursive: true, force: true });
  }
  for (const d of recipe.dirs) mkdirSync(join(outDir, d), { recursive: true });
  if (recipe.renameTfrecords) {
    const t = recipe.renameTfrecords;
    const counters = { train: 0, test: 0 };
    mkdirSync(join(outDir, t.to), { recursive: true });
    const files = readdirSync(join(rawDir, t.dir))
      .filter((f) => f.startsWith("train") && f.endsWith(".tfrec"))
      .sort();
    for (const f of files) {
      const count = f.replace(/\.tfrec$/, "").split("-")[1];
      const kind = t.test.includes(f) ? "test" : "train";
      const name = `${kind}${String(counters[kind]++).padStart(2, "0")}-${count}.tfrec`;
      renameSync(join(rawDir, t.dir, f), join(outDir, t.to, name)); // raw/ is deleted afterwards
    }
  }
  return { train: parts.train.length, test: parts.test.length };
}
