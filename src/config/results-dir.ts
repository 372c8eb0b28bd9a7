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
