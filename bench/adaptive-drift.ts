// History that drifted, and copies in the history (issue 30): the stress rows of the adaptive bench.
//   npm run bench -- adaptive-drift        this section only
//   ADAPTIVE_DRIFT_SUITES=2000 …           simulated suites per cell (default 300)
// Profile as bench/adaptive.ts: the lite split (22 competitions), 3 base seeds from the cache (not
// counted), head on 8 GPUs, per-competition medal rates ~ Beta (mean 10%, 35%, 65%; ρ = 0.45),
// runs 7–24 h, runs in flight at the verdict stopped there. The head's true drop equals the
// tolerance (5 points), where each claim may be wrong at most α.
//  - drift ±5: the history's 27 earlier runs per competition come from rates 5 points above
//    (+5: the history was better than the base is today) or below the base's rates today, scaled
//    as a drop is (every competition's rate times the same factor);
//  - copies: the history holds the base's current 3 runs ten times over (runs reused by identity
//    and recorded again), 30 "runs" per competition of which 3 exist.
// Designs: fixed 3 seeds; monitored (no history); "pooled, unchecked" (the history on the base side
// as before issue 30, copies counted as runs); and the history-informed design as it is now (copies
// counted once, the drift check, the history planning the head's seeds and order, the comparison on
// the current base runs).
import { betaDraw, makeRng } from "../src/stats/distributions.js";
import { decideLook, monitorDesign, type MonitorDesign } from "../src/compare/monitor.js";
import { medalVerdict, type Counts } from "../src/stats/stats.js";
import { informedKey, informedPlan } from "../src/plan/informed.js";
import { driftCheck, type DriftInput } from "../src/stats/drift.js";
import { DRIFT_SHARE } from "../src/session/informed.js";
import { add, tally, type Tally } from "./tally.js";
import { simulatePool } from "../src/compare/pool.js";

const ALPHA = 0.05;
const TOL = 0.05;
const M = 22;
const SEEDS = 3;
const GPUS = 8;
const RHO = 0.45;
const GATE = { tolerance: TOL, maxNotComparable: 0.1 };
const HISTORY = 30;

type Verdict = "regressed" | "no-regression" | "inconclusive" | "error";
interface Run {
  comp: number;
  seed: number;
  hours: number;
  medal: boolean;
}
export type HistoryKind = "none" | "same" | "drift+5" | "drift-5" | "copies";
interface Draw {
  /** The base's current runs: medals per competition. */
  base: boolean[][];
  /** The history's earlier runs as recorded (copies included), per competition. */
  history: boolean[][];
  /** Distinct earlier runs (what counting each run once leaves). */
  distinct: boolean[][];
  head: Run[];
}

function draw(rate: number, drop: number, kind: HistoryKind, rng: () => number): Draw {
  const ab = 1 / RHO - 1;
  const p = Array.from({ length: M }, () => betaDraw(rate * ab, (1 - rate) * ab, rng));
  const mean = p.reduce((a, b) => a + b, 0) / M;
  const scale = (d: number) => (mean > 0 ? Math.max(0, 1 + d / mean) : 1);
  const keep = scale(-drop);
  const shift = kind === "drift+5" ? scale(0.05) : kind === "drift-5" ? scale(-0.05) : 1;
  const hours = p.map(() => 7 + 17 * rng());
  const base = p.map((pi) => Array.from({ length: SEEDS }, () => rng() < pi));
  const earlier = p.map((pi) =>
    Array.from(
      { length: kind === "none" || kind === "copies" ? 0 : HISTORY - SEEDS },
      () => rng() < Math.min(1, pi * shift),
    ),
  );
  // Copies: the current runs recorded again by each of 9 earlier suites that reused them.
  const history = kind === "copies" ? base.map((b) => Array.from({ length: 9 }, () => b).flat()) : earlier;
  const head: Run[] = [];
  for (let seed = 0; seed < SEEDS; seed++)
    for (let comp = 0; comp < M; comp++)
      head.push({ comp, seed, hours: hours[comp] * (0.8 + 0.4 * rng()), medal: rng() < p[comp] * keep });
  return { base, history, distinct: earlier, head };
}

const count = (rs: boolean[]) => ({ n: rs.length, x: rs.filter(Boolean).length });

function fixed(s: Draw): { verdict: Verdict; hours: number } {
  const counts: Counts[] = s.base.map((b, i) => {
    const h = s.head.filter((r) => r.comp === i);
    return { nb: b.length, xb: count(b).x, nh: h.length, xh: h.filter((r) => r.medal).length };
  });
  const levels = { regressed: ALPHA, noRegression: ALPHA };
  return {
    verdict: medalVerdict(counts, levels, TOL).verdict,
    hours: s.head.reduce((a, r) => a + r.hours, 0),
  };
}

/** A design's inputs: base counts per competition, head seeds per competition, the run order. */
interface Side {
  base: { n: number; x: number }[];
  seeds: number[];
  key: ((r: Run) => number) | null;
}

function monitored(s: Draw, d: MonitorDesign, side: Side): { verdict: Verdict; hours: number } {
  const queue = s.head
    .filter((r) => r.seed < side.seeds[r.comp])
    .sort(side.key ? (x, y) => side.key!(y) - side.key!(x) : (x, y) => x.seed - y.seed || y.hours - x.hours);
  const target = side.seeds.reduce((a, k) => a + k, 0);
  const done: Run[] = [];
  let verdict = null as Verdict | null; // set by `ended`
  const ended = (run: Run): boolean => {
    done.push(run);
    const counts: Counts[] = [];
    for (let i = 0; i < M; i++) {
      const h = done.filter((r) => r.comp === i);
      if (h.length === 0) return false;
      counts.push({
        nb: side.base[i].n,
        xb: side.base[i].x,
        nh: h.length,
        xh: h.filter((r) => r.medal).length,
      });
    }
    const look = {
      counts,
      notComparable: 0,
      competitions: M,
      infra: { base: 0, baseRuns: M * SEEDS, head: 0, headRuns: done.length },
      t: Math.min(1, done.length / target),
      last: done.length === target,
    };
    const out = decideLook(d, look, GATE);
    if (out.decision !== "continue") verdict = out.verdict;
    return verdict !== null;
  };
  const hours = simulatePool(queue, GPUS, (r) => r.hours, ended, true).paid;
  return { verdict: verdict ?? "inconclusive", hours };
}

const plain = (s: Draw): Side => ({ base: s.base.map(count), seeds: s.base.map(() => SEEDS), key: null });

/** The plan from a history (its runs with the current ones), and the base side it is compared with. */
function planned(s: Draw, earlier: boolean[][], pooled: boolean): Side | null {
  const all = s.base.map((b, i) => [...b, ...earlier[i]]);
  // Before issue 30 the seeds came from every run; now from the earlier runs only (at least 20 in all).
  const from = pooled ? all : all.map((rs, i) => (rs.length >= 20 ? earlier[i] : []));
  const plan = informedPlan({
    minRuns: pooled ? 20 : 1,
    competitions: from.map((rs, i) => ({
      id: `c${i}`,
      secs: 3600,
      history: { runs: rs.length, medals: count(rs).x },
    })),
    seeds: SEEDS,
    alpha: ALPHA,
    tolerance: TOL,
  });
  if (plan.competitions.every((c) => c.rate === null)) return null;
  const comps = plan.competitions;
  return {
    base: (pooled ? all : s.base).map(count),
    seeds: comps.map((c) => c.seeds),
    key: (r) => informedKey(comps[r.comp], r.seed, SEEDS, r.hours * 3600),
  };
}

/** Before issue 30: every recorded run on the base side, copies included, nothing checked. */
const unchecked = (s: Draw): Side => planned(s, s.history, true) ?? plain(s);

/** Now: each run once, the drift check, the plan from the history, the current runs as the base side. */
function informed(s: Draw): Side {
  const inputs: DriftInput[] = s.base.map((b, i) => ({
    id: `c${i}`,
    history: { runs: s.distinct[i].length, medals: count(s.distinct[i]).x },
    current: { runs: b.length, medals: count(b).x },
  }));
  if (!driftCheck(inputs, ALPHA * DRIFT_SHARE).passed) return plain(s);
  return planned(s, s.distinct, false) ?? plain(s);
}

export interface DriftCell {
  agent: number;
  drop: number;
  kind: HistoryKind;
  fixed: Tally;
  monitored: Tally;
  unchecked: Tally;
  informed: Tally;
}

/** The stress cells (agent × history kind at a drop equal to the tolerance, and at no change). */
export function simulateDrift(
  suites: number,
  only: (agent: number, drop: number, kind: HistoryKind) => boolean = () => true,
): DriftCell[] {
  const d = monitorDesign(ALPHA);
  const cells: DriftCell[] = [];
  let seed = 1;
  for (const agent of [0.1, 0.35, 0.65])
    for (const drop of [TOL, 0])
      for (const kind of ["same", "drift+5", "drift-5", "copies"] as HistoryKind[]) {
        const rng = makeRng(seed++ * 104_729);
        if (!only(agent, drop, kind)) continue;
        const cell: DriftCell = {
          agent,
          drop,
          kind,
          fixed: tally(),
          monitored: tally(),
          unchecked: tally(),
          informed: tally(),
        };
        for (let k = 0; k < suites; k++) {
          const s = draw(agent, drop, kind, rng);
          add(cell.fixed, fixed(s));
          add(cell.monitored, monitored(s, d, plain(s)));
          add(cell.unchecked, monitored(s, d, unchecked(s)));
          add(cell.informed, monitored(s, d, informed(s)));
        }
        cells.push(cell);
      }
  return cells;
}

const pct = (t: Tally, k: number) => {
  const p = k / t.n;
  return `${(100 * p).toFixed(1)}% ±${(100 * Math.sqrt((p * (1 - p)) / t.n)).toFixed(1)}`;
};
function perDecisive(t: Tally): number {
  const H = t.hours.reduce((a, b) => a + b, 0) / t.n;
  const D = t.decisive.reduce((a, b) => a + b, 0) / t.n;
  return D > 0 ? H / D : Infinity;
}

export async function benchAdaptiveDrift(): Promise<string> {
  const suites = Number(process.env.ADAPTIVE_DRIFT_SUITES ?? 300);
  const started = Date.now();
  const cells = simulateDrift(suites);
  const rows: string[] = [];
  for (const c of cells) {
    const f = perDecisive(c.fixed);
    for (const [label, t] of [
      ["history-informed (checked, current base side)", c.informed],
      ["pooled, unchecked (before issue 30)", c.unchecked],
      ["monitored", c.monitored],
      ["fixed 3 seeds", c.fixed],
    ] as [string, Tally][]) {
      const h = perDecisive(t);
      const saving = Number.isFinite(f) && Number.isFinite(h) ? `${Math.round((1 - h / f) * 100)}%` : "—";
      const name =
        t === c.informed
          ? `${Math.round(c.agent * 100)}% agent, ${c.drop ? "drop = tolerance" : "no change"}, history ${c.kind}`
          : "";
      rows.push(
        `| ${name} | ${label} | ${Number.isFinite(h) ? Math.round(h) : "∞"} | ${t === c.fixed ? "—" : saving} | ${pct(
          t,
          t.decisive.reduce((a, b) => a + b, 0),
        )} | ${pct(t, t.v.regressed)} | ${pct(t, t.v["no-regression"])} |`,
      );
    }
  }
  return [
    "## History drift and copies in the history (bench/adaptive-drift.ts)",
    "",
    `${suites} simulated suites per cell (ADAPTIVE_DRIFT_SUITES), lite split (22 competitions), base: 3 current seeds from the cache (not counted), head on ${GPUS} GPUs, runs in flight at the verdict stopped; tolerance 5 pts, α = 5%; ${((Date.now() - started) / 1000).toFixed(0)} s. ± is one Monte Carlo standard error. History: 27 earlier runs per competition of the current identity from the same rates (same), from rates 5 points above (drift+5) or below (drift-5) the base's today, or the base's 3 current runs recorded ten times (copies). At "drop = tolerance" each claim may be wrong at most α: \`regressed\` and \`no-regression\` are both errors there.`,
    "",
    "| cell | design | head GPU-h per decisive verdict | saving vs fixed | decisive | `regressed` | `no-regression` |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}
