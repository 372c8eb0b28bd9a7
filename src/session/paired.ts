// `baseline: run` with monitoring (issue 30): the base and the head run in pairs, one seed at a
// time: seed k of every competition on the base, then on the head, the head monitored after every
// run against the base's runs so far. When the head's verdict is reached no further seed starts on
// either side, so the base stops with the head instead of running every seed first.
// Why the levels hold (docs/statistics.md, "Monitoring after every run"): at every look the base
// has at least as many runs per competition as the head, so the information fraction is at least
// the run fraction the levels use; each seed adds independent runs to both sides, so the paired
// estimate keeps independent increments.
import { SuiteMonitor, monitorHooks } from "../compare/monitor.js";
import type { RunResult, SuiteResults } from "../results/schema.js";
import { writeResults } from "../suite/store.js";
import type { SuiteOptions } from "../suite/run.js";
import type { AgentConfig } from "../config/parts.js";
import { join, resolve } from "node:path";
import { Cancelled, type BaselineInput, type EvaluateInput } from "./input.js";
import type { Comparison, PairedRecord } from "../compare/compare.js";

type Git = { sha: string | null; ref: string | null };
type Hooks = Pick<SuiteOptions, "onRunFinished" | "priority" | "admit" | "stopInFlight" | "onRunStopped">;
export type PairedSide = (
  label: "base" | "head",
  configDir: string,
  agent: AgentConfig,
  git: Git | undefined,
  hooks: Hooks | undefined,
  runIds: string[],
) => Promise<SuiteResults>;

/** The rounds' results of one side as one document: every round's runs, the first round's start. */
function merged(rounds: SuiteResults[]): SuiteResults {
  const last = rounds[rounds.length - 1];
  const { shard: _shard, ...rest } = last;
  return { ...rest, startedAt: rounds[0].startedAt, runs: rounds.flatMap((r) => r.runs) };
}

export async function runPaired(
  input: EvaluateInput,
  baseline: BaselineInput & { kind: "run" },
  side: PairedSide,
  log: (line: string) => void,
): Promise<{ base: SuiteResults; head: SuiteResults; description: string; comparison: Comparison }> {
  const { session } = input;
  const { config, plan } = session;
  const description = baseline.description;
  const baseRounds: SuiteResults[] = [];
  const headRounds: SuiteResults[] = [];
  // The base the monitor looks at: its runs grow round by round (the monitor reads them at each look).
  let live: SuiteResults | null = null;
  let monitor: SuiteMonitor | null = null;
  const checkout = baseline.checkout ? await baseline.checkout(log) : null;
  const partial = () => ({
    base: baseRounds.length ? merged(baseRounds) : null,
    head: headRounds.length ? merged(headRounds) : null,
    description,
  });
  try {
    for (let seed = 0; seed < config.seeds; seed++) {
      const ids = plan.runs.filter((r) => r.seed === seed).map((r) => r.runId);
      log(`[base] paired with the head: seed ${seed + 1} of ${config.seeds} of every competition`);
      baseRounds.push(
        await side(
          "base",
          checkout?.baseDir ?? session.baseDir,
          baseline.agent,
          baseline.git,
          undefined,
          ids,
        ),
      );
      if (input.signal?.aborted) throw new Cancelled(partial());
      const baseNow = merged(baseRounds);
      if (!live) live = { ...baseNow, runs: [] as RunResult[] };
      live.runs.splice(0, live.runs.length, ...baseNow.runs);
      monitor ??= new SuiteMonitor(live, plan.runs, config.gate, undefined, description, null);
      headRounds.push(
        await side(
          "head",
          session.baseDir,
          config.agent,
          input.headGit,
          monitorHooks(monitor, config.seeds, log, config.stopInFlight),
          ids,
        ),
      );
      if (input.signal?.aborted) throw new Cancelled(partial());
      if (monitor.stopped) break;
    }
  } finally {
    checkout?.dispose();
  }
  const base = merged(baseRounds);
  const head = merged(headRounds);
  // Each round wrote its own runs only: the whole of each side goes on disk now.
  const dir = resolve(input.resultsDir);
  writeResults(join(dir, "base", "results.json"), base);
  writeResults(join(dir, "head", "results.json"), head);
  const planned = plan.runs.length;
  const paired: PairedRecord = {
    baseSeeds: baseRounds.length,
    seeds: config.seeds,
    baseRuns: base.runs.length,
    plannedBaseRuns: planned,
  };
  if (baseRounds.length < config.seeds)
    log(
      `[base] paired with the head: stopped with it after ${baseRounds.length} of ${config.seeds} seeds (${base.runs.length} of ${planned} base runs)`,
    );
  return { base, head, description, comparison: { ...monitor!.comparison(head), paired } };
}
