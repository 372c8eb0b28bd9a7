import { readResults, writeResults } from "../../suite/store.js";
import { mergeShards } from "../../session/merge.js";
import { parseCommandArgs, requireOption, UserError, type Command } from "../command.js";

export const mergeCommand: Command = {
  name: "merge",
  summary: "Combine shard results (medalist run --shard) into one results.json",
  usage: `Usage: medalist merge --out FILE [--shards N] SHARD_RESULTS.json...

Combines the results of one side's shards into one results document. Refuses shards of different
suites, agents or sides, and runs given twice (exit 2). Runs of missing shards are recorded as
infrastructure errors ("not run: the results of shard i/N are missing"): they are not comparable,
and the report says so and the gate does not pass (exit 1 here).

Options:
  --out FILE    merged results.json (required)
  --shards N    how many shards the plan had (default: as the shard results say)

Exit codes: 0 ok, 1 merged but runs are missing, 2 bad input.`,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(
      argv,
      { out: { type: "string" }, shards: { type: "string" } },
      true,
    );
    const out = requireOption(values.out, "--out");
    if (positionals.length === 0) throw new UserError("give the shard results files (see --help)");
    const expect = values.shards === undefined ? undefined : Number(values.shards);
    if (expect !== undefined && !(Number.isInteger(expect) && expect >= 1 && expect <= 256))
      throw new UserError(
        `--shards expects a whole number from 1 to 256, got ${JSON.stringify(values.shards)}`,
      );
    const merged = mergeShards(
      positionals.map((f) => readResults(f)),
      { expectShards: expect },
    );
    writeResults(out, merged.results);
    const n = merged.results.runs.length;
    console.error(
      `merged ${positionals.length} shard result(s): ${n - merged.missing.length}/${n} runs → ${out}`,
    );
    if (merged.missing.length > 0) {
      console.error(
        `medalist: ${merged.missing.length} run(s) never ran (${merged.results.runs.find((r) => r.details.notRun)?.error}); ` +
          "they are recorded as not comparable and the gate does not pass",
      );
      return 1;
    }
    return 0;
  },
};
