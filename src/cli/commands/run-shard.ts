// medalist run --shard i/N [--stage k]: one shard of each side that runs, no comparison.
import { resolve } from "node:path";
import type { LoadedConfig } from "../../config/load.js";
import { resolveBaseline } from "../../session/baseline.js";
import { cancelOnSignals } from "../../session/cancel.js";
import { runShardJob } from "../../session/entry.js";
import { Cancelled, openSession } from "../../session/input.js";
import { parseShardText, readPlanFile } from "../../session/shards.js";
import { UserError } from "../command.js";
import { terminal } from "../progress.js";
import type { RunOptions } from "./run-suite.js";

const progress = terminal.log;

/** Runs one shard of each side that runs; writes the shard results, no comparison (merge does). */
export async function runShardFromConfig(
  loaded: LoadedConfig,
  resultsDir: string,
  shardText: string,
  planPath?: string,
  opts: RunOptions = {},
  stage?: number,
): Promise<number> {
  const { config, baseDir } = loaded;
  const which = parseShardText(shardText, "--shard");
  if (stage !== undefined && !planPath)
    throw new UserError("--stage needs --plan FILE (the plan from medalist plan --stages K --json)");
  const session = openSession(config, baseDir);
  const planFile = planPath ? readPlanFile(planPath) : undefined;
  const dir = resolve(resultsDir);
  const cancel = cancelOnSignals(progress);
  try {
    const paths = await runShardJob({
      session,
      resultsDir: dir,
      baselineSource: config.baseline?.source,
      stageField: "--stage",
      door: "cli",
      baseline: () => resolveBaseline(config.baseline ?? { source: "none" }, { config, shard: true }),
      which,
      planFile,
      stage,
      signal: cancel.signal,
      log: progress,
      selection: opts.selection,
    });
    progress(`shard results: ${[paths.base, paths.head].filter(Boolean).join(", ")}`);
    if (!paths.setupFailed) return 0;
    progress(`medalist: ${paths.setupFailed} Exit code 1.`);
    return 1;
  } catch (e) {
    if (e instanceof Cancelled) return 130;
    throw e;
  } finally {
    cancel.dispose();
  }
}
