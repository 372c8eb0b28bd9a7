// Expected GPU-hours and wall time of the head's runs, fixed design vs monitoring after every run,
// under "no change" and under a drop equal to the tolerance (pure; `medalist plan` prints it).
// The monitored design's cost depends on the outcomes, so it is simulated: each competition's base
// medal rate from the default-branch history when known (runs of the base's identity), else drawn
// from a stated assumption; run times from the plan. The same inputs give the same numbers.
import { betaDraw, makeRng } from "../stats/distributions.js";
import { decideLook, monitorDesign, type LookInput, type MonitorDesign } from "./monitor.js";
import { medalVerdict, type ClaimTolerances, type Counts } from "../stats/stats.js";
import { coveredTolerances, informedPlan } from "../plan/informed.js";
import { simulatePool } from "./pool.js";

/** Assumed when the history has no base runs of a competition: the spread of MLE-bench's lite leaderboard. */
export const ASSUMED_RATE = { mean: 0.35, rho: 0.45 } as const;

export interface CompetitionProfile {
  id: string;
  /** Expected seconds per run. */
  secs: number;
  /** Base medals in base runs of the base's identity; null when the history has none. */
  history: { runs: number; medals: number } | null;
}

export interface CostInput {
  competitions: CompetitionProfile[];
  /** Head seeds per competition (the most, when monitored). */
  seeds: number;
  /** Comparable base runs per competition the verdict compares with (the base's own seeds). */
  baseSeeds: number;
  /** GPUs per run; 0: runner-hours are counted instead. */
  gpusPerRun: number;
  /** Runs at once on the one runner that monitors. */
  slots: number;
  alpha: number;
  tolerance: number;
  /** Simulated suites per case (default: 200 for up to 60 head runs, fewer for larger suites, at least 40). */
  suites?: number;
  seed?: number;
  /**
   * Pull requests' history-informed plan (seeds.historyRuns; absent: not simulated): a competition
   * with this many history runs gets its seeds from them and the history as its base side.
   */
  minRuns?: number;
  /** seeds.cover: never-won competitions covered by a history bound instead of runs. */
  cover?: boolean;
  /** seeds.inFlight: stop (runs in flight at the verdict stop there, their time left saved); default finish. */
  stopInFlight?: boolean;
}

export interface ScenarioCost {
  /** Mean GPU-hours (runner-hours when runs use no GPU) over the simulated suites, with its Monte Carlo error. */
  hours: number;
  hoursSe: number;
  /** Mean wall time: until the verdict when runs in flight stop there, else until the last started run ends. */
  wallSecs: number;
  /** Share of simulated suites ending `regressed` or `no-regression`. */
  decisive: number;
}

export interface CostEstimate {
  suites: number;
  /** Competitions whose base rate came from the history (the rest: ASSUMED_RATE). */
  fromHistory: number;
  competitions: number;
  headRuns: number;
  fixed: { noChange: ScenarioCost; atTolerance: ScenarioCost };
  monitored: { noChange: ScenarioCost; atTolerance: ScenarioCost };
  /** The history-informed plan (null: no competition has enough history, or not asked). */
  informed: {
    headRuns: number;
    /** Competitions covered by a history bound (seeds.cover). */
    covered: number;
    noChange: ScenarioCost;
    atTolerance: ScenarioCost;
  } | null;
}

interface HeadRun {
  comp: number;
  seed: number;
  secs: number;
  medal: boolean;
}

/** Base rates for one simulated suite: history (smoothed) where known, else drawn from the assumption. */
function ratesOf(c: CompetitionProfile[], rng: () => number): number[] {
  const ab = 1 / ASSUMED_RATE.rho - 1;
  return c.map((p) =>
    p.history
      ? (p.history.medals + 0.5) / (p.history.runs + 1)
      : betaDraw(ASSUMED_RATE.mean * ab, (1 - ASSUMED_RATE.mean) * ab, rng),
  );
}

/** The order runs start in: seed-major, longest first within a seed, when monitored; else longest first. */
function order(runs: HeadRun[], monitored: boolean): HeadRun[] {
  const bySeed = (a: HeadRun, b: HeadRun) => (monitored ? a.seed - b.seed : 0);
  return [...runs].sort((a, b) => bySeed(a, b) || b.secs - a.secs || a.comp - b.comp || a.seed - b.seed);
}

/** The look after the runs so far (`runs`/`medals`: finished head runs per competition). */
function look(runs: number[], medals: number[], base: Counts[], seeds: number[]): LookInput | null {
  const counts: Counts[] = [];
  let headOk = 0;
  for (let i = 0; i < runs.length; i++) {
    if (seeds[i] === 0) continue; // covered by a history bound: never run
    if (runs[i] === 0) return null;
    headOk += runs[i];
    counts.push({ ...base[i], nh: runs[i], xh: medals[i] });
  }
  const planned = seeds.reduce((a, b) => a + b, 0);
  return {
    counts,
    notComparable: 0,
    competitions: runs.length,
    infra: { base: 0, baseRuns: runs.length, head: 0, headRuns: headOk },
    t: headOk / planned,
    last: headOk === planned,
  };
}

/** One suite on `slots` slots; `monitor` stops starting runs at the verdict. */
function runSuite(
  runs: HeadRun[],
  base: Counts[],
  input: CostInput,
  design: MonitorDesign | null,
  seeds: number[] = input.competitions.map(() => input.seeds),
  claims?: ClaimTolerances,
): { secs: number; wall: number; decisive: boolean } {
  const m = input.competitions.length;
  const gate = { tolerance: input.tolerance, maxNotComparable: 1, ...(claims ? { claims } : {}) };
  const queue = order(
    runs.filter((r) => r.seed < seeds[r.comp]),
    design !== null,
  );
  const runsDone = new Array<number>(m).fill(0);
  const medals = new Array<number>(m).fill(0);
  let verdict = null as string | null; // set by `ended`
  const ended = (run: HeadRun): boolean => {
    runsDone[run.comp]++;
    if (run.medal) medals[run.comp]++;
    const l = look(runsDone, medals, base, seeds);
    if (!l) return false;
    if (design) {
      const out = decideLook(design, l, gate);
      if (out.decision !== "continue") verdict = out.verdict;
    } else if (l.last) {
      // The fixed design decides once, at full α.
      verdict = medalVerdict(
        l.counts,
        { regressed: input.alpha, noRegression: input.alpha },
        input.tolerance,
      ).verdict;
    }
    return verdict !== null;
  };
  // The runs in flight at the verdict stop there (seeds.inFlight: stop): their time left is not spent.
  const { paid, wall } = simulatePool(queue, input.slots, (r) => r.secs, ended, input.stopInFlight === true);
  return { secs: paid, wall, decisive: verdict === "regressed" || verdict === "no-regression" };
}

function summary(xs: { secs: number; wall: number; decisive: boolean }[], gpus: number): ScenarioCost {
  const n = xs.length;
  const h = xs.map((x) => (x.secs * Math.max(1, gpus)) / 3600);
  const mean = h.reduce((a, b) => a + b, 0) / n;
  const v = n > 1 ? h.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1) : 0;
  return {
    hours: mean,
    hoursSe: Math.sqrt(v / n),
    wallSecs: xs.reduce((a, x) => a + x.wall, 0) / n,
    decisive: xs.filter((x) => x.decisive).length / n,
  };
}

/** Enough suites for a Monte Carlo error of a few percent, in about a second or two per suite size. */
export const defaultSuites = (headRuns: number) =>
  Math.max(40, Math.min(200, Math.round(12_000 / Math.max(1, headRuns))));

/**
 * Simulates the fixed and the monitored design on the same draws. A drop equal to the tolerance
 * scales every competition's rate by 1 − tolerance ÷ mean rate (as the bench and the power table do).
 */
export function expectedCost(input: CostInput): CostEstimate {
  const suites = input.suites ?? defaultSuites(input.competitions.length * input.seeds);
  const rng = makeRng(input.seed ?? 1);
  const c = input.competitions;
  const design = monitorDesign(input.alpha);
  const res = {
    fixed: {
      noChange: [] as ReturnType<typeof runSuite>[],
      atTolerance: [] as ReturnType<typeof runSuite>[],
    },
    monitored: {
      noChange: [] as ReturnType<typeof runSuite>[],
      atTolerance: [] as ReturnType<typeof runSuite>[],
    },
    informed: {
      noChange: [] as ReturnType<typeof runSuite>[],
      atTolerance: [] as ReturnType<typeof runSuite>[],
    },
  };
  // The informed plan depends on the history only: the same for every simulated suite.
  const informed =
    input.minRuns === undefined
      ? null
      : informedPlan({
          competitions: c.map((x) => ({ id: x.id, secs: x.secs, history: x.history })),
          seeds: input.seeds,
          alpha: input.alpha,
          tolerance: input.tolerance,
          minRuns: input.minRuns,
          cover: input.cover,
        });
  const useInformed = informed !== null && informed.competitions.some((x) => x.rate !== null);
  const informedSeeds = informed?.competitions.map((x) => x.seeds) ?? [];
  // The runs' analysis at what the history bounds leave of α, each claim at its tolerance (both
  // the plain ones when nothing is covered).
  const informedDesign = informed ? monitorDesign(informed.alphaRuns) : design;
  const claims = informed ? coveredTolerances(informed, input.tolerance) : undefined;
  for (let k = 0; k < suites; k++) {
    const p = ratesOf(c, rng);
    const mean = p.reduce((a, b) => a + b, 0) / Math.max(1, p.length);
    const base: Counts[] = p.map((pi) => {
      let xb = 0;
      for (let s = 0; s < input.baseSeeds; s++) if (rng() < pi) xb++;
      return { nb: input.baseSeeds, xb, nh: 0, xh: 0 };
    });
    for (const scenario of ["noChange", "atTolerance"] as const) {
      const keep = scenario === "noChange" || mean <= 0 ? 1 : Math.max(0, 1 - input.tolerance / mean);
      const runs: HeadRun[] = [];
      for (let seed = 0; seed < input.seeds; seed++)
        c.forEach((comp, i) => runs.push({ comp: i, seed, secs: comp.secs, medal: rng() < p[i] * keep }));
      res.fixed[scenario].push(runSuite(runs, base, input, null));
      res.monitored[scenario].push(runSuite(runs, base, input, design));
      if (useInformed)
        // The history plans the seeds; the base side is the base's current runs (issue 30: a
        // history that drifted must not bias the verdict).
        res.informed[scenario].push(runSuite(runs, base, input, informedDesign, informedSeeds, claims));
    }
  }
  const g = input.gpusPerRun;
  return {
    suites,
    fromHistory: c.filter((x) => x.history).length,
    competitions: c.length,
    headRuns: c.length * input.seeds,
    fixed: { noChange: summary(res.fixed.noChange, g), atTolerance: summary(res.fixed.atTolerance, g) },
    monitored: {
      noChange: summary(res.monitored.noChange, g),
      atTolerance: summary(res.monitored.atTolerance, g),
    },
    informed: useInformed
      ? {
          headRuns: informed!.headRuns,
          covered: informed!.competitions.filter((x) => x.covered).length,
          noChange: summary(res.informed.noChange, g),
          atTolerance: summary(res.informed.atTolerance, g),
        }
      : null,
  };
}
