import type { CostEstimate, ScenarioCost } from "./expected.js";
import { ASSUMED_RATE } from "./expected.js";

const duration = (secs: number) =>
  secs >= 3600
    ? `${(secs / 3600).toFixed(1)} h`
    : secs >= 60
      ? `${Math.round(secs / 60)} min`
      : `${Math.round(secs)} s`;

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** Where the simulated base rates come from, in one sentence. */
export function ratesSource(e: CostEstimate, historyRuns: number): string {
  const assumed = `assumed to spread like MLE-bench's lite leaderboard (Beta with mean ${pct(ASSUMED_RATE.mean)} and ρ ${ASSUMED_RATE.rho}), since the history holds no base runs of the base's identity`;
  if (e.fromHistory === 0) return `Base medal rates are ${assumed}.`;
  const from = `the default-branch history (${historyRuns} base runs of the identity the default branch last ran)`;
  if (e.fromHistory === e.competitions) return `Base medal rates from ${from}.`;
  return `Base medal rates from ${from} for ${e.fromHistory} of ${e.competitions} competitions; the rest are ${assumed} there.`;
}

const num = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1));

/** One case; the ± (one Monte Carlo standard error) only where the hours vary between suites. */
function scenario(s: ScenarioCost, unit: string, slots: number): string {
  const se = s.hoursSe > 1e-9 * s.hours ? ` ±${num(s.hoursSe)}` : "";
  return `${num(s.hours)}${se} ${unit}, ${duration(s.wallSecs)} wall time with ${slots} run${slots === 1 ? "" : "s"} at once; decisive in ${pct(s.decisive)} of the simulated suites`;
}

/**
 * The expected cost of the head's runs, fixed vs monitored, in a few lines. Every figure is a mean
 * over simulated suites (± one Monte Carlo standard error), so the lines say so.
 */
export function describeCost(
  e: CostEstimate,
  o: {
    gpusPerRun: number;
    slots: number;
    seeds: number;
    tolerance: number;
    historyRuns: number;
    stopInFlight?: boolean;
  },
): string {
  const inFlight = o.stopInFlight
    ? "runs in flight at the verdict stop there"
    : "runs in flight at the verdict finish";
  const unit = o.gpusPerRun > 0 ? "GPU-hours" : "runner-hours";
  const tol = `a drop equal to the tolerance (${Math.round(o.tolerance * 1000) / 10} points)`;
  return [
    `Expected cost of the head's ${e.headRuns} planned runs (${e.suites} simulated suites per case, on one runner; the base's runs are not counted; ± is one Monte Carlo standard error):`,
    `- Fixed ${o.seeds} seeds, no change: ${scenario(e.fixed.noChange, unit, o.slots)}.`,
    `- Fixed ${o.seeds} seeds, ${tol}: ${scenario(e.fixed.atTolerance, unit, o.slots)}.`,
    `- Monitored after every run (seeds: { max: ${o.seeds}, adaptive: true }; ${inFlight}), no change: ${scenario(e.monitored.noChange, unit, o.slots)}.`,
    `- Monitored after every run, ${tol}: ${scenario(e.monitored.atTolerance, unit, o.slots)}.`,
    ...(e.informed
      ? [
          `- History-informed plan (what a pull request runs with this history: ${e.informed.headRuns} of ${e.headRuns} head runs planned${e.informed.covered ? `, ${e.informed.covered} competition${e.informed.covered === 1 ? "" : "s"} covered by a history bound (seeds.cover)` : ""}, the history planning the seeds and their order, the base's current runs as the base side, monitored), no change: ${scenario(e.informed.noChange, unit, o.slots)}.`,
          `- History-informed plan, ${tol}: ${scenario(e.informed.atTolerance, unit, o.slots)}.`,
        ]
      : []),
    ratesSource(e, o.historyRuns),
  ].join("\n");
}
