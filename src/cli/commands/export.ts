import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { exportRunGroup } from "../../mlebench/export.js";
import { loadRegistry } from "../../registry/registry.js";
import { readResults } from "../../suite/store.js";
import { loadConfig } from "../../config/load.js";
import { countOf } from "../../util/count.js";
import { defaultHeadResults } from "../../config/results-dir.js";
import { parseCommandArgs, requireOption, UserError, type Command } from "../command.js";

/** A results.json, or a folder holding one (e.g. .medalist/<name>/head). */
function resultsFile(path: string): string {
  return existsSync(path) && statSync(path).isDirectory() ? join(path, "results.json") : path;
}

export const exportCommand: Command = {
  name: "export",
  summary: "Write Medalist results as an MLE-bench run group (for make_submission.py and mlebench grade)",
  usage: `Usage: medalist export --mlebench DIR [RESULTS | --config FILE]

Writes the runs of RESULTS (a results.json, or the folder holding it; default: the head results
\`medalist run\` wrote in .medalist/NAME/head, NAME the config's name: --config's suite, else the one
such folder here) as an upstream MLE-bench run group in DIR (a new or empty folder):
  DIR/metadata.json                  as run_agent.py writes it ({"run_group", "created_at", "runs"})
  DIR/<competition>_<id>/            one folder per run: submission/, logs/, code/, run.log
  DIR/submission.jsonl               what experiments/make_submission.py writes over DIR/metadata.json
Run folders are named with the plain competition id, as upstream's tools expect. Symbolic links in
the run folders are not copied. Then: mlebench grade --submission DIR/submission.jsonl --output-dir DIR

Exit codes: 0 written, 2 bad input.`,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(
      argv,
      { mlebench: { type: "string" }, config: { type: "string" } },
      true,
    );
    const dir = requireOption(values.mlebench, "--mlebench");
    if (positionals.length > 1)
      throw new UserError("expects at most one results file or folder (see --help)");
    if (positionals.length === 1 && values.config !== undefined)
      throw new UserError("give either RESULTS or --config, not both");
    const config = values.config === undefined ? null : loadConfig(values.config).config.name;
    const file = resultsFile(positionals[0] ?? defaultHeadResults(config));
    const results = readResults(file);
    const r = exportRunGroup(results, file, dir);
    console.error(
      `wrote ${countOf(r.runs, "run")} as an MLE-bench run group in ${r.runGroupDir}` +
        (r.skipped > 0 ? ` (${r.skipped} link(s) or special file(s) not copied)` : ""),
    );
    console.error(
      `grade it with: mlebench grade --submission ${r.submissionPath} --output-dir ${r.runGroupDir}`,
    );
    // Toy competitions (and ones not in the bundled registry) are Medalist's: upstream cannot grade them.
    const registry = loadRegistry();
    const foreign = results.suite.competitions.filter(
      (id) => registry.get(id)?.competition.source !== "kaggle",
    );
    if (foreign.length > 0)
      console.error(
        `note: ${foreign.join(", ")} ${foreign.length === 1 ? "is" : "are"} not MLE-bench competitions; mlebench grade does not know them`,
      );
    return 0;
  },
};
