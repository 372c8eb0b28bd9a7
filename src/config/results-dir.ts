import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../errors.js";
// Where `medalist run` writes when --out is not given: one folder per suite, named after the
// config's `name`, so two configs in one checkout never replace each other's results.

/** Folders under .medalist/ that Medalist itself uses for other things. */
const TAKEN = new Set(["data", "demo", "results", "history-cache", "baseline-cache"]);

/**
 * The suite name as a safe folder name: letters, digits, ".", "_" and "-" kept, every other run
 * of characters one "-", no leading dot or dash (never hidden, never ".."), at most 80 characters.
 */
export function suiteFolderName(name: string): string {
  const safe = name
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[.-]+/, "")
    .slice(0, 80)
    .replace(/[.-]+$/, "");
  if (safe === "") return "default";
  return TAKEN.has(safe.toLowerCase()) ? `${safe}-suite` : safe;
}

/** The default results folder of a suite, relative to the working directory. */
export function defaultResultsDir(name: string): string {
  return `.medalist/${suiteFolderName(name)}`;
}

/**
 * The head results folders `medalist run` left under `.medalist/` of `cwd` (each
 * `.medalist/<name>/head` holding a results.json), sorted: what a command reads by default.
 */
export function runResultsDirs(cwd: string = process.cwd()): string[] {
  const top = join(cwd, ".medalist");
  let names: string[];
  try {
    names = readdirSync(top);
  } catch {
    return [];
  }
  return names
    .filter((n) => n === suiteFolderName(n) || n === "demo")
    .map((n) => `.medalist/${n}/head`)
    .filter((d) => {
      try {
        // No link is followed: a folder and a file of their own.
        return lstatSync(join(cwd, d)).isDirectory() && lstatSync(join(cwd, d, "results.json")).isFile();
      } catch {
        return false;
      }
    })
    .sort();
}

/**
 * The default head results of a command that reads them (export): the config's folder when a
 * config is given, else the one folder `medalist run` wrote; a UserError when there is none or
 * several.
 */
export function defaultHeadResults(configName: string | null, cwd: string = process.cwd()): string {
  if (configName !== null) return `${defaultResultsDir(configName)}/head`;
  const found = runResultsDirs(cwd);
  if (found.length === 1) return found[0];
  if (found.length === 0)
    throw new UserError(
      "no results under .medalist/ here: run `medalist run --config FILE` first, or name the results file",
    );
  throw new UserError(
    `several results under .medalist/ (${found.join(", ")}): name one, or give --config FILE for its suite's`,
  );
}
