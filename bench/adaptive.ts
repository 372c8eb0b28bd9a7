// Monitoring after every run vs fixed 3 seeds, on realistic profiles (issue 21, docs/statistics.md).
//   npm run bench -- adaptive              this section only
//   ADAPTIVE_SIM_SUITES=2000 …             simulated suites per cell (default 300)
//   ADAPTIVE_FUTILITY=0.2, ADAPTIVE_SHARE=0.1  try another futility threshold / interim share
//   ADAPTIVE_HISTORY_RUNS=30               base runs of the base's identity in the default-branch
//                                          history (the history-informed design; 0 leaves it out)
//   ADAPTIVE_IN_FLIGHT=finish              runs in flight at the verdict finish (default: stop, as
//                                          seeds.inFlight's default does)
//   ADAPTIVE_COVER=1                       the informed plan covers never-won competitions by a
//                                          history bound (seeds.cover; off by default)
//   ADAPTIVE_COMPETITIONS=75, ADAPTIVE_TOLERANCE=0.1   another suite size / gate tolerance
//   ADAPTIVE_INFORMED_FLOOR=2              the history-informed plan gives every run competition at
//                                          least 2 head seeds (an experiment; default 1: the plan's own)
//   ADAPTIVE_STRESS_SUITES=400             suites per sparse corner of the stress section (0: left out;
//                                          the corners set their own suite size and tolerance)
// Profile: the lite split (22 competitions), 3 base seeds from the cache (not counted: both designs
// need them), head runs on a pool of 8 GPUs. Per-competition medal probabilities ~ Beta with mean
// 10%, 35% or 65% (the range of MLE-bench's lite leaderboard) and ρ = 0.45 (heterogeneous: many
// competitions near 0 or 1). Run time per competition 7–24 h (mean per competition uniform), each
// run ±20%. A drop δ scales every competition's probability by 1 − δ/rate. Infra errors (after
// retries) hit each run independently, on both sides.
import { betaDraw, makeRng } from "../src/stats/distributions.js";
import { infraPValue } from "../src/compare/compare.js";
import { decideLook, monitorDesign, type MonitorDesign } from "../src/compare/monitor.js";
import {
  decide,
  exactTest,
  medalTBounds,
  medalVerdict,
  type ClaimTolerances,
  type Counts,
} from "../src/stats/stats.js";
import { coveredTolerances, informedKey, informedPlan } from "../src/plan/informed.js";
import { add, tally, type Tally } from "./tally.js";
import { simulatePool } from "../src/compare/pool.js";
import { percentileStress } from "./percentile-stress.js";

const ALPHA = 0.05;
const TOL = Number(process.env.ADAPTIVE_TOLERANCE ?? 0.05);
const M = Number(process.env.ADAPTIVE_COMPETITIONS ?? 22);
/** seeds.cover: never-won competitions covered by a history bound instead of head runs. */
const COVER = process.env.ADAPTIVE_COVER === "1";
const SEEDS = 3;
/** The monitored design's most seeds per side (`seeds: { max }`); its cached base has as many. */
const MAX_SEEDS = Number(process.env.ADAPTIVE_MAX_SEEDS ?? 3);
/** What the base's seeds beyond 3 cost on the default branch (mean run time 15.5 h), counted nowhere else. */
const baseNote = () =>
  MAX_SEEDS > SEEDS
    ? `; the monitored design (\`seeds: { max: ${MAX_SEEDS} }\`, ADAPTIVE_MAX_SEEDS) compares with ${MAX_SEEDS} cached base seeds, so the default branch runs ${MAX_SEEDS - SEEDS} more seeds per suite than for fixed 3 (about ${Math.round(M * (MAX_SEEDS - SEEDS) * 15.5)} GPU-hours), not counted in the table`
    : "";
const GPUS = 8;
/** Head seeds at least this many per run competition in the history-informed plan (an experiment; 1: the plan's own). */
const INFORMED_FLOOR = Number(process.env.ADAPTIVE_INFORMED_FLOOR ?? 1);
const RHO = 0.45;
const GATE = { tolerance: TOL, maxNotComparable: 0.1 };
/** seeds.inFlight: runs in flight at the verdict stop there (their time left is not spent), or finish. */
const STOP_IN_FLIGHT = (process.env.ADAPTIVE_IN_FLIGHT ?? "stop") === "stop";

interface Run {
  comp: number;
  seed: number;
  hours: number;
  medal: boolean;
  infra: boolean;
}

interface SuiteDraw {
  base: { medal: boolean; infra: boolean }[][];
  /** The base's earlier default-branch runs of its current identity (besides `base`). */
  history: { medal: boolean; infra: boolean }[][];
  head: Run[];
  hours: number[];
}

function draw(
  rate: number,
  drop: number,
  infra: number,
  rng: () => number,
  historyRuns = 0,
  maxSeeds = SEEDS,
  extraRng = rng,
): SuiteDraw {
  const { p, q } = drawAgent(rate, drop, rng);
  return drawRates(p, q, infra, rng, historyRuns, maxSeeds, extraRng);
}

/** Each competition's base medal rate (Beta, mean `rate`, ρ) and head rate (scaled by the drop). */
export function drawAgent(
  rate: number,
  drop: number,
  rng: () => number,
  m = M,
): { p: number[]; q: number[] } {
  const ab = 1 / RHO - 1;
  const p = Array.from({ length: m }, () => betaDraw(rate * ab, (1 - rate) * ab, rng));
  const mean = p.reduce((a, b) => a + b, 0) / m;
  const keep = mean > 0 ? Math.max(0, 1 - drop / mean) : 1;
  return { p, q: p.map((pi) => pi * keep) };
}

/** A suite from each competition's base rate `p` and head rate `q` (the stress corners set both). */
function drawRates(
  p: number[],
  q: number[],
  infra: number,
  rng: () => number,
  historyRuns = 0,
  maxSeeds = SEEDS,
  extraRng = rng,
): SuiteDraw {
  const hours = p.map(() => 7 + 17 * rng());
  const base = p.map((pi) =>
    Array.from({ length: SEEDS }, () => ({ medal: rng() < pi, infra: rng() < infra })),
  );
  const history = p.map((pi) =>
    Array.from({ length: Math.max(0, historyRuns - SEEDS) }, () => ({
      medal: rng() < pi,
      infra: rng() < infra,
    })),
  );
  const head: Run[] = [];
  const headSeed = (seed: number, r = rng) => {
    for (let comp = 0; comp < p.length; comp++)
      head.push({
        comp,
        seed,
        hours: hours[comp] * (0.8 + 0.4 * r()),
        medal: r() < q[comp],
        infra: r() < infra,
      });
  };
  for (let seed = 0; seed < SEEDS; seed++) headSeed(seed);
  // Seeds beyond 3 (a larger `max`) come from their own stream, so the first 3 stay the same draws.
  for (let seed = SEEDS; seed < maxSeeds; seed++) {
    p.forEach((pi, comp) => base[comp].push({ medal: extraRng() < pi, infra: extraRng() < infra }));
    headSeed(seed, extraRng);
  }
  return { base, history, head, hours };
}

type Verdict = "regressed" | "no-regression" | "inconclusive" | "error";

/** The base's first `seeds` runs per competition (the cache holds as many seeds as the design's max). */
function baseCounts(s: SuiteDraw, seeds = SEEDS) {
  return s.base.map((all) => {
    const runs = all.slice(0, seeds);
    const ok = runs.filter((r) => !r.infra);
    return { n: ok.length, x: ok.filter((r) => r.medal).length, err: runs.length - ok.length };
  });
}

/** The medal verdict of issue 30's score test, or of the t bound alone (the rule before it) for comparison. */
type Rule = "score" | "t";

/** The fixed design: all 66 head runs, the verdict at α (compareRuns' rules). */
function fixed(s: SuiteDraw, tol = TOL, rule: Rule = "score"): { verdict: Verdict; hours: number } {
  const M = s.base.length;
  const b = baseCounts(s);
  const runs = s.head.filter((r) => r.seed < SEEDS);
  const hours = runs.reduce((a, r) => a + r.hours, 0);
  const counts: Counts[] = [];
  let lost = 0;
  for (let i = 0; i < M; i++) {
    const h = runs.filter((r) => r.comp === i && !r.infra);
    if (h.length === 0) lost++;
    else if (b[i].n > 0)
      counts.push({ nb: b[i].n, xb: b[i].x, nh: h.length, xh: h.filter((r) => r.medal).length });
  }
  const headErr = runs.filter((r) => r.infra).length;
  const baseErr = b.reduce((a, c) => a + c.err, 0);
  if (lost / M > GATE.maxNotComparable || infraPValue(baseErr, M * SEEDS, headErr, runs.length) <= ALPHA)
    return { verdict: "error", hours };
  if (counts.length === 0) return { verdict: "error", hours };
  const levels = { regressed: ALPHA, noRegression: ALPHA };
  if (rule === "t")
    return {
      verdict: decide(exactTest(counts).midP, medalTBounds(counts, levels), levels, tol).verdict,
      hours,
    };
  return { verdict: medalVerdict(counts, levels, tol).verdict, hours };
}

/** What the history-informed plan changes: head seeds per competition, the base's runs, the order. */
interface Informed {
  seeds: number[];
  base: ReturnType<typeof baseCounts>;
  key: (r: Run) => number;
  /** With covered competitions: the runs' design (what the bounds leave of α) and each claim's tolerance. */
  design: MonitorDesign | null;
  claims: ClaimTolerances | null;
  covered: number;
}

/** The design knobs tried from the environment (ADAPTIVE_FUTILITY, ADAPTIVE_SHARE). */
function designOptions(): { futility?: number; interimShare?: number } {
  return {
    futility: process.env.ADAPTIVE_FUTILITY ? Number(process.env.ADAPTIVE_FUTILITY) : undefined,
    interimShare: process.env.ADAPTIVE_SHARE ? Number(process.env.ADAPTIVE_SHARE) : undefined,
  };
}

/** Competitions covered over all informed plans drawn, and the plans (seeds.cover). */
const coverCount = { covered: 0, plans: 0 };

/** The informed plan from the base's history (its current seeds and its earlier runs, one identity). */
function informedOf(s: SuiteDraw, tol = TOL): Informed {
  // The seeds come from the earlier runs only (issue 30: the plan never reads a current outcome).
  const base = s.history.map((runs) => {
    const ok = runs.filter((r) => !r.infra);
    return { n: ok.length, x: ok.filter((r) => r.medal).length, err: runs.length - ok.length };
  });
  const plan = informedPlan({
    competitions: base.map((b, i) => ({
      id: `c${i}`,
      secs: s.hours[i] * 3600,
      history: { runs: b.n, medals: b.x },
    })),
    seeds: SEEDS,
    alpha: ALPHA,
    tolerance: tol,
    cover: COVER,
  });
  const comps = plan.competitions;
  const covered = comps.filter((c) => c.covered).length;
  coverCount.covered += covered;
  coverCount.plans++;
  return {
    seeds: comps.map((c) => (c.seeds > 0 ? Math.max(INFORMED_FLOOR, c.seeds) : c.seeds)),
    // The history plans; the comparison's base side is the base's current runs (issue 30).
    base: baseCounts(s),
    key: (r) => informedKey(comps[r.comp], r.seed, SEEDS, r.hours * 3600),
    design: covered ? monitorDesign(plan.alphaRuns, designOptions()) : null,
    claims: covered ? coveredTolerances(plan, tol) : null,
    covered,
  };
}

/**
 * Monitoring: seed-major, longest first within a seed, 8 GPUs; a look after every finished run.
 * With `inf`: the informed plan's seeds, base runs (history included) and order.
 */
function monitored(
  s: SuiteDraw,
  d: MonitorDesign,
  inf?: Informed,
  tol = TOL,
  maxSeeds = SEEDS,
): { verdict: Verdict; hours: number } {
  const M = s.base.length;
  const gate = { ...GATE, tolerance: tol };
  // The history-informed plan keeps 3 seeds per side; the plain monitored design runs `maxSeeds`.
  const most = inf ? SEEDS : maxSeeds;
  const b = inf?.base ?? baseCounts(s, most);
  // The infra-error test compares with the base's current runs (the history records no infra errors).
  const current = baseCounts(s, most);
  const baseErr = current.reduce((a, c) => a + c.err, 0);
  const target = inf?.seeds ?? Array.from({ length: M }, () => most);
  // Runs planned so far per competition: the informed plan replaces a run lost to an infra error
  // with the competition's next seed (while it has one), so a 1-seed competition is not lost to one.
  const seeds = [...target];
  const head = s.head.filter((r) => r.seed < seeds[r.comp]);
  const spare = s.head
    .filter((r) => r.seed >= seeds[r.comp] && r.seed < most)
    .sort((x, y) => x.seed - y.seed);
  const queue = inf
    ? [...head].sort((x, y) => inf.key(y) - inf.key(x))
    : [...head].sort((x, y) => x.seed - y.seed || y.hours - x.hours);
  const done: Run[] = [];
  let verdict = null as Verdict | null; // set by `ended`
  const ended = (run: Run): boolean => {
    done.push(run);
    if (inf && run.infra) {
      const i = spare.findIndex((r) => r.comp === run.comp);
      if (i >= 0) {
        queue.push(spare.splice(i, 1)[0]);
        queue.sort((x, y) => inf.key(y) - inf.key(x));
        seeds[run.comp]++;
      }
    }
    const look = lookOf(done, b, baseErr, seeds, target, M * most);
    if (!look) return false;
    const out = inf?.claims
      ? decideLook(inf.design!, look, { ...gate, claims: inf.claims })
      : decideLook(d, look, gate);
    if (out.decision !== "continue") verdict = out.verdict;
    return verdict !== null;
  };
  // Each run is paid in full, less its time left if it is stopped at the verdict.
  const hours = simulatePool(queue, GPUS, (r) => r.hours, ended, STOP_IN_FLIGHT).paid;
  return { verdict: verdict ?? "inconclusive", hours };
}

function lookOf(
  done: Run[],
  b: ReturnType<typeof baseCounts>,
  baseErr: number,
  seeds: number[],
  target: number[],
  baseRuns: number,
) {
  const M = seeds.length;
  const counts: Counts[] = [];
  let notComparable = 0;
  let headOk = 0;
  for (let i = 0; i < M; i++) {
    if (target[i] === 0) continue; // covered by a history bound: never run
    const h = done.filter((r) => r.comp === i);
    const ok = h.filter((r) => !r.infra);
    headOk += ok.length;
    if (ok.length === 0) {
      if (h.length < seeds[i]) return null;
      notComparable++;
    } else if (b[i].n > 0)
      counts.push({ nb: b[i].n, xb: b[i].x, nh: ok.length, xh: ok.filter((r) => r.medal).length });
  }
  const planned = seeds.reduce((a, k) => a + k, 0);
  return {
    counts,
    notComparable,
    competitions: M,
    infra: { base: baseErr, baseRuns, head: done.length - headOk, headRuns: done.length },
    // Comparable head runs ÷ the comparable runs the plan asks for (replacements keep it ≤ 1).
    t: Math.min(1, headOk / target.reduce((a, k) => a + k, 0)),
    last: done.length === planned,
  };
}

const share = (t: Tally, k: number) => {
  const p = k / t.n;
  return `${(100 * p).toFixed(1)}% ±${(100 * Math.sqrt((p * (1 - p)) / t.n)).toFixed(1)}`;
};

/** GPU-hours per decisive verdict (ratio of means) with its delta-method Monte Carlo error. */
function perDecisive(t: Tally): { value: number; se: number } {
  const H = t.hours.reduce((a, b) => a + b, 0) / t.n;
  const D = t.decisive.reduce((a, b) => a + b, 0) / t.n;
  if (D === 0) return { value: Infinity, se: NaN };
  const R = H / D;
  const v = t.hours.reduce((a, h, i) => a + (h - R * t.decisive[i]) ** 2, 0) / (t.n - 1);
  return { value: R, se: Math.sqrt(v / t.n) / D };
}

const fmtHours = (x: { value: number; se: number }) =>
  Number.isFinite(x.value) ? `${Math.round(x.value)} ±${Math.round(x.se)}` : "∞ (none decisive)";

export { perDecisive, draw, fixed };

export interface Cell {
  agent: number;
  drop: number;
  infra: number;
  fixed: Tally;
  /** The fixed design judged by the t bound alone (the rule before issue 30), on the same draws. */
  fixedT: Tally;
  monitored: Tally;
  /** The history-informed design (null without history runs). */
  informed: Tally | null;
}

/** Every cell (agent × drop, and infra errors at no change); `only` keeps some (tests). */
export function simulate(
  suites: number,
  design = monitorDesign(ALPHA),
  only: (agent: number, drop: number, infra: number) => boolean = () => true,
  historyRuns = 0,
  maxSeeds = MAX_SEEDS,
): Cell[] {
  const cells: Cell[] = [];
  const plan: [number, number][] = [0, 0.05, 0.1, 0.2].map((d) => [d, 0]);
  plan.push([0, 0.02], [0, 0.05]);
  let seed = 1;
  for (const agent of [0.1, 0.35, 0.65])
    for (const [drop, infra] of plan) {
      const rng = makeRng(seed * 7919);
      const extra = makeRng(seed++ * 7919 + 1);
      if (!only(agent, drop, infra)) continue;
      const cell: Cell = {
        agent,
        drop,
        infra,
        fixed: tally(),
        fixedT: tally(),
        monitored: tally(),
        informed: historyRuns > 0 ? tally() : null,
      };
      for (let k = 0; k < suites; k++) {
        const s = draw(agent, drop, infra, rng, historyRuns, maxSeeds, extra);
        add(cell.fixed, fixed(s));
        add(cell.fixedT, fixed(s, TOL, "t"));
        add(cell.monitored, monitored(s, design, undefined, TOL, maxSeeds));
        if (cell.informed) add(cell.informed, monitored(s, design, informedOf(s)));
      }
      cells.push(cell);
    }
  return cells;
}

type Misses = { saving: string[]; decisive: string[]; alpha: string[]; savings: number[] };

/** One design's row of a cell, and its misses against the targets (against the fixed design). */
function row(c: Cell, t: Tally, label: string, misses: Misses | null): string[] {
  const f = perDecisive(c.fixed);
  const m = perDecisive(t);
  const saving = Number.isFinite(f.value) && Number.isFinite(m.value) ? 1 - m.value / f.value : NaN;
  const dF = c.fixed.decisive.reduce((a, b) => a + b, 0);
  const dM = t.decisive.reduce((a, b) => a + b, 0);
  const name = `${Math.round(c.agent * 100)}% agent, ${c.infra ? `no change, ${c.infra * 100}% infra errors` : c.drop ? `${c.drop * 100}-pt drop` : "no change"}`;
  if (misses) {
    misses.savings.push(saving);
    if (!(saving >= 0.5)) misses.saving.push(name);
    if (dM < dF) misses.decisive.push(`${name} (${(((dM - dF) / t.n) * 100).toFixed(1)} pts)`);
    if (c.drop === TOL && t.v.regressed / t.n > ALPHA) misses.alpha.push(`${name}: \`regressed\``);
    if (c.drop === 0.1 && t.v["no-regression"] / t.n > ALPHA)
      misses.alpha.push(`${name}: false \`no-regression\``);
    if (c.infra && t.v.error > c.fixed.v.error) misses.alpha.push(`${name}: \`error\` above fixed`);
  }
  return [
    misses ? name : "",
    label,
    fmtHours(m),
    misses && Number.isFinite(saving) ? `${Math.round(saving * 100)}%` : "—",
    share(t, dM),
    share(t, t.v.regressed),
    share(t, t.v["no-regression"]),
    share(t, t.v.error),
  ];
}

/** A sparse corner: each competition's base and head medal rate, the mean drop equal to `tol`. */
export interface Corner {
  name: string;
  tol: number;
  p: number[];
  q: number[];
}

const rep = (k: number, x: number) => Array.from({ length: k }, () => x);
/** `won` competitions always won on the base, dropping so that the suite drops by `tol`; the rest never won. */
const fewWon = (m: number, won: number, tol: number): Corner => ({
  name: `${m} × 3, ${won} always won → ${+(100 * (1 - (tol * m) / won)).toFixed(1)}%, ${m - won} never won`,
  tol,
  p: [...rep(won, 1), ...rep(m - won, 0)],
  q: [...rep(won, 1 - (tol * m) / won), ...rep(m - won, 0)],
});
/** Every competition at `rate` on the base, the head losing all of them (a drop of `rate` = the tolerance). */
const allAt = (m: number, rate: number): Corner => ({
  name: `${m} × 3, every competition ${+(rate * 100).toFixed(1)}% → 0${rate !== 0.05 ? `, tolerance ${+(rate * 100).toFixed(1)} pts` : ""}`,
  tol: rate,
  p: rep(m, rate),
  q: rep(m, 0),
});

/** The sparse corners of issue 30, each at a true drop equal to its tolerance. */
export const STRESS_CORNERS: Corner[] = [
  allAt(22, 0.05),
  fewWon(22, 6, 0.05),
  fewWon(22, 11, 0.05),
  allAt(22, 0.025),
  allAt(75, 0.05),
  fewWon(75, 20, 0.05),
];

export interface StressCell {
  corner: Corner;
  fixed: Tally;
  monitored: Tally;
  informed: Tally | null;
}

/** The three designs on the same draws of each corner (seeded per corner). */
export function stress(
  suites: number,
  historyRuns = 30,
  design = monitorDesign(ALPHA),
  corners = STRESS_CORNERS,
  maxSeeds = MAX_SEEDS,
): StressCell[] {
  return corners.map((corner, k) => {
    const rng = makeRng(104729 * (k + 1));
    const extra = makeRng(104729 * (k + 1) + 1);
    const cell: StressCell = {
      corner,
      fixed: tally(),
      monitored: tally(),
      informed: historyRuns > 0 ? tally() : null,
    };
    for (let i = 0; i < suites; i++) {
      const s = drawRates(corner.p, corner.q, 0, rng, historyRuns, maxSeeds, extra);
      add(cell.fixed, fixed(s, corner.tol));
      add(cell.monitored, monitored(s, design, undefined, corner.tol, maxSeeds));
      if (cell.informed) add(cell.informed, monitored(s, design, informedOf(s, corner.tol), corner.tol));
    }
    return cell;
  });
}

/** The stress section: each claim's rate at a drop equal to the tolerance, against α + 2 standard errors. */
function stressSection(suites: number, historyRuns: number, design: MonitorDesign): string {
  const started = Date.now();
  const cells = stress(suites, historyRuns, design);
  const limit = ALPHA + 2 * Math.sqrt((ALPHA * (1 - ALPHA)) / suites);
  const rows: string[][] = [];
  const over: string[] = [];
  for (const c of cells) {
    const f = perDecisive(c.fixed);
    const designs: [string, Tally][] = [
      ["fixed 3 seeds", c.fixed],
      ["monitored", c.monitored],
      ...(c.informed ? [["history-informed", c.informed] as [string, Tally]] : []),
    ];
    for (const [label, t] of designs) {
      const m = perDecisive(t);
      const saving =
        label !== "fixed 3 seeds" && Number.isFinite(f.value) && Number.isFinite(m.value)
          ? `${Math.round((1 - m.value / f.value) * 100)}%`
          : "—";
      const r = t.v.regressed / t.n;
      const nr = t.v["no-regression"] / t.n;
      if (r > limit) over.push(`${c.corner.name}, ${label}: \`regressed\` ${(100 * r).toFixed(1)}%`);
      if (nr > limit) over.push(`${c.corner.name}, ${label}: \`no-regression\` ${(100 * nr).toFixed(1)}%`);
      rows.push([
        label === "fixed 3 seeds" ? c.corner.name : "",
        label,
        share(t, t.v.regressed),
        share(t, t.v["no-regression"]),
        share(
          t,
          t.decisive.reduce((a, b) => a + b, 0),
        ),
        fmtHours(m),
        saving,
      ]);
    }
  }
  const header = [
    "corner (drop = tolerance)",
    "design",
    "`regressed`",
    "`no-regression`",
    "decisive",
    "head GPU-h per decisive verdict",
    "saving",
  ];
  const table = [header, header.map(() => "---"), ...rows].map((r) => `| ${r.join(" | ")} |`).join("\n");
  return [
    "### Stress: sparse corners at a true drop equal to the tolerance",
    "",
    `${suites} simulated suites per corner (ADAPTIVE_STRESS_SUITES; 0 leaves this out), the same draws for every design; tolerance 5 pts unless the corner says otherwise, α = 5%, no infra errors, base: 3 seeds from the cache (not counted; the history-informed design's ${historyRuns} history runs per competition are the default branch's, not counted either${baseNote()}), head on ${GPUS} GPUs, run times as above; ${((Date.now() - started) / 1000).toFixed(0)} s. Every suite's true mean drop equals the corner's tolerance, so each claim is wrong whenever it is made: both rates must stay ≤ α + 2 Monte Carlo standard errors (${(100 * limit).toFixed(1)}%). ± is one Monte Carlo standard error.`,
    "",
    table,
    "",
    over.length
      ? `Above α + 2 SE: ${over.join("; ")}.`
      : `Every rate ≤ α + 2 SE (${(100 * limit).toFixed(1)}%), in every corner and design.`,
    "",
    percentileSection(suites, limit),
  ].join("\n");
}

/** The percentile claims (gate.percentileTolerance) in their own sparse corners, at a drop equal to the tolerance. */
function percentileSection(suites: number, limit: number): string {
  const started = Date.now();
  const cells = percentileStress(suites);
  const pct = (k: number) => {
    const p = k / suites;
    return `${(100 * p).toFixed(1)}% ±${(100 * Math.sqrt((p * (1 - p)) / suites)).toFixed(1)}`;
  };
  const over = cells.filter((c) => c.regressed / suites > limit || c.noRegression / suites > limit);
  return [
    "#### The percentile claims (with `gate.percentileTolerance`)",
    "",
    `${suites} simulated suites per corner, α = 5%, 999 relabellings for the permutation test; ${((Date.now() - started) / 1000).toFixed(0)} s. The percentile claims are analysed once, on the runs the suite ended with; these rows are the fixed design's (3 base × 3 head runs). Each true mean drop equals the corner's tolerance, so each claim is wrong whenever it is made.`,
    "",
    "| corner (drop = tolerance) | `regressed` | `no-regression` |",
    "| --- | --- | --- |",
    ...cells.map((c) => `| ${c.corner.name} | ${pct(c.regressed)} | ${pct(c.noRegression)} |`),
    "",
    over.length
      ? `Above α + 2 SE: ${over.map((c) => c.corner.name).join("; ")}.`
      : `Every rate ≤ α + 2 SE (${(100 * limit).toFixed(1)}%), in every corner.`,
  ].join("\n");
}

export async function benchAdaptive(): Promise<string> {
  const suites = Number(process.env.ADAPTIVE_SIM_SUITES ?? 300);
  const historyRuns = Number(process.env.ADAPTIVE_HISTORY_RUNS ?? 30);
  const stressSuites = Number(process.env.ADAPTIVE_STRESS_SUITES ?? 400);
  const design = monitorDesign(ALPHA, designOptions());
  const started = Date.now();
  const cells = simulate(suites, design, undefined, historyRuns);
  const rows: string[][] = [];
  const mon: Misses = { saving: [], decisive: [], alpha: [], savings: [] };
  const inf: Misses = { saving: [], decisive: [], alpha: [], savings: [] };
  for (const c of cells) {
    if (c.informed) rows.push(row(c, c.informed, "history-informed", inf));
    const m = row(c, c.monitored, "monitored", mon);
    if (c.informed) m[0] = "";
    rows.push(m, row(c, c.fixed, "fixed 3 seeds", null));
  }
  const header = [
    "cell",
    "design",
    "head GPU-h per decisive verdict",
    "saving",
    "decisive",
    "`regressed`",
    "`no-regression`",
    "`error`",
  ];
  const table = [header, header.map(() => "---"), ...rows].map((r) => `| ${r.join(" | ")} |`).join("\n");
  return [
    "## Monitoring after every run and the history-informed plan vs fixed 3 seeds (bench/adaptive.ts)",
    "",
    `${suites} simulated suites per cell (ADAPTIVE_SIM_SUITES), ${M === 22 ? "lite split (22 competitions)" : `${M} competitions (ADAPTIVE_COMPETITIONS)`}, base: 3 seeds from the cache (not counted${baseNote()}), head on ${GPUS} GPUs, runs in flight at the verdict ${STOP_IN_FLIGHT ? "stopped there (seeds.inFlight: stop, the default)" : "finishing (ADAPTIVE_IN_FLIGHT=finish)"}; tolerance ${+(TOL * 100).toFixed(1)} pts, α = 5% (${design.interimShare * 100}% of it for the looks before the last), futility below a ${design.futility * 100}% projected chance; ${((Date.now() - started) / 1000).toFixed(0)} s. ± is one Monte Carlo standard error. "Saving" is 1 − the design's ÷ the fixed design's GPU-hours per decisive verdict (\`regressed\` or \`no-regression\`).`,
    historyRuns > 0
      ? `History-informed: the base's default-branch history holds ${historyRuns} runs per competition of its current identity (ADAPTIVE_HISTORY_RUNS; its 3 current seeds among them, with the same infra-error rate); they plan the head only (the comparison's base side is the base's 3 current runs), each competition gets ${INFORMED_FLOOR > 1 ? `${INFORMED_FLOOR}–3 head seeds (at least ${INFORMED_FLOOR}: ADAPTIVE_INFORMED_FLOOR)` : "1–3 head seeds"} by the spread of its history (plan/informed.ts), the most uncertain competitions start first within each seed, and the head is monitored after every run as above. ${COVER ? `Never-won competitions covered by a history bound (ADAPTIVE_COVER=1, seeds.cover): ${(coverCount.covered / Math.max(1, coverCount.plans)).toFixed(2)} per suite on average.` : "No competition is covered by a bound (seeds.cover is off by default; docs/statistics.md says why)."}`
      : "History-informed design left out (ADAPTIVE_HISTORY_RUNS=0).",
    "",
    table,
    "",
    "Targets (issue 21): ≥ 50% fewer GPU-hours per decisive verdict, decisive rate ≥ fixed, α held.",
    "",
    ...(historyRuns > 0 ? [closing("History-informed", inf)] : []),
    closing("Monitored (no history)", mon),
    "",
    "A drop larger than an agent's own rate cannot happen: the 10% agent's 10- and 20-point cells lose every medal (a drop of its drawn rate).",
    "",
    ruleLine(cells),
    ...(stressSuites > 0 ? ["", stressSection(stressSuites, historyRuns, design)] : []),
  ].join("\n");
}

/** The fixed design's decisive rate against the t bound alone on the same draws (issue 30's 2-point target). */
function ruleLine(cells: Cell[]): string {
  const pts = (t: Tally) => (100 * t.decisive.reduce((a, b) => a + b, 0)) / t.n;
  const parts = cells.map((c) => {
    const name = `${Math.round(c.agent * 100)}% agent, ${c.infra ? `no change, ${c.infra * 100}% infra errors` : c.drop ? `${c.drop * 100}-pt drop` : "no change"}`;
    const d = pts(c.fixed) - pts(c.fixedT);
    return `${name} ${pts(c.fixed).toFixed(1)}% vs ${pts(c.fixedT).toFixed(1)}% (${d >= 0 ? "+" : ""}${d.toFixed(1)} pts)`;
  });
  const within = cells.filter((c) => pts(c.fixed) - pts(c.fixedT) >= -2).length;
  return `Fixed 3 seeds, the score test (today's rule) against the t bound alone (the rule before issue 30) on the same draws, decisive rate: ${parts.join("; ")}. ${within} of ${cells.length} cells are at most 2 points below the t bound alone.`;
}

function closing(name: string, misses: Misses): string {
  const ok = misses.savings.filter(Number.isFinite);
  const n = misses.savings.length;
  const range = ok.length
    ? `${Math.round(Math.min(...ok) * 100)}–${Math.round(Math.max(...ok) * 100)}%`
    : "—";
  return [
    `${name}:`,
    `- GPU-hours per decisive verdict: ${range} fewer; ${misses.saving.length} of ${n} cells miss the 50% target${misses.saving.length && misses.saving.length < n ? ` (${misses.saving.join("; ")})` : ""}.`,
    `- Decisive rate below fixed (point estimate) in ${misses.decisive.length} of ${n} cells${misses.decisive.length ? `: ${misses.decisive.join("; ")}` : ""}.`,
    `- α: ${misses.alpha.length ? `above target in ${misses.alpha.join("; ")}` : "`regressed` at a drop equal to the tolerance ≤ α, false `no-regression` at a 10-point drop ≤ α, and `error` with infra noise ≤ the fixed design's, in every cell"}.`,
  ].join("\n");
}
