// The best any design could do against issue 30's savings target (docs/statistics.md, "What no design
// can do here"): for each ordinary cell of bench/adaptive.ts whose drop is not the tolerance, the
// fixed design's decisive rate (measured on bench/adaptive.ts's own draws), and an oracle's largest
// saving of head GPU-hours per decisive verdict at a decisive rate at least that (bench/bound/oracle.ts).
//   npm run bench -- adaptive-bound
//   ADAPTIVE_SIM_SUITES=300        suites per cell for the fixed design's decisive rate (as bench -- adaptive)
//   ADAPTIVE_BOUND_SUITES=2        drawn suites per cell for the oracle's greedy allocation (0 leaves it out)
//   ADAPTIVE_BOUND_GRID=0.04       grid step of the score (fixed design's standard deviation = 1)
//   ADAPTIVE_BOUND_HOURS=equal     the greedy allocation with equal run times (only the variances differ)
import { makeRng } from "../src/stats/distributions.js";
import { draw, drawAgent, fixed } from "./adaptive.js";
import { bestSaving, evenCurve, greedyCurve, makeGrid, thetaOf, type Look } from "./bound/oracle.js";

const ALPHA = 0.05;
const M = 22;
const SEEDS = 3;
const MAXIMA = [4, 6, 10];
/** How much less decisive than fixed 3 seeds the knife-edge column lets the oracle be. */
const EDGE = 0.01;
const AGENTS = [0.1, 0.35, 0.65];
/** bench/adaptive.ts's plan of cells, in its order (its seeds count along it); infra-error cells last. */
const PLAN: [number, number][] = [
  [0, 0],
  [0.05, 0],
  [0.1, 0],
  [0.2, 0],
  [0, 0.02],
  [0, 0.05],
];

/** The fixed design's decisive rate on bench/adaptive.ts's draws of the cell (same seeds, same count). */
function fixedRate(agent: number, drop: number, suites: number): number {
  let seed = 1;
  for (const a of AGENTS)
    for (const [d, infra] of PLAN) {
      const s = seed++;
      if (a !== agent || d !== drop || infra !== 0) continue;
      const rng = makeRng(s * 7919);
      let decisive = 0;
      for (let k = 0; k < suites; k++) {
        const v = fixed(draw(agent, drop, 0, rng)).verdict;
        if (v === "regressed" || v === "no-regression") decisive++;
      }
      return decisive / suites;
    }
  throw new Error(`no cell ${agent}/${drop}`);
}

const pct = (x: number) => `${Math.round(100 * x)}%`;

/** One oracle's saving, or why there is none. */
function oracleCell(looks: Look[], theta: number, pFixed: number, h: number) {
  return bestSaving(makeGrid(looks, theta, h), ALPHA, pFixed);
}

export async function benchAdaptiveBound(): Promise<string> {
  const suites = Number(process.env.ADAPTIVE_SIM_SUITES ?? 300);
  const drawn = Number(process.env.ADAPTIVE_BOUND_SUITES ?? 2);
  const h = Number(process.env.ADAPTIVE_BOUND_GRID ?? 0.04);
  const equalHours = process.env.ADAPTIVE_BOUND_HOURS === "equal";
  const started = Date.now();
  const ones = (x: number) => Array.from({ length: M }, () => x);
  const rows: string[][] = [];
  /** Per cell, the largest saving over the maxima: even allocation, and the greedy one's mean over drawn suites. */
  const evenBest = new Map<string, number>();
  const greedyBest = new Map<string, number>();
  const cells: string[] = [];
  let threeOver = 0;
  let edgeBest = -Infinity;
  for (const agent of AGENTS)
    for (const drop of [0, 0.1, 0.2]) {
      const name = `${Math.round(agent * 100)}% agent, ${drop ? `${drop * 100}-pt drop` : "no change"}`;
      cells.push(name);
      const p = fixedRate(agent, drop, suites);
      const se = Math.sqrt((p * (1 - p)) / suites);
      const row = [name, `${(100 * p).toFixed(1)}% ±${(100 * se).toFixed(1)}`];
      if (!(p > ALPHA)) {
        rows.push([...row, "—", "—", "—", ...MAXIMA.flatMap(() => ["—", "—"])]);
        continue;
      }
      const theta = thetaOf(p, ALPHA);
      row.push(theta.toFixed(2));
      // Max 3 seeds: the oracle's most decisive design is the fixed z test (Neyman–Pearson).
      const three = oracleCell(evenCurve(ones(1), ones(1), ones(1), SEEDS, SEEDS), theta, p, h);
      threeOver = Math.max(threeOver, three.maxPower - p);
      row.push(
        three.saving === null
          ? `0% (most decisive: ${(100 * three.maxPower).toFixed(2)}%)`
          : `${pct(three.saving)}`,
      );
      // The knife edge: the same oracle allowed one point less decisive than fixed 3 seeds.
      const edge = bestSaving(
        makeGrid(evenCurve(ones(1), ones(1), ones(1), SEEDS, SEEDS), theta, h),
        ALPHA,
        p,
        EDGE,
      );
      row.push(edge.saving === null ? "—" : pct(edge.saving));
      if (edge.saving !== null) edgeBest = Math.max(edgeBest, edge.saving);
      // The drawn suites' rates and run times, for the greedy allocation (the same draws for every maximum).
      const rng = makeRng(Math.round(agent * 1000) * 31 + Math.round(drop * 1000) + 17);
      const suitesDrawn = Array.from({ length: drawn }, () => {
        const { p: pb, q } = drawAgent(agent, drop, rng, M);
        const hours = pb.map(() => 7 + 17 * rng());
        return {
          vb: pb.map((x) => x * (1 - x)),
          vh: q.map((x) => x * (1 - x)),
          hours: equalHours ? hours.map(() => 1) : hours,
        };
      });
      // A head that never wins (the 10% agent losing every medal) has variance 0 in this model: its
      // runs carry no information, so the oracle's curve is flat and the comparison says nothing.
      const live = suitesDrawn.filter((s) => s.vh.some((v) => v > 0));
      for (const K of MAXIMA) {
        const even = oracleCell(evenCurve(ones(1), ones(1), ones(1), SEEDS, K), theta, p, h);
        const savings = live.map(
          (s) => oracleCell(greedyCurve(s.vb, s.vh, s.hours, SEEDS, K), theta, p, h).saving,
        );
        const fmt = (x: number | null) => (x === null ? "never as decisive" : pct(x));
        const ok = savings.filter((x): x is number => x !== null);
        const mean =
          ok.length === savings.length && ok.length ? ok.reduce((a, b) => a + b, 0) / ok.length : null;
        row.push(
          fmt(even.saving),
          !drawn
            ? "—"
            : !live.length
              ? "— (head never wins: no information)"
              : `${fmt(mean)}${ok.length > 1 ? ` (${pct(Math.min(...ok))}–${pct(Math.max(...ok))})` : ""}${ok.length < savings.length ? ` (${savings.length - ok.length} of ${savings.length} never as decisive)` : ""}${live.length < drawn ? ` (${drawn - live.length} of ${drawn} drawn suites left out: head never wins)` : ""}`,
        );
        if (even.saving !== null) evenBest.set(name, Math.max(evenBest.get(name) ?? -Infinity, even.saving));
        if (mean !== null) greedyBest.set(name, Math.max(greedyBest.get(name) ?? -Infinity, mean));
      }
      rows.push(row);
    }
  const header = [
    "cell",
    "fixed 3 seeds: decisive",
    "θ",
    "max 3",
    "max 3, 1 pt less decisive",
    ...MAXIMA.flatMap((K) => [`max ${K}, even`, `max ${K}, greedy allocation`]),
  ];
  const table = [header, header.map(() => "---"), ...rows].map((r) => `| ${r.join(" | ")} |`).join("\n");
  return [
    "## The best any design could do: an oracle's saving at the fixed design's decisive rate (bench/adaptive-bound.ts)",
    "",
    `Each entry is the largest saving of head GPU-hours per decisive verdict against fixed 3 seeds that a design reaches at a decisive rate at least the fixed design's, for a design that looks after every head run and **knows the cell's true drop** (and every competition's variance): the Bayes-optimal sequential test (backward induction on a grid of the score, step ${h} fixed-design standard deviations, ADAPTIVE_BOUND_GRID), its level at the tolerance exactly α = 5%, its cost minimized at that decisive rate. ${M} competitions, base: ${SEEDS} cached seeds (not counted, the same for every design), head seeds up to the maximum; ${((Date.now() - started) / 1000).toFixed(0)} s.`,
    "",
    `Model, in the same approximation as the monitor's guarantee: the suite's estimate (the mean over competitions of head minus base medal rate) after n head runs is Gaussian with independent increments in its information I(n) = m² / Σ v_i (1/n_b + 1/n_i) (a Brownian motion in I). θ is the cell's distance from the tolerance in fixed-design standard errors, taken from the fixed design's decisive rate measured on bench/adaptive.ts's draws (${suites} suites, ADAPTIVE_SIM_SUITES): θ = z(1−α) + z(p_fixed), so that the fixed z test's power Φ(θ − z(1−α)) equals that rate. The oracle makes one claim (the one the cell's truth makes right: \`no-regression\` at no change, \`regressed\` at a drop); the fixed design's decisive rate counts both. "Even": seed 0 of every competition, then seed 1, …, equal variances and run times. "Greedy allocation": per drawn suite (ADAPTIVE_BOUND_SUITES = ${drawn} per cell; rates from the agent's Beta with ρ = 0.45, head rates scaled by the drop, run times 7–24 h, as bench/adaptive.ts draws them), one run per competition first, then always the run adding the most information per GPU-hour given the true variances p(1 − p) and q(1 − q)${equalHours ? " (here with equal run times, ADAPTIVE_BOUND_HOURS=equal: only the variances differ)" : ""}, at the same θ; the mean over the drawn suites (their range in brackets). With equal run times this greedy order has the most information of any fixed allocation at every number of runs (ADAPTIVE_BOUND_HOURS=equal runs it so); with unequal run times it is a heuristic, and data-dependent allocations are not covered: the greedy columns show what knowing the variances (and run times) is worth, they are not a bound over every allocation. A suite whose head never wins (every head rate 0) is left out: in this model its head runs carry no information. Costs count head GPU-hours only, each run paid in full, no runs in flight (the oracle waits for each run before the next), so in this approximation a real design that runs seeds in turn (8 GPUs, not knowing the drop) can only do worse than the even columns.`,
    "",
    table,
    "",
    `Max 3 seeds: no design is more decisive than fixed 3 seeds (the one-sided z test on all ${M * SEEDS} head runs is the most powerful level-α test on those data, Neyman–Pearson, and a design that stops early decides on part of them); the oracle's most decisive design reaches the fixed design's rate up to grid error (at most ${(100 * Math.max(0, threeOver)).toFixed(3)} points above it), so "decisive ≥ fixed" leaves it only the fixed design: a saving of 0. "Max 3, 1 pt less decisive": the same oracle with a decisive rate allowed ${EDGE * 100} point below the fixed design's (saving against the fixed design's GPU-hours per decisive verdict, at the oracle's own rate): up to ${pct(edgeBest)}; the target's "decisive rate at least the fixed design's" is a knife edge, finer than the bench's Monte Carlo error (±2–3 points at 300 suites).`,
    "",
    summary(cells, evenBest, greedyBest),
  ].join("\n");
}

/** The closing lines: which cells reach 50% under each allocation, and whether every cell does. */
function summary(cells: string[], even: Map<string, number>, greedy: Map<string, number>): string {
  const list = (m: Map<string, number>, keep: (x: number) => boolean) =>
    [...m].filter(([, x]) => keep(x)).map(([c, x]) => `${c} ${pct(x)}`);
  const top = (m: Map<string, number>) => Math.max(...m.values());
  const evenReach = list(even, (x) => x >= 0.5);
  const greedyReach = list(greedy, (x) => x >= 0.5);
  const greedyMiss = list(greedy, (x) => x < 0.5);
  const none = cells.filter((c) => !greedy.has(c));
  const everyCell = greedyMiss.length === 0 && none.length === 0 && greedy.size > 0;
  return [
    `- Even allocation (seeds in turn, as the monitored designs run them), best over the maxima: ${evenReach.length ? `**50% or more in ${evenReach.join("; ")}**` : `below 50% in every cell (largest ${pct(top(even))})`}.`,
    greedy.size
      ? `- Greedy allocation (mean over the drawn suites), best over the maxima: ${greedyReach.length ? `**50% or more in ${greedyReach.length} of ${cells.length} cells** (${greedyReach.join("; ")})` : "below 50% in every cell"}${greedyMiss.length ? `; below 50% in ${greedyMiss.join("; ")}` : ""}${none.length ? `; no comparison in ${none.join("; ")}` : ""}.`
      : "- Greedy allocation left out (ADAPTIVE_BOUND_SUITES=0).",
    `- Any cell at 50% or more, even to this oracle: ${evenReach.length || greedyReach.length ? `**yes** (${evenReach.length ? "even allocation" : "greedy allocation only"})` : "no"}. Every cell at once (the target): ${everyCell ? "**yes, with the greedy allocation**" : "no, not even for this oracle with the greedy allocation"}.`,
  ].join("\n");
}
