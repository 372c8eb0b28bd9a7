import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RunResult } from "../results/schema.js";
import { PageBudget, preText, sizeText } from "./budget.js";
import { esc } from "./escape.js";
import { page } from "./layout.js";
import { LIMITS, readInRun } from "./read.js";

/** Where a side's build log is linked from its run pages (relative to the site root). */
export interface BuildLogLink {
  page: string;
  name: string;
}

/** A run whose suite's setup failed names its build log: a plain file name in its results folder. */
export function buildLogName(r: RunResult): string | null {
  const name = r.details.setup === "failed" ? r.details.buildLog : undefined;
  return name && /^[A-Za-z0-9_.-]+-build\.log$/.test(name) ? name : null;
}

/**
 * Writes the page of one side's image build log (read bounded, no link followed, from the side's
 * results folder) and returns its link; null when the side has no such log.
 */
export function writeBuildLogPage(
  out: string,
  side: "base" | "head",
  sideDir: string,
  name: string,
): BuildLogLink | null {
  const log = readInRun(sideDir, name, LIMITS.pageBytes);
  if (!log) return null;
  const file = `build-${side}.html`;
  const budget = new PageBudget(LIMITS.pageBytes);
  const body =
    `<h1>Image build log · ${esc(side)}</h1>` +
    `<p class="muted">${esc(name)}: ${esc(sizeText(log.bytes))}, the Docker build's output before any run. ` +
    `The build failed, so no run started; its last lines say why.</p>` +
    preText(log.text, LIMITS.pageBytes, budget, log.bytes, log.truncated);
  writeFileSync(join(out, file), page(`image build log · ${side}`, body, { home: "index.html" }));
  return { page: file, name };
}
