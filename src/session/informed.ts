// The history-informed plan of a pull request's head (issues 21 and 30): from the default branch's
// history, the earlier runs of the identity the base has now (each run counted once) are checked
// against the base's current runs (stats/drift.ts); when they agree, each competition's head seeds
// follow how much its outcome varies there and the most uncertain start first (plan/informed.ts).
// The comparison's base side stays the base's current runs: the history plans, it never enters the
// verdict's estimate, so a drift the check cannot see cannot bias the verdict.
// docs/statistics.md ("The history-informed plan", "History drift") says why the verdict keeps its level.
import type { HistoryCheck } from "../compare/compare.js";
import type { MonitorHistory } from "../compare/monitor.js";
import type { Config, Gate } from "../config/schema.js";
import { driftCheck } from "../stats/drift.js";
import { baseHistory, identitiesOf, runKeysOf, type History } from "../history/history.js";
import { informedPlan } from "../plan/informed.js";
import type { Plan } from "../plan/plan.js";
import type { RunResult, SuiteResults } from "../results/schema.js";

const comparable = (r: RunResult) => r.outcome !== "infra_error" && r.grade?.grader_error !== true;

/** Share of α the drift check spends: the chance it turns away a history that did not drift. */
export const DRIFT_SHARE = 0.2;

/**
 * The monitor's history-informed plan, or why there is none (one sentence for the log and report;
 * `check` is set when the history was checked against the current runs).
 */
export function historyInformed(
  base: SuiteResults,
  history: History,
  config: Pick<Config, "historyPlan" | "seeds"> & { gate: Pick<Gate, "alpha" | "tolerance"> },
  plan: Pick<Plan, "competitions" | "runs">,
): { use: MonitorHistory & { check: HistoryCheck } } | { why: string; check?: HistoryCheck } {
  const minRuns = config.historyPlan?.minRuns;
  if (minRuns === undefined) return { why: "off in the config (seeds.history: false)" };
  if (config.seeds < 2) return { why: "the suite has one seed" };
  // The base's own entry must be left out of the history (its runs are counted as the runs now).
  if (!base.git.sha)
    return { why: "the baseline records no commit, so its runs cannot be told apart from the history's" };
  const identities = identitiesOf(base);
  const earlier = baseHistory(history, base.suite.hash, identities, base.git.sha, runKeysOf(base));
  const secs = (id: string) => plan.runs.find((r) => r.competitionId === id)?.expectedSecs ?? 0;
  const now = (id: string) => {
    const ok = base.runs.filter((r) => r.competitionId === id && comparable(r));
    return { runs: ok.length, medals: ok.filter((r) => r.grade?.any_medal).length };
  };
  // A competition qualifies by its number of runs, the current ones counted (seeds.historyRuns);
  // its seeds come from the earlier runs only, so the plan never reads a current outcome.
  const total = (id: string) => now(id).runs + (earlier.get(id)?.runs ?? 0);
  const competitions = plan.competitions.map((id) => {
    const e = earlier.get(id);
    return {
      id,
      secs: secs(id),
      history: e && total(id) >= minRuns ? { runs: e.runs, medals: e.medals } : null,
    };
  });
  const informed = informedPlan({
    competitions,
    seeds: config.seeds,
    alpha: config.gate.alpha,
    tolerance: config.gate.tolerance,
    minRuns: 1,
    cover: config.historyPlan?.cover,
  });
  if (informed.competitions.every((c) => c.rate === null)) {
    const most = Math.max(0, ...plan.competitions.map(total));
    return {
      why: `no competition has ${minRuns} runs of the base's current identity in the baseline and the default-branch history, each run counted once (most: ${most}; seeds.historyRuns)`,
    };
  }
  // The check runs on the competitions the plan would use the history for.
  const planned = new Set(informed.competitions.filter((c) => c.rate !== null).map((c) => c.id));
  const level = config.gate.alpha * DRIFT_SHARE;
  const drift = driftCheck(
    [...planned].map((id) => ({ id, history: earlier.get(id) ?? { runs: 0, medals: 0 }, current: now(id) })),
    level,
  );
  const copies = [...planned].reduce((a, id) => a + (earlier.get(id)?.copies ?? 0), 0);
  // Default-branch suites whose runs were counted (a suite that only recorded copies adds none).
  const suites = new Set([...planned].flatMap((id) => earlier.get(id)?.entries ?? [])).size;
  const check: HistoryCheck = { ...drift, level, copies, suites, used: drift.passed };
  if (!drift.passed) return { why: driftWhy(check), check };
  return { use: { plan: informed, check } };
}

const pctOf = (x: number | null) => (x === null ? "n/a" : `${(x * 100).toFixed(1)}%`);

/** Why a history that failed the drift check is not used (the log's line; the report says more). */
function driftWhy(c: HistoryCheck): string {
  const where = c.differing.length
    ? `on ${c.differing.map((d) => d.id).join(", ")}`
    : `overall (history ${pctOf(c.historyRate)}, current base runs ${pctOf(c.currentRate)}, p = ${c.overallP.toPrecision(2)})`;
  return `the default-branch history differs from the base's current runs ${where}, so it is not used`;
}
