// Monitoring the head after every finished run (`seeds: { max: N, adaptive: true }`), pure.
// docs/statistics.md ("Monitoring after every run") gives the reasoning; in short:
//  - A look is taken after every finished head run once every competition has a comparable head
//    run (or has finished all its planned runs): the estimand is the suite's, never a subset's.
//  - Each claim (`regressed`, `no-regression`) is the fixed design's rule (the score test
//    at the tolerance, and for `regressed` the exact mid-p test) at the look's one-sided level a(t), t = comparable head
//    runs ÷ planned head runs. For t < 1, a(t) = 1 − Φ(c1/√t): under the Brownian approximation
//    of the paired estimate, crossing c1/√t at ANY time has probability 1 − Φ(2·c1 − c2) jointly
//    with the final look at c2 (reflection principle), so continuous monitoring spends exactly
//    the interim share; looking only after runs, and t ≤ the information fraction, is conservative.
//  - Infra errors: a competition is not comparable only when all its planned head runs finished
//    without a comparable one; the infra-error test runs at the look's level (the same budget).
//  - Futility (non-binding, only ever removes claims): stop when the projected chance that the
//    final look reaches either verdict is below `futility`, each claim's z taken with its score
//    test's standard error (the null's, at the tolerance).
import type { PlannedRun } from "../plan/plan.js";
import type { RunResult, SuiteResults } from "../results/schema.js";
import { coveredIds, coveredTolerances, informedKey, type InformedPlan } from "../plan/informed.js";
import {
  compareRuns,
  infraPValue,
  type BaseHistoryUsed,
  type Comparison,
  type GateInput,
  type MonitorDecision,
  type MonitorRecord,
} from "./compare.js";
import { normalCdf, normalQuantile } from "../stats/distributions.js";
import { restrictedVariance } from "../stats/score.js";
import {
  medalVerdict,
  scorePrior,
  type ClaimTolerances,
  type Counts,
  type Levels,
  type Verdict,
} from "../stats/stats.js";

export interface MonitorDesign {
  /** The gate's α: each claim is wrong at most α overall. */
  alpha: number;
  /** Share of α the looks before the last spend (the rest is the last look's level). */
  interimShare: number;
  /** Boundary constants: interim level 1 − Φ(c1/√t), last look 1 − Φ(c2). */
  c1: number;
  c2: number;
  /** Stop when the projected chance of a decisive last look is below this (0: never). */
  futility: number;
}

export function monitorDesign(
  alpha: number,
  opts: { interimShare?: number; futility?: number } = {},
): MonitorDesign {
  const interimShare = opts.interimShare ?? 0.02;
  const c2 = normalQuantile(1 - alpha * (1 - interimShare));
  const c1 = (normalQuantile(1 - alpha * interimShare) + c2) / 2;
  return { alpha, interimShare, c1, c2, futility: opts.futility ?? 0.1 };
}

/** One-sided level of each claim at run fraction t (t ≥ 1: the last look). */
export function levelAt(d: MonitorDesign, t: number): number {
  if (t >= 1) return 1 - normalCdf(d.c2);
  return t > 0 ? 1 - normalCdf(d.c1 / Math.sqrt(t)) : 0;
}

/**
 * Projected chance that the last look reaches a claim whose z statistic is `z` now (Brownian
 * motion with the drift seen so far): P(B(1) ≥ c2 | B(t) = z√t, drift z/√t) = Φ((z/√t − c2)/√(1−t)).
 */
export function projectedChance(d: MonitorDesign, t: number, z: number): number {
  if (t >= 1) return z >= d.c2 ? 1 : 0;
  return normalCdf((z / Math.sqrt(t) - d.c2) / Math.sqrt(1 - t));
}

/** A look, in the form the simulations share with the real suite. */
export interface LookInput {
  /** Medal counts of the competitions with comparable runs on both sides. */
  counts: Counts[];
  /** Competitions whose planned head runs all finished without a comparable one. */
  notComparable: number;
  competitions: number;
  infra: { base: number; baseRuns: number; head: number; headRuns: number };
  /** Comparable head runs ÷ planned head runs. */
  t: number;
  /** Every planned head run finished. */
  last: boolean;
}

export interface LookOutcome {
  decision: MonitorDecision;
  level: number;
  delta: number | null;
  verdict: Verdict;
}

/** What one look decides: a claim at its level, an error, futility, or go on. */
export function decideLook(
  d: MonitorDesign,
  look: LookInput,
  gate: {
    tolerance: number;
    maxNotComparable: number;
    regressedOnly?: boolean;
    /** Each claim's tolerance on the run competitions when some are covered (plan/informed.ts). */
    claims?: ClaimTolerances;
  },
): LookOutcome {
  const level = levelAt(d, look.last ? 1 : look.t);
  const stop = (decision: MonitorDecision, verdict: Verdict, delta: number | null = null): LookOutcome => ({
    decision,
    level,
    delta,
    verdict,
  });
  if (look.competitions > 0 && look.notComparable / look.competitions > gate.maxNotComparable)
    return stop("error", "error");
  const i = look.infra;
  if (infraPValue(i.base, i.baseRuns, i.head, i.headRuns) <= level) return stop("error", "error");
  if (look.counts.length === 0) return look.last ? stop("error", "error") : stop("continue", "inconclusive");
  // Too little information for any claim at this look (a level that rounds to 0): wait for more.
  if (!(level > 1e-15)) return stop("continue", "inconclusive");
  const levels: Levels = { regressed: level, noRegression: level };
  const claims = gate.claims ?? { regressed: gate.tolerance, noRegression: gate.tolerance };
  const v = medalVerdict(look.counts, levels, claims);
  if (v.verdict === "regressed") return stop("regressed", "regressed", v.delta);
  if (v.verdict === "no-regression" && !gate.regressedOnly)
    return stop("no-regression", "no-regression", v.delta);
  if (look.last) return stop("final", "inconclusive", v.delta);
  if (d.futility > 0 && v.interval) {
    // Each claim's z as its score test sees it: the standard error at the tolerance's null.
    const prior = scorePrior(look.counts);
    const se = (tol: number) => Math.sqrt(restrictedVariance(look.counts, -tol, prior));
    const zR = (-claims.regressed - v.delta) / se(claims.regressed);
    const nr = gate.regressedOnly || claims.noRegression === null ? null : claims.noRegression;
    const chance =
      projectedChance(d, look.t, zR) +
      (nr === null ? 0 : projectedChance(d, look.t, (v.delta + nr) / se(nr)));
    if (chance < d.futility) return stop("futility", "inconclusive", v.delta);
  }
  return stop("continue", "inconclusive", v.delta);
}

/** Why and when the monitored head stopped (the report's stop sentence). */

const comparable = (r: RunResult) => r.outcome !== "infra_error" && r.grade?.grader_error !== true;

/** What the history-informed plan gives the monitor (session/informed.ts makes it). */
export interface MonitorHistory {
  /** Earlier base runs of the base's identity, counted on the base side (none: the base's runs now only). */
  history?: BaseHistoryUsed;
  /** Head seeds per competition; a competition's further seeds are reserves (see `admit`). */
  plan: InformedPlan;
}

/**
 * Watches the head's runs as they finish. `add` returns true once the verdict is reached: from
 * then on no new run should start; runs still in flight are stopped (`haltedInFlight`), or finish
 * and are recorded, not used (seeds.inFlight).
 * With a history-informed plan, a competition runs its planned seeds; each of its runs lost to an
 * infrastructure error admits its next seed (a reserve) while one is left.
 */
export class SuiteMonitor {
  private readonly used: RunResult[] = [];
  private readonly late: RunResult[] = [];
  /** Runs in flight at the stop that were stopped there (no result). */
  private readonly halted: string[] = [];
  private stop: LookOutcome | null = null;
  private lastLook: LookOutcome | null = null;
  /** Head runs each competition gets now (its plan's seeds, plus reserves admitted). */
  private readonly planned = new Map<string, number>();
  /** Planned head runs before any reserve (the information fraction's denominator). */
  private readonly target: number;
  readonly design: MonitorDesign;
  /** Competitions covered by a history bound: never run, counted against the head in each claim. */
  private readonly covered: Set<string>;
  /** Each claim's tolerance on the run competitions (set only when some are covered). */
  private readonly claims: ClaimTolerances | undefined;

  constructor(
    private readonly base: SuiteResults,
    private readonly plan: PlannedRun[],
    private readonly gate: GateInput & { maxNotComparable?: number; percentileTolerance?: number },
    design: MonitorDesign | undefined = undefined,
    private readonly baselineSource = "file",
    private readonly informed: MonitorHistory | null = null,
  ) {
    // The runs' analysis spends what the history bounds leave of α (all of it when nothing is covered).
    this.design = design ?? monitorDesign(informed?.plan.alphaRuns ?? gate.alpha);
    this.covered = coveredIds(informed?.plan);
    this.claims = this.covered.size ? coveredTolerances(informed!.plan, gate.tolerance) : undefined;
    const seedsOf = new Map(informed?.plan.competitions.map((c) => [c.id, c.seeds]) ?? []);
    const all = new Map<string, number>();
    for (const r of plan) all.set(r.competitionId, (all.get(r.competitionId) ?? 0) + 1);
    for (const [id, n] of all) this.planned.set(id, Math.min(n, seedsOf.get(id) ?? n));
    this.target = [...this.planned.values()].reduce((a, b) => a + b, 0);
  }

  get stopped(): boolean {
    return this.stop !== null;
  }

  get informedPlan(): InformedPlan | null {
    return this.informed?.plan ?? null;
  }

  /**
   * Whether a planned run should start now: a planned seed starts; a reserve seed starts once an
   * infrastructure error admitted it, waits while its competition still has runs that may fail,
   * and is skipped when none can.
   */
  admit(run: PlannedRun): "start" | "wait" | "skip" {
    if (run.seed < this.planned.get(run.competitionId)!) return "start";
    const mine = this.used.filter((r) => r.competitionId === run.competitionId).length;
    return mine < this.planned.get(run.competitionId)! ? "wait" : "skip";
  }

  add(r: RunResult): boolean {
    return this.addStage([r]);
  }

  /** A run in flight at the stop was stopped there (seeds.inFlight: stop): it has no result. */
  haltedInFlight(runId: string): void {
    if (!this.stop) throw new Error(`run ${runId} was stopped in flight before any stop`);
    this.halted.push(runId);
  }

  /**
   * Several finished runs, then one look (the staged workflow looks only at a stage's end: a
   * subset of the per-run looks, so the same levels hold). Runs after the stop are recorded, not used.
   */
  addStage(runs: RunResult[]): boolean {
    if (this.stop) {
      this.late.push(...runs);
      return true;
    }
    this.used.push(...runs);
    // A run lost to an infrastructure error admits its competition's next seed, while one is left.
    const all = (id: string) => this.plan.filter((p) => p.competitionId === id).length;
    for (const r of runs)
      if (!comparable(r) && this.planned.get(r.competitionId)! < all(r.competitionId))
        this.planned.set(r.competitionId, this.planned.get(r.competitionId)! + 1);
    const look = this.look();
    if (!look) return false;
    const out = decideLook(this.design, look, {
      tolerance: this.gate.tolerance,
      maxNotComparable: this.gate.maxNotComparable ?? 0.1,
      regressedOnly: this.gate.percentileTolerance !== undefined,
      ...(this.claims ? { claims: this.claims } : {}),
    });
    this.lastLook = out;
    if (out.decision !== "continue") this.stop = out;
    return this.stop !== null;
  }

  /** The look after the runs so far; null while some competition has neither a comparable run nor all its runs. */
  look(): LookInput | null {
    const ids = [...this.planned.keys()];
    const counts: Counts[] = [];
    let notComparable = 0;
    const medals = (rs: RunResult[]) => rs.filter((r) => r.grade?.any_medal).length;
    for (const id of ids) {
      if (this.covered.has(id)) continue;
      const h = this.used.filter((r) => r.competitionId === id);
      const hOk = h.filter(comparable);
      const bOk = this.base.runs.filter((r) => r.competitionId === id && comparable(r));
      const earlier = this.informed?.history?.competitions[id] ?? { runs: 0, medals: 0 };
      if (hOk.length === 0) {
        if (h.length < this.planned.get(id)!) return null;
        notComparable++;
        continue;
      }
      if (bOk.length + earlier.runs === 0) continue;
      counts.push({
        nb: bOk.length + earlier.runs,
        xb: medals(bOk) + earlier.medals,
        nh: hOk.length,
        xh: medals(hOk),
      });
    }
    const baseOk = this.base.runs.filter(comparable).length;
    const headOk = this.used.filter(comparable).length;
    const planned = [...this.planned.values()].reduce((a, b) => a + b, 0);
    return {
      counts,
      notComparable,
      competitions: ids.length,
      // The infra-error test compares with the base's runs now (the history records none).
      infra: {
        base: this.base.runs.length - baseOk,
        baseRuns: this.base.runs.length,
        head: this.used.length - headOk,
        headRuns: this.used.length,
      },
      // Comparable head runs ÷ the runs planned before any reserve (reserves keep it ≤ 1).
      t: Math.min(1, headOk / this.target),
      last: this.used.length >= planned,
    };
  }

  /** The record of the stop (or of the last look when the suite ran to the end or was cut short). */
  record(): MonitorRecord {
    const out = this.stop ?? this.lastLook;
    const done = new Set([...this.used, ...this.late].map((r) => r.runId).concat(this.halted));
    // Against the fixed design: every seed of every competition.
    const notStarted = this.plan.filter((p) => !done.has(p.runId));
    const gpus = Math.max(0, ...this.plan.map((p) => p.gpus));
    const secs = (p: PlannedRun) => {
      const same = this.used.filter((r) => r.competitionId === p.competitionId && r.durationMs > 0);
      return same.length ? same.reduce((a, r) => a + r.durationMs, 0) / same.length / 1000 : p.expectedSecs;
    };
    return {
      decision: out?.decision ?? "continue",
      // No look taken (runs skipped or cut short): one analysis only, at the last look's level.
      level: out?.level ?? levelAt(this.design, 1),
      usedRuns: this.used.length,
      plannedRuns: this.informed ? this.target : this.plan.length,
      ...(this.informed ? { fixedRuns: this.plan.length } : {}),
      afterStop: this.late.map((r) => r.runId),
      ...(this.halted.length ? { stoppedInFlight: [...this.halted] } : {}),
      notStarted: notStarted.length,
      savedHours: notStarted.reduce((a, p) => a + (secs(p) * Math.max(1, p.gpus)) / 3600, 0),
      gpuHours: gpus > 0,
      interimShare: this.design.interimShare,
      ...(this.covered.size ? { alphaRuns: this.design.alpha } : {}),
    };
  }

  /** The comparison the verdict comes from: the runs finished by the stop, at the stop's level. */
  comparison(head: SuiteResults): Comparison {
    const rec = this.record();
    const usedIds = new Set(this.used.map((r) => r.runId));
    const used = { ...head, runs: head.runs.filter((r) => usedIds.has(r.runId)) };
    const levels = { regressed: rec.level, noRegression: rec.level };
    const cmp = compareRuns(this.base, used, this.gate, this.baselineSource, {
      levels,
      infraLevel: rec.level,
      history: this.informed?.history,
      informed: this.informed?.plan,
    });
    return { ...cmp, monitor: rec, ...(this.informed ? { informed: this.informed.plan } : {}) };
  }
}

/**
 * The plan's head runs in the order monitoring needs: seed 0 of every competition first (so the
 * first look comes as early as possible), then seed 1, …; longest first within a seed. Returned as
 * the scheduler's sort key (it starts the largest `expectedSecs` first); runs keep their own data.
 */
export function seedMajorKey(run: PlannedRun, seeds: number): number {
  return (seeds - run.seed) * 1e7 + Math.min(run.expectedSecs, 1e7 - 1);
}

/**
 * The runSuite hooks that monitoring needs (src/suite/run.ts), with one log line at the stop.
 * `stopInFlight` (seeds.inFlight: stop): runs in flight at the stop are stopped too.
 */
export function monitorHooks(
  monitor: SuiteMonitor,
  seeds: number,
  log: (line: string) => void = () => {},
  stopInFlight = false,
): {
  onRunFinished: (r: RunResult) => boolean;
  onRunStopped: (run: PlannedRun) => void;
  stopInFlight: boolean;
  priority: (run: PlannedRun) => number;
  admit: (run: PlannedRun) => "start" | "wait" | "skip";
} {
  const informed = new Map(monitor.informedPlan?.competitions.map((c) => [c.id, c]) ?? []);
  return {
    admit: (run) => monitor.admit(run),
    stopInFlight,
    onRunStopped: (run) => monitor.haltedInFlight(run.runId),
    onRunFinished: (r) => {
      const before = monitor.stopped;
      const stop = monitor.add(r);
      if (stop && !before && monitor.record().decision !== "final") {
        const rec = monitor.record();
        const inFlight = stopInFlight
          ? "runs in flight are stopped, not used by the verdict"
          : "runs in flight finish, not used by the verdict";
        log(
          `[head] monitoring: ${rec.decision} after ${rec.usedRuns} of ${rec.plannedRuns} runs; no new run starts (${inFlight})`,
        );
      }
      return stop;
    },
    // The history-informed order: the most uncertain competitions first within each seed.
    priority: (run) => {
      const c = informed.get(run.competitionId);
      return c ? informedKey(c, run.seed, seeds, run.expectedSecs) : seedMajorKey(run, seeds);
    },
  };
}
