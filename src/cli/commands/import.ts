import { importRunGroup } from "../../mlebench/import.js";
import { writeResults } from "../../suite/store.js";
import { countOf } from "../../util/count.js";
import { numberOption, parseCommandArgs, requireOption, UserError, type Command } from "../command.js";

export const importCommand: Command = {
  name: "import",
  summary: "Read an MLE-bench run group's grading report(s) into a Medalist results document",
  usage: `Usage: medalist import RUN_GROUP_OR_REPORT --time-limit SECS [--out FILE] [--label LABEL]

Reads upstream's grading report (the file \`mlebench grade\` writes, <timestamp>_grading_report.json),
or every *grading_report.json in a run group folder (a submission graded twice counts once, from the
newest report), and writes a Medalist results document. metadata.json next to the reports, when
present, names the run group, and its runs with "success": false become "failed". Each
competition's runs become seeds 0, 1, … Compare it with a Medalist run:
  medalist compare imported.json .medalist/NAME/head/results.json --allow-suite-mismatch
(.medalist/NAME is where \`medalist run\` wrote, NAME the config's name)
(an imported suite has its own hash: it never claims to be the same suite).

Options:
  --time-limit SECS  the agent's time limit in the run group (upstream's report does not record it)
  --out FILE         results document to write (default: mlebench-results.json)
  --label LABEL      the document's label (default: base)

Exit codes: 0 written, 2 bad input (one sentence naming the file and the bad field).`,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(
      argv,
      { "time-limit": { type: "string" }, out: { type: "string" }, label: { type: "string" } },
      true,
    );
    if (positionals.length !== 1)
      throw new UserError("expects one run group folder or grading report (see --help)");
    const limit = numberOption(requireOption(values["time-limit"], "--time-limit"), "--time-limit");
    if (!(limit > 0)) throw new UserError(`--time-limit expects a positive number of seconds, got ${limit}`);
    const out = values.out ?? "mlebench-results.json";
    const results = importRunGroup(positionals[0], {
      timeLimitSecs: limit,
      label: values.label,
      outFile: out,
    });
    writeResults(out, results);
    console.error(
      `imported ${countOf(results.runs.length, "run")} of ${countOf(results.suite.competitions.length, "competition")} → ${out}`,
    );
    return 0;
  },
};
