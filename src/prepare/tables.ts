import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { TablesRecipe } from "../registry/recipe-schema.js";
import { renderCell } from "./csv.js";
import { CsvWriter, RecordReader, scanTable } from "./table-file.js";
import { extractZip } from "./zip.js";

/**
 * Runs a `tables` recipe (no split: Kaggle's test labels were published): each output is a raw
 * table copied byte for byte, or read and re-written as pandas would, with column choices and
 * constant columns.
 */
export async function runTables(recipe: TablesRecipe, rawDir: string, outDir: string): Promise<void> {
  for (const x of recipe.extract) {
    const archive = join(rawDir, x.archive);
    if (!existsSync(archive)) throw new Error(`raw file ${x.archive} not found in the Kaggle download`);
    await extractZip(archive, join(rawDir, x.into ?? ""));
  }
  for (const o of recipe.outputs) {
    const from = join(rawDir, o.from);
    if (!existsSync(from)) throw new Error(`raw table ${o.from} not found in the Kaggle download`);
    const to = join(outDir, o.to);
    mkdirSync(dirname(to), { recursive: true });
    if (o.copy) {
      copyFileSync(from, to);
      continue;
    }
    const table = await scanTable(from);
    const set = o.set ?? {};
    const names = o.columns ?? [
      ...table.header,
      ...Object.keys(set).filter((c) => !table.header.includes(c)),
    ];
    const cols = names.map((name) => {
      if (name in set) return { value: set[name] };
      const k = table.header.indexOf(name);
      if (k < 0) throw new Error(`${o.from}: no column "${name}" (columns: ${table.header.join(", ")})`);
      return { k };
    });
    const reader = new RecordReader(table);
    const w = new CsvWriter(to, names);
    try {
      for (let i = 0; i < table.n; i++) {
        const raw = reader.cells(i);
        w.row(cols.map((c) => ("value" in c ? c.value! : renderCell(raw[c.k!] ?? "", table.types[c.k!]))));
      }
    } finally {
      w.close();
      reader.close();
    }
  }
}
