import { writeFileSync } from "node:fs";
import { readResults } from "../../suite/store.js";
import { renderResults } from "../../report/markdown.js";
import { parseCommandArgs, UserError, type Command } from "../command.js";

export const reportCommand: Command = {
  name: "report",
  summary: "Render one results file as Markdown",
  usage: `Usage: medalist report RESULTS.json [--out FILE]

Prints a Markdown report of one suite run: medal rate and every run's outcome, score and medal.`,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, { out: { type: "string" } }, true);
    if (positionals.length !== 1) throw new UserError("expects one results file (see --help)");
    const text = renderResults(readResults(positionals[0]));
    if (values.out) writeFileSync(values.out, text);
    process.stdout.write(text);
    return 0;
  },
};
