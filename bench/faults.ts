// npm run bench -- faults: every module in bench/faults/ that exports faultRows injects its faults
// (seeded random points, MEDALIST_FAULT_TRIALS times each, default 20), resumes, and returns one row
// per fault kind and backend; this section prints them as one table.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { FaultOptions, FaultRow } from "./faults/types.js";

const dir = join(import.meta.dirname, "faults");

export function faultOptions(env: NodeJS.ProcessEnv = process.env): FaultOptions {
  const trials = Number(env.MEDALIST_FAULT_TRIALS ?? 20);
  const seed = Number(env.MEDALIST_FAULT_SEED ?? 33);
  if (!Number.isInteger(trials) || trials < 1)
    throw new Error("MEDALIST_FAULT_TRIALS: expected a whole number ≥ 1");
  if (!Number.isInteger(seed)) throw new Error("MEDALIST_FAULT_SEED: expected a whole number");
  return { trials, seed };
}

export function faultTable(rows: FaultRow[]): string {
  const head =
    "| fault | backend | trials | runs lost | runs double-counted | verdicts different | extra runs executed |";
  const line = "| --- | --- | ---: | ---: | ---: | ---: | ---: |";
  const body = rows.map(
    (r) =>
      `| ${r.fault} | ${r.backend} | ${r.trials} | ${r.lost} | ${r.doubleCounted} | ${r.differentVerdicts} | ${r.extraRuns} |`,
  );
  return [head, line, ...body].join("\n");
}

export async function benchFaults(): Promise<string> {
  const opts = faultOptions();
  const rows: FaultRow[] = [];
  const failed: string[] = [];
  // MEDALIST_FAULT_FILES: a comma list of the modules to run (e.g. "executor"); default all.
  const files = process.env.MEDALIST_FAULT_FILES?.split(",").map((f) => `${f.trim()}.ts`);
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".ts") && f !== "types.ts" && (!files || files.includes(f)))
    .sort()) {
    const mod = (await import(pathToFileURL(join(dir, file)).href)) as {
      faultRows?: (o: FaultOptions) => Promise<FaultRow[]>;
    };
    if (typeof mod.faultRows !== "function") continue;
    console.error(`bench: faults/${file} …`);
    try {
      rows.push(...(await mod.faultRows(opts)));
    } catch (e) {
      failed.push(`- faults/${file} failed: ${(e as Error).message.split("\n")[0]}`);
    }
  }
  return [
    "## Faults survived",
    "",
    `Each fault injected ${opts.trials} times at seeded random points (seed ${opts.seed}), then the same command run again. ` +
      "Lost: a planned run without a result (missing, or an infrastructure error) after the resume; double-counted: a run " +
      "recorded more than once; verdicts different: runs whose outcome or medal, and suites whose verdict, differ from " +
      "one undisturbed run of the same seeds; extra runs: agent executions (starts and retries) beyond the undisturbed run's.",
    "",
    faultTable(rows),
    ...(failed.length ? ["", ...failed] : []),
  ].join("\n");
}
