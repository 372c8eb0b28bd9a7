import { resolve } from "node:path";
import { loadConfig } from "../../config/load.js";
import { openSession } from "../../session/input.js";
import { readPlanFile } from "../../session/shards.js";
import {
  decideStage,
  reportStages,
  stagedFileBaseline,
  stagedPlan,
  stagesFromFiles,
} from "../../session/staged.js";
import { plainSentence } from "../../report/gate.js";
import { defaultResultsDir } from "../../config/results-dir.js";
import { parseCommandArgs, requireOption, UserError, type Command } from "../command.js";

export const decideCommand: Command = {
  name: "decide",
  summary: "The staged workflow's decide step: after a stage, stop (and report) or run the next stage",
  usage: `Usage: medalist decide --config FILE --plan FILE --baseline FILE [--out DIR] HEAD_SHARD_RESULTS.json...

After stage k of a staged sharded suite (medalist plan --stages K, medalist run --shard i/N
--stage k --plan FILE), give the head shard results of stages 1..k. Each stage's shards are merged
and fed to the monitor one stage at a time, one look at each stage's end, exactly as the decide
sub-action does (docs/statistics.md, "Staged sharded suites"). Prints "decision: stop" or
"decision: continue" and the sentence that says why. At a stop (the verdict reached, or the last
stage) it writes the report: DIR/head/results.json (the stages that ran, merged), DIR/report.md
and DIR/comparison.json, with the monitor's verdict and the runs saved.

The head stops early only with seeds: { max: N, adaptive: true } in the config; otherwise every
stage runs and the report comes after the last one.

Options:
  --config FILE     medalist.yml or .json (required): the suite, the gate and the seeds
  --plan FILE       the plan JSON from medalist plan --stages K --json (required)
  --baseline FILE   the base's results.json (required)
  --out DIR         where the report goes at a stop (default: .medalist/NAME)

Exit codes: 0 continue, or stop with the gate passing; 1 stop with the gate failing; 2 bad input.`,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(
      argv,
      {
        config: { type: "string" },
        plan: { type: "string" },
        baseline: { type: "string" },
        out: { type: "string" },
      },
      true,
    );
    const loaded = loadConfig(requireOption(values.config, "--config"));
    const planPath = requireOption(values.plan, "--plan");
    const basePath = requireOption(values.baseline, "--baseline");
    if (positionals.length === 0)
      throw new UserError("give the head shard results of the stages that ran (see --help)");
    const { config } = loaded;
    const session = openSession(config, loaded.baseDir);
    const stageShards = stagedPlan(readPlanFile(planPath), planPath, session);
    const planned = stageShards.length;
    const merged = stagesFromFiles(session, stageShards, positionals);
    const k = merged.ran;
    if (merged.missing.length)
      console.error(
        `medalist: ${merged.missing.length} run(s) of the stages that ran have no results (lost shards)`,
      );
    const baseline = stagedFileBaseline(basePath);
    const d = await decideStage({
      session,
      stage: k,
      planned,
      stages: merged,
      baseline: async () => baseline,
    });
    console.log(`decision: ${d.decision}`);
    console.log(`After stage ${k} of ${planned}: ${d.why}`);
    if (d.decision === "continue") return 0;
    const { ev } = await reportStages({
      session,
      resultsDir: resolve(values.out ?? defaultResultsDir(config.name)),
      stages: merged,
      planned,
      baseline,
      log: (line) => console.error(line),
    });
    console.error(`report: ${ev.paths.report}`);
    console.log(plainSentence(ev.gate));
    return ev.gate.fails ? 1 : 0;
  },
};
