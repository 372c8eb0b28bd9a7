import { countOf } from "../util/count.js";
import { readFileSync } from "node:fs";
import { baseHistory, latestIdentities, parseHistory, type History } from "../history/history.js";
import { UserError } from "../errors.js";
import type { SuiteResults } from "../results/schema.js";
import { expectedCost, type CostEstimate } from "../compare/expected.js";
import { describeCost } from "../compare/expected-text.js";
import { durationsFrom, expectedRuns } from "../plan/shards.js";
import type { Session } from "./input.js";
import { adaptive } from "./rules.js";

export interface PlanCost {
  estimate: CostEstimate;
  /** Base runs of the base's identity the rates come from. */
  historyRuns: number;
  slots: number;
  text: string;
}

/** Reads a history.json (the Actions cache's `medalist-history-…` entry); a bad file is a UserError. */
export function readHistoryFile(path: string): History {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new UserError(`--history ${path}: cannot be read (${(e as Error).message})`);
  }
  const { history, problem } = parseHistory(text);
  if (problem) throw new UserError(`--history ${path}: ${problem}`);
  return history;
}

/**
 * The expected cost of the head's runs, fixed vs monitored (compare/expected.ts), for this session:
 * run times from earlier results, else the history, else the plan's estimates; base rates from the
 * history's runs of the identity the default branch last ran, else the stated assumption.
 */
export function planCost(
  session: Session,
  opts: { history?: History; durations?: SuiteResults[]; slots?: number; suites?: number },
): PlanCost {
  const { config, plan } = session;
  const hist = opts.history
    ? baseHistory(opts.history, plan.suiteHash, latestIdentities(opts.history, plan.suiteHash))
    : new Map();
  const durations = opts.durations?.length ? durationsFrom(opts.durations, config.limits.time) : undefined;
  const runs = expectedRuns(plan, durations);
  const competitions = plan.competitions.map((id) => {
    const h = hist.get(id);
    const planned = runs.find((r) => r.competitionId === id)?.expectedSecs ?? config.limits.time;
    const secs =
      durations?.byCompetition.has(id) || !h?.meanSecs ? planned : Math.min(h.meanSecs, config.limits.time);
    return { id, secs, history: h && h.runs > 0 ? { runs: h.runs, medals: h.medals } : null };
  });
  const slots = opts.slots ?? config.concurrency;
  // `gpus: all` gives each run the whole runner: counted in runner-hours, not GPU-hours.
  const gpusPerRun = config.limits.gpus === "all" ? 0 : config.limits.gpus;
  const estimate = expectedCost({
    competitions,
    seeds: config.seeds,
    baseSeeds: config.seeds,
    gpusPerRun,
    slots,
    alpha: config.gate.alpha,
    tolerance: config.gate.tolerance,
    suites: opts.suites,
    minRuns: config.historyPlan?.minRuns,
    cover: config.historyPlan?.cover,
    stopInFlight: config.stopInFlight,
  });
  const historyRuns = competitions.reduce((a, c) => a + (c.history?.runs ?? 0), 0);
  const wait =
    adaptive(config) && !config.historyPlan
      ? HISTORY_OFF
      : suitesToGo(
          competitions.map((c) => c.history?.runs ?? 0),
          config.historyPlan?.minRuns,
          config.seeds,
        );
  const text = [
    describeCost(estimate, {
      stopInFlight: config.stopInFlight,
      gpusPerRun,
      slots,
      seeds: config.seeds,
      tolerance: config.gate.tolerance,
      historyRuns,
    }),
    ...(wait ? [wait] : []),
  ].join("\n");
  return { estimate, historyRuns, slots, text };
}

/** `medalist plan`'s history line when adaptive seeds run without the history-informed plan. */
export const HISTORY_OFF =
  "History: the history-informed plan is off (seeds.history: false, the default: in all 18 simulated cells of npm run bench -- adaptive, docs/statistics.md, it was less decisive than monitoring alone). With seeds.history: true this line says how many default-branch suites it still needs.";

/**
 * How many more default-branch suites the history needs before a pull request's head can use the
 * history-informed plan: it starts once some competition has `minRuns` runs of the current identity
 * (each run counted once), and each default-branch suite adds `seeds` runs per competition when
 * it executes them (runs reused by identity add none; a changed agent starts a new identity).
 * Null when the plan is off (no adaptive seeds or seeds.history: false) or the suite has one seed.
 */
export function suitesToGo(runs: number[], minRuns: number | undefined, seeds: number): string | null {
  if (minRuns === undefined || seeds < 2 || runs.length === 0) return null;
  const most = Math.max(...runs);
  const least = Math.min(...runs);
  const need = (have: number) => Math.max(0, Math.ceil((minRuns - have) / seeds));
  const first = need(most);
  const all = need(least);
  const plural = (n: number) => `${n} more default-branch suite${n === 1 ? "" : "s"}`;
  const rule = `the history-informed plan needs ${minRuns} runs of the current identity in a competition (seeds.historyRuns), each run counted once`;
  if (all === 0)
    return `History: every competition has at least ${minRuns} runs of the current identity (seeds.historyRuns; each run counted once): a pull request's head uses the history-informed plan when the history passes its drift check against the base's current runs.`;
  const cover =
    first === all ? "" : `, and ${plural(all)} before it plans every competition (the fewest: ${least})`;
  const start =
    first === 0
      ? `it can start now (a competition has ${most})`
      : `${plural(first)} of ${countOf(seeds, "seed")} before it starts (the most a competition has: ${most})`;
  return `History: ${rule}: ${start}${cover}. Only runs a default-branch suite executes count: runs reused by identity add none, and a change to the agent, its command, environment, limits, data or grader starts a new identity from 0.`;
}
