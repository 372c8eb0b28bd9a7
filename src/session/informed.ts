// The history-informed plan of a pull request's head (issue 21): from the default branch's history,
// the earlier runs of the identity the base has now become part of the base side, and each
// competition's head seeds follow how much its outcome varies there (plan/informed.ts).
// docs/statistics.md ("The history-informed plan") says why the verdict keeps its level.
import type { BaseHistoryUsed } from "../compare/compare.js";
import type { MonitorHistory } from "../compare/monitor.js";
import type { Config, Gate } from "../config/schema.js";
import { baseHistory, identitiesOf, type History } from "../history/history.js";
import { informedPlan } from "../plan/informed.js";
import type { Plan } from "../plan/plan.js";
import type { RunResult, SuiteResults } from "../results/schema.js";

const comparable = (r: RunResult) => r.outcome !== "infra_error" && r.grade?.grader_error !== true;

/** The monitor's history-informed plan, or why there is none (one sentence for the log and report). */
export function historyInformed(
  base: SuiteResults,
  history: History,
  config: Pick<Config, "historyPlan" | "seeds"> & { gate: Pick<Gate, "alpha" | "tolerance"> },
  plan: Pick<Plan, "competitions" | "runs">,
): { use: MonitorHistory } | { why: string } {
  const minRuns = config.historyPlan?.minRuns;
  if (minRuns === undefined) return { why: "off in the config (seeds.history: false)" };
  if (config.seeds < 2) return { why: "the suite has one seed" };
  // The base's own entry must be left out of the history (its runs are counted as the runs now).
  if (!base.git.sha)
    return { why: "the baseline records no commit, so its runs cannot be told apart from the history's" };
  const identities = identitiesOf(base);
  const earlier = baseHistory(history, base.suite.hash, identities, base.git.sha);
  const used: BaseHistoryUsed = { competitions: {}, suites: 0 };
  for (const [id, b] of earlier) used.competitions[id] = { runs: b.runs, medals: b.medals };
  // Default-branch suites that gave at least one competition's runs.
  used.suites = history.entries.filter(
    (e) =>
      e.suiteHash === base.suite.hash &&
      e.sha !== base.git.sha &&
      Object.entries(e.competitions ?? {}).some(([id, rec]) => rec.identity === identities.get(id)),
  ).length;
  const secs = (id: string) => plan.runs.find((r) => r.competitionId === id)?.expectedSecs ?? 0;
  const competitions = plan.competitions.map((id) => {
    const now = base.runs.filter((r) => r.competitionId === id && comparable(r));
    const e = used.competitions[id] ?? { runs: 0, medals: 0 };
    return {
      id,
      secs: secs(id),
      history: {
        runs: now.length + e.runs,
        medals: now.filter((r) => r.grade?.any_medal).length + e.medals,
      },
    };
  });
  const informed = informedPlan({
    competitions,
    seeds: config.seeds,
    alpha: config.gate.alpha,
    tolerance: config.gate.tolerance,
    minRuns,
    cover: config.historyPlan?.cover,
  });
  if (informed.competitions.every((c) => c.rate === null)) {
    const most = Math.max(0, ...competitions.map((c) => c.history.runs));
    return {
      why: `no competition has ${minRuns} runs of the base's current identity in the baseline and the default-branch history (most: ${most}; seeds.historyRuns)`,
    };
  }
  return { use: { history: used, plan: informed } };
}
