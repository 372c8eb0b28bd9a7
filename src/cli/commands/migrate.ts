import { readFileSync } from "node:fs";
import { migrate, type DocumentKind, type Json } from "../../results/migrate.js";
import { RESULTS_DOCUMENT, RUN_DOCUMENT } from "../../results/versions.js";
import { RunResultSchema, SuiteResultsSchema } from "../../results/schema.js";
import { formatZodError } from "../../config/errors.js";
import { toJson } from "../../suite/store.js";
import { writeAtomic } from "../../util/atomic.js";
import { parseCommandArgs, UserError, type Command } from "../command.js";

const usage = `Usage: medalist migrate FILE... [--check]

Rewrites results files (results.json) and run files (run.json) written by an older Medalist in
the current schema version. Medalist reads older files anyway (it migrates them in memory); this
makes the change permanent, e.g. before other tools read the files.

Options:
  --check   only say which files are out of date (exit 1 when any is); write nothing`;

/** A run file holds one run's `result`; a results file holds `runs`. */
function kindOf(doc: unknown): DocumentKind {
  const d = (doc ?? {}) as Json;
  return typeof d === "object" && "result" in d && !("runs" in d) ? RUN_DOCUMENT : RESULTS_DOCUMENT;
}

function validate(kind: DocumentKind, doc: Json, file: string): Json {
  const parsed =
    kind === RUN_DOCUMENT ? RunResultSchema.safeParse(doc.result) : SuiteResultsSchema.safeParse(doc);
  if (!parsed.success)
    throw new Error(formatZodError(parsed.error, kind === RUN_DOCUMENT ? `${file} (result)` : file));
  return kind === RUN_DOCUMENT ? { ...doc, result: parsed.data } : (parsed.data as Json);
}

export const migrateCommand: Command = {
  name: "migrate",
  summary: "Rewrite results and run files from older Medalist versions in the current schema",
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(
      argv,
      { check: { type: "boolean", default: false } },
      true,
    );
    if (positionals.length === 0) throw new UserError("expects one or more files (see --help)");
    let failed = 0,
      outdated = 0;
    for (const file of positionals) {
      try {
        let raw: unknown;
        try {
          raw = JSON.parse(readFileSync(file, "utf8"));
        } catch (e) {
          throw new Error(`cannot read it as JSON (${(e as Error).message})`);
        }
        const kind = kindOf(raw);
        const m = migrate(kind, raw);
        const doc = validate(kind, m.doc, file);
        if (m.applied.length === 0) {
          console.log(`${file}: ${kind.name} file, already version ${kind.current}`);
          continue;
        }
        outdated++;
        if (values.check) {
          console.log(`${file}: ${kind.name} file, version ${m.from}; would migrate to ${kind.current}`);
          continue;
        }
        writeAtomic(file, toJson(doc));
        console.log(`${file}: ${kind.name} file migrated from version ${m.from} to ${kind.current}`);
        for (const step of m.applied) console.log(`  ${step}`);
      } catch (e) {
        failed++;
        console.log(`${file}: FAILED: ${(e as Error).message}`);
      }
    }
    return failed > 0 || (values.check && outdated > 0) ? 1 : 0;
  },
};
