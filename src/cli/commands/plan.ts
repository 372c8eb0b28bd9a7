import { writeFileSync } from "node:fs";
import { loadConfig } from "../../config/load.js";
import { openSession } from "../../session/input.js";
import { targetWallSecs } from "../../session/rules.js";
import { staticChecks } from "../../session/check.js";
import { describePlan, planShards } from "../../session/shards.js";
import { planCost, readHistoryFile } from "../../session/plan-cost.js";
import { readResults } from "../../suite/store.js";
import { MAX_SHARDS } from "../../plan/shards.js";
import {
  numberOption,
  parseCommandArgs,
  requireOption,
  stageOption,
  UserError,
  type Command,
} from "../command.js";
import { toCliJson } from "../../util/json.js";

function wholeNumber(text: string, flag: string): number {
  const n = numberOption(text, flag);
  if (!Number.isInteger(n) || n < 1 || n > MAX_SHARDS)
    throw new UserError(
      `${flag} expects a whole number from 1 to ${MAX_SHARDS}, got ${JSON.stringify(text)}`,
    );
  return n;
}

function count(text: string, flag: string, min: number): number {
  const n = numberOption(text, flag);
  if (!Number.isInteger(n) || n < min || n > 100_000)
    throw new UserError(`${flag} expects a whole number from ${min} to 100000, got ${JSON.stringify(text)}`);
  return n;
}

export const planCommand: Command = {
  name: "plan",
  summary: "Split a suite into shards for several runners; expected GPU-hours, wall time and cost",
  usage: `Usage: medalist plan --config FILE (--shards N | --max-shards M --target-wall DURATION)
                     [--durations RESULTS.json]... [--usd-per-gpu-hour X] [--json] [--out FILE]
                     [--history HISTORY.json] [--concurrency N] [--simulations N]

Splits the suite's runs into balanced shards, longest expected run first onto the least loaded
shard. A run's expected time is its competition's mean duration in the --durations results when
known, else the time limit. The same inputs give the same shards. Prints the runs, the expected
GPU-hours, the wall time on 1 runner, on the chosen number and with one runner per run, and the
cost at --usd-per-gpu-hour. --json prints the plan (with a matrix for GitHub Actions) that
\`medalist run --shard i/N --plan FILE\` reads; --out writes it to FILE too.

Then the expected cost of the head's runs on one runner, for the fixed design (every seed) and for
monitoring after every run (seeds: { max, adaptive: true }), each under "no change" and under a
drop equal to gate.tolerance: GPU-hours, wall time and the share of decisive verdicts, simulated.
Base medal rates come from --history (the default branch's history.json, its runs of the identity
the default branch last ran) where it has them, else from a stated assumption. When the history
holds seeds.historyRuns runs of a competition, the history-informed plan a pull request would run
is priced too.

Options:
  --config FILE            medalist.yml or .json (required)
  --shards N               number of shards (1..${MAX_SHARDS}; never more than the runs)
  --max-shards M           with --target-wall: the fewest shards up to M that finish in time
  --target-wall DURATION   e.g. 6h, 90m
  --durations FILE         earlier results.json (repeatable)
  --usd-per-gpu-hour X     price of one GPU-hour
  --json                   print the plan as JSON
  --out FILE               also write the plan JSON to FILE
  --history FILE           the default branch's history.json (from the Actions cache)
  --concurrency N          runs at once on the runner (default: the config's concurrency)
  --simulations N          simulated suites per case (default 200, fewer above 60 runs; 0 skips it)
  --stages K               the staged workflow: K stages, each a block of seeds of every competition split
                           over the shards (medalist run --stage k, medalist decide; at most one stage per seed)

Checks the config and the agent first, as \`medalist check\` does (its folder, start script,
Dockerfile or command; not this machine's data, executor or sandbox: see \`medalist check\`).

Exit codes: 0 ok, 2 bad input.`,
  async run(argv) {
    const { values } = parseCommandArgs(argv, {
      config: { type: "string" },
      shards: { type: "string" },
      "max-shards": { type: "string" },
      "target-wall": { type: "string" },
      durations: { type: "string", multiple: true },
      "usd-per-gpu-hour": { type: "string" },
      json: { type: "boolean" },
      out: { type: "string" },
      history: { type: "string" },
      concurrency: { type: "string" },
      simulations: { type: "string" },
      stages: { type: "string" },
    });
    const loaded = loadConfig(requireOption(values.config, "--config"));
    if (values.shards !== undefined && values["max-shards"] !== undefined)
      throw new UserError("give either --shards or --max-shards, not both");
    let targetSecs: number | undefined;
    if (values["target-wall"] !== undefined) {
      const t = targetWallSecs(values["target-wall"]);
      if (t === null)
        throw new UserError(
          `--target-wall expects a duration like 6h or 90m, got ${JSON.stringify(values["target-wall"])}`,
        );
      targetSecs = t;
    }
    if (values["max-shards"] !== undefined && targetSecs === undefined)
      throw new UserError("--max-shards needs --target-wall");
    const usd = values["usd-per-gpu-hour"];
    const usdPerGpuHour = usd === undefined ? undefined : numberOption(usd, "--usd-per-gpu-hour");
    if (usdPerGpuHour !== undefined && !(usdPerGpuHour >= 0))
      throw new UserError("--usd-per-gpu-hour expects a price of 0 or more");
    // The checks that hold on any machine (the plan may be made where the runs do not run).
    const problems = staticChecks(loaded).lines.filter((l) => !l.ok);
    if (problems.length > 0) throw new UserError(problems.map((l) => l.text).join("; "));
    const session = openSession(loaded.config, loaded.baseDir);
    const durations = (values.durations ?? []).map((f) => readResults(f));
    const plan = planShards(session, {
      shards: values.shards !== undefined ? wholeNumber(values.shards, "--shards") : undefined,
      maxShards:
        values["max-shards"] !== undefined ? wholeNumber(values["max-shards"], "--max-shards") : undefined,
      targetSecs,
      durations,
      usdPerGpuHour,
      stages: values.stages !== undefined ? stageOption(values.stages, "--stages") : undefined,
    });
    const slots =
      values.concurrency !== undefined ? count(values.concurrency, "--concurrency", 1) : undefined;
    const suites =
      values.simulations !== undefined ? count(values.simulations, "--simulations", 0) : undefined;
    const cost =
      suites !== 0
        ? planCost(session, {
            history: values.history !== undefined ? readHistoryFile(values.history) : undefined,
            durations,
            slots,
            suites,
          })
        : null;
    const withCost = cost
      ? { ...plan, cost: { ...cost.estimate, slots: cost.slots, historyRuns: cost.historyRuns } }
      : plan;
    const json = toCliJson(withCost) + "\n";
    if (values.out) writeFileSync(values.out, json);
    if (values.json) process.stdout.write(json);
    else console.log(cost ? `${describePlan(plan)}\n\n${cost.text}` : describePlan(plan));
    return 0;
  },
};
