// npm run bench: runs every benchmark section and prints one Markdown report (also bench/RESULTS.md).
// Each section measures ratios against a reference run in the same process; nothing here is a test.
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import os from "node:os";

const dir = import.meta.dirname;
const only = process.argv.slice(2);
const sections: string[] = [
  `# Medalist benchmarks`,
  "",
  `${new Date().toISOString()} · Node ${process.version} · ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"} · ${Math.round(os.totalmem() / 2 ** 30)} GiB`,
];

for (const file of readdirSync(dir)
  .filter((f) => f.endsWith(".ts") && f !== "index.ts")
  .sort()) {
  const name = file.replace(/\.ts$/, "");
  // A name selects its file and the files that extend it: `adaptive` runs adaptive-drift, … too.
  if (only.length && !only.some((o) => name === o || name.startsWith(`${o}-`))) continue;
  const mod = (await import(pathToFileURL(join(dir, file)).href)) as Record<string, unknown>;
  const fn = Object.entries(mod).find(([k, v]) => /^bench[A-Z]/.test(k) && typeof v === "function")?.[1] as
    (() => Promise<string>) | undefined;
  if (!fn) continue;
  console.error(`bench: ${name} …`);
  try {
    sections.push("", await fn());
  } catch (e) {
    sections.push("", `## ${name}`, "", `Failed: ${(e as Error).message}`);
  }
}
const text = sections.join("\n") + "\n";
process.stdout.write(text);
if (only.length === 0) writeFileSync(join(dir, "RESULTS.md"), text);
