// Curtailment: what a design exactly as decisive as fixed 3 seeds can save (issue 30,
// docs/statistics.md "What no design can do here").
//   npm run bench -- adaptive-curtail      this section only
//   ADAPTIVE_CURTAIL_SUITES=2000 …         simulated suites per cell (default 300)
// The Brownian bound (bench/adaptive-bound.ts) says a design with at most 3 head seeds that is as
// decisive as fixed 3 seeds saves nothing. Runs are discrete, though: once no outcome of the head
// runs still to finish can change the fixed design's verdict, the rest need not run. This section
// measures that saving on the adaptive bench's profile (its `draw`: 22 competitions, 3 cached base
// seeds, head seed-major and longest first on 8 GPUs, runs in flight stopped), without infra errors:
// with them every pattern of failures among the remaining runs would have to be checked too.
// "Settled" checks the two extremes (every remaining run wins, every one misses); that covers every
// completion because one more head medal never moves the verdict toward `regressed` (checked by
// test/compare/curtail.test.ts on random completions, not proved).
import { makeRng } from "../src/stats/distributions.js";
import { medalVerdict, type Counts, type Verdict } from "../src/stats/stats.js";
import { draw, perDecisive } from "./adaptive.js";
import { add, tally, type Tally } from "./tally.js";
import { simulatePool } from "../src/compare/pool.js";

const ALPHA = 0.05;
const TOL = 0.05;
const SEEDS = 3;
const GPUS = 8;
const LEVELS = { regressed: ALPHA, noRegression: ALPHA };

type Suite = ReturnType<typeof draw>;

/** The base's medals per competition (its first 3 seeds). */
const baseWins = (s: Suite) => s.base.map((runs) => runs.slice(0, SEEDS).filter((r) => r.medal).length);

/** The fixed design's medal verdict when competition i's head has won `xh[i]` of its 3 runs. */
export function verdictWith(s: Suite, xh: number[], xb = baseWins(s)): Verdict {
  const counts: Counts[] = xb.map((x, i) => ({ nb: SEEDS, xb: x, nh: SEEDS, xh: xh[i] }));
  return medalVerdict(counts, LEVELS, TOL).verdict;
}

export interface Curtailed {
  verdict: Verdict;
  /** GPU-hours paid: the runs started, less the time left of those stopped at the settling. */
  hours: number;
  /** GPU-hours of all 66 head runs (the fixed design). */
  full: number;
  /** Medals won per competition when the verdict settled (null: it settled only at the end). */
  settledAt: { won: number[]; ran: number[] } | null;
}

/** Fixed 3 seeds, stopped as soon as the remaining head runs cannot change its verdict. */
export function curtailed(s: Suite): Curtailed {
  const m = s.base.length;
  const runs = s.head.filter((r) => r.seed < SEEDS);
  const queue = [...runs].sort((x, y) => x.seed - y.seed || y.hours - x.hours);
  const won = Array<number>(m).fill(0);
  const ran = Array<number>(m).fill(0);
  const xb = baseWins(s);
  let settled = null as Verdict | null; // set by `ended`
  let settledAt: Curtailed["settledAt"] = null;
  const ended = (run: (typeof runs)[number]): boolean => {
    ran[run.comp]++;
    if (run.medal) won[run.comp]++;
    const low = verdictWith(s, won, xb);
    if (
      low !==
      verdictWith(
        s,
        won.map((x, i) => x + SEEDS - ran[i]),
        xb,
      )
    )
      return false;
    settled = low;
    if (ran.some((k) => k < SEEDS)) settledAt = { won: [...won], ran: [...ran] };
    return true;
  };
  const hours = simulatePool(queue, GPUS, (r) => r.hours, ended, true).paid;
  return { verdict: settled!, hours, full: runs.reduce((a, r) => a + r.hours, 0), settledAt };
}

export interface CurtailCell {
  agent: number;
  drop: number;
  fixed: Tally;
  curtailed: Tally;
  /** Suites whose curtailed verdict differs from the fixed design's (0 when settling is exact). */
  differ: number;
}

export function simulateCurtail(
  suites: number,
  agents = [0.1, 0.35, 0.65],
  drops = [0, 0.05, 0.1, 0.2],
): CurtailCell[] {
  const cells: CurtailCell[] = [];
  let seed = 1;
  for (const agent of agents)
    for (const drop of drops) {
      const rng = makeRng(seed++ * 6151);
      const cell: CurtailCell = { agent, drop, fixed: tally(), curtailed: tally(), differ: 0 };
      for (let k = 0; k < suites; k++) {
        const s = draw(agent, drop, 0, rng);
        const c = curtailed(s);
        const all = verdictWith(
          s,
          s.base.map((_, i) => s.head.filter((r) => r.comp === i && r.seed < SEEDS && r.medal).length),
        );
        add(cell.fixed, { verdict: all, hours: c.full });
        add(cell.curtailed, c);
        if (c.verdict !== all) cell.differ++;
      }
      cells.push(cell);
    }
  return cells;
}

export async function benchAdaptiveCurtail(): Promise<string> {
  const suites = Number(process.env.ADAPTIVE_CURTAIL_SUITES ?? 300);
  const started = Date.now();
  const cells = simulateCurtail(suites);
  const savings: number[] = [];
  const rows = cells.map((c) => {
    const f = perDecisive(c.fixed).value;
    const h = perDecisive(c.curtailed).value;
    const saving = 1 - h / f;
    if (Number.isFinite(saving)) savings.push(saving);
    const decisive = (100 * c.fixed.decisive.reduce((a, b) => a + b, 0)) / c.fixed.n;
    return `| ${Math.round(c.agent * 100)}% agent, ${c.drop ? `${Math.round(c.drop * 100)}-pt drop` : "no change"} | ${decisive.toFixed(1)}% | ${Number.isFinite(f) ? Math.round(f) : "∞"} | ${Number.isFinite(h) ? Math.round(h) : "∞"} | ${Number.isFinite(saving) ? `${(100 * saving).toFixed(1)}%` : "—"} | ${c.differ} |`;
  });
  const range = savings.length
    ? `${(100 * Math.min(...savings)).toFixed(1)}–${(100 * Math.max(...savings)).toFixed(1)}%`
    : "—";
  const differ = cells.reduce((a, c) => a + c.differ, 0);
  return [
    "## Curtailment: fixed 3 seeds stopped once its verdict is settled (bench/adaptive-curtail.ts)",
    "",
    `${suites} simulated suites per cell (ADAPTIVE_CURTAIL_SUITES), the adaptive bench's profile without infra errors (22 competitions, 3 cached base seeds not counted, head seed-major and longest first on ${GPUS} GPUs, runs in flight stopped at the settling); tolerance 5 pts, α = 5%; ${((Date.now() - started) / 1000).toFixed(0)} s. A verdict is settled when the head's remaining runs all winning and all missing give the same verdict; the curtailed design is meant to give the fixed design's verdict on every suite, and the last column counts the suites where the two differ.`,
    "",
    "| cell | decisive (both) | fixed: head GPU-h per decisive verdict | curtailed | saving | verdicts that differ |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows,
    "",
    `Curtailment saves ${range} of the head's GPU-hours per decisive verdict with the fixed design's verdicts (${differ} of ${cells.length * suites} suites differ), so at its decisive rate: a saving the Brownian bound (adaptive-bound) cannot see, since in that approximation no verdict is settled before the last run; and far from the 50% target. Medalist does not curtail: with infra errors the check would have to cover every pattern of failures among the remaining runs.`,
  ].join("\n");
}
