// Data preparation: warm check of the 22 lite competitions, NumPy permutation speed, table-split throughput.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { loadRegistry, splitMembers } from "../src/registry/registry.js";
import { prepareCompetitions, requiredFiles } from "../src/prepare/prepare.js";
import { permutation } from "../src/prepare/numpy-random.js";
import { runTableSplit } from "../src/prepare/split.js";
import { TableSplitRecipeSchema } from "../src/registry/recipe-schema.js";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export async function benchPrepare(): Promise<string> {
  const registry = loadRegistry(resolve(import.meta.dirname, "../competitions"));
  const lite = splitMembers(registry, "lite").map((id) => registry.get(id)!);
  const dataDir = mkdtempSync(join(tmpdir(), "medalist-bench-prepare-"));
  try {
    // Data as `mlebench prepare` leaves it (answers + sample submission of 100k rows each).
    const body = "id,value\n" + Array.from({ length: 100_000 }, (_, i) => `${i},0.5`).join("\n") + "\n";
    for (const e of lite) {
      for (const rel of requiredFiles(e.competition)) {
        const file = join(dataDir, e.competition.id, "prepared", rel);
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, body);
      }
    }
    let t = performance.now();
    const cold = await prepareCompetitions(lite, { dataDir });
    const coldMs = performance.now() - t;
    if (cold.failures.length) throw new Error(cold.failures[0].message);
    const warm: number[] = [];
    for (let i = 0; i < 7; i++) {
      t = performance.now();
      const r = await prepareCompetitions(lite, { dataDir });
      warm.push(performance.now() - t);
      if (r.results.some((x) => x.status !== "ready")) throw new Error("warm check did not hold");
    }

    const perm: [number, number][] = [];
    for (const n of [1_000_000, 4_000_000]) {
      t = performance.now();
      permutation(n, 0);
      perm.push([n, performance.now() - t]);
    }

    // A tps-dec-like table: 200k rows × 12 integer columns, split 90/10.
    const raw = join(dataDir, "raw");
    mkdirSync(raw);
    const rows = 200_000;
    const lines = ["Id," + Array.from({ length: 10 }, (_, k) => `f${k}`).join(",") + ",Cover_Type"];
    for (let i = 0; i < rows; i++)
      lines.push(
        `${i},${Array.from({ length: 10 }, (_, k) => (i * 31 + k * 7) % 3000).join(",")},${(i % 7) + 1}`,
      );
    writeFileSync(join(raw, "train.csv"), lines.join("\n") + "\n");
    const recipe = TableSplitRecipeSchema.parse(
      registry.get("tabular-playground-series-dec-2021")!.competition.prepare!.split,
    );
    t = performance.now();
    await runTableSplit(recipe, raw, join(dataDir, "out"));
    const splitMs = performance.now() - t;

    return [
      "## Data preparation",
      "",
      "| measurement | result |",
      "| --- | --- |",
      `| first check of 22 lite competitions prepared by MLE-bench (hashing 2 × 1.1 MB each) | ${coldMs.toFixed(0)} ms |`,
      `| warm check of the same 22 (manifest + stat), median of 7 | ${median(warm).toFixed(1)} ms (bound: 1000 ms) |`,
      `| cold / warm | ${(coldMs / median(warm)).toFixed(0)}× |`,
      ...perm.map(
        ([n, ms]) => `| RandomState(0).permutation(${n.toLocaleString("en")}) | ${ms.toFixed(0)} ms |`,
      ),
      `| table-split recipe (tps-dec-2021), ${rows.toLocaleString("en")} rows × 12 columns | ${splitMs.toFixed(0)} ms (${Math.round(rows / (splitMs / 1000)).toLocaleString("en")} rows/s) |`,
    ].join("\n");
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
