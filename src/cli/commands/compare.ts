import { writeFileSync } from "node:fs";
import { readResults } from "../../suite/store.js";
import { toCliJson } from "../../util/json.js";
import { compareRuns } from "../../compare/compare.js";
import { renderEvaluation } from "../../report/evaluation.js";
import { decideGate } from "../../report/gate.js";
import { GateSchema } from "../../config/schema.js";
import { numberOption, parseCommandArgs, UserError, type Command } from "../command.js";

export const compareCommand: Command = {
  name: "compare",
  summary: "Compare two results files (base, head): medal rates, per-competition diff, verdict",
  usage: `Usage: medalist compare BASE.json HEAD.json [--json] [--tolerance X] [--alpha A] [--out FILE] [--fail-on regression|never]
                        [--allow-suite-mismatch] [--percentile-tolerance X]

Pairs the two suites by competition and prints the Markdown report (or the comparison as JSON).
  --tolerance X   medal-rate drop tolerated, 0..1 (default 0.05)
  --alpha A       significance level (default 0.05)
  --out FILE      also write the output to FILE
  --fail-on       regression: exit 1 when the verdict is "regressed" or "error"; never: exit 0 whatever
                  the verdict (default: exit 1 on "error" only, where nothing could be compared)
  --allow-suite-mismatch    compare suites that differ (hash, competitions, limits) instead of "error"
  --percentile-tolerance X  also gate on the leaderboard percentile, tolerating a drop of X (0..1)

Exit codes: 0 compared, 1 verdict error (or regressed with --fail-on regression), 2 bad input.`,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(
      argv,
      {
        json: { type: "boolean" },
        tolerance: { type: "string" },
        alpha: { type: "string" },
        out: { type: "string" },
        "fail-on": { type: "string" },
        "allow-suite-mismatch": { type: "boolean" },
        "percentile-tolerance": { type: "string" },
      },
      true,
    );
    if (positionals.length !== 2)
      throw new UserError("expects two results files: BASE.json HEAD.json (see --help)");
    const gate = GateSchema.safeParse({
      tolerance: values.tolerance === undefined ? undefined : numberOption(values.tolerance, "--tolerance"),
      alpha: values.alpha === undefined ? undefined : numberOption(values.alpha, "--alpha"),
      failOn: values["fail-on"] ?? "never",
      allowSuiteMismatch: values["allow-suite-mismatch"] ?? false,
      percentileTolerance:
        values["percentile-tolerance"] === undefined
          ? undefined
          : numberOption(values["percentile-tolerance"], "--percentile-tolerance"),
    });
    if (!gate.success) {
      const i = gate.error.issues[0];
      const flag = String(i.path[0]).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
      throw new UserError(`--${flag}: ${i.message}`);
    }
    const [base, head] = positionals.map(readResults);
    const cmp = compareRuns(base, head, gate.data, `file ${positionals[0]}`);
    const text = values.json ? toCliJson(cmp) + "\n" : renderEvaluation(head, cmp, null, {}, base);
    if (values.out) writeFileSync(values.out, text);
    process.stdout.write(text);
    // Fails closed: runs of lost shards fail the gate whatever the verdict of the rest.
    if (decideGate(cmp, gate.data, { head, base }).fails) return 1;
    // ⛔ error: nothing could be compared; only an explicit --fail-on never makes that a success.
    if (cmp.verdict === "error" && values["fail-on"] === undefined) {
      console.error(
        "medalist compare: verdict error: the two results could not be compared (see the report); exit code 1 (--fail-on never exits 0)",
      );
      return 1;
    }
    return 0;
  },
};
