import { viewResults } from "../../session/viewer.js";
import { parseCommandArgs, requireOption, UserError, type Command } from "../command.js";

export const viewCommand: Command = {
  name: "view",
  summary: "Write a static HTML viewer of the runs (trajectories, logs, code, leaderboard charts)",
  usage: `Usage: medalist view RESULTS.json [--base BASE.json] --out DIR

Writes DIR/index.html (with --base: the verdict at the default gate, then the competitions grouped
medals lost, gained, unchanged, not comparable, base beside head, with filters) and one page per
run: the cause first, links to the paired run, the diff and the next run, score and medal on the
competition's leaderboard, logs/metrics.jsonl over time, tokens and dollars,
wall time and GPU-seconds, the searchable log, the final code, a preview of submission.csv, the
AIDE solution tree or event trajectory when present, and the base→head diff of the final code.
Run folders are read beside each results file. The site needs no network: open DIR/index.html.

Options:
  --base FILE   the base side's results.json
  --out DIR     output folder (required)`,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(
      argv,
      { base: { type: "string" }, out: { type: "string" } },
      true,
    );
    if (positionals.length !== 1) throw new UserError("expects one results file (see --help)");
    const out = requireOption(values.out, "--out");
    const written = viewResults(positionals[0], values.base, out);
    console.log(`viewer: ${written.index} (${written.runs} run pages, ${written.diffs} code diffs)`);
    return 0;
  },
};
