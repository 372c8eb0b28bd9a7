// How far the change a monitored suite reports at an early stop lies from the true change (issue 30).
//   npm run bench -- stop-bias             this section only
//   STOP_BIAS_SUITES=1000 …                simulated suites per cell (default 400)
// Profile as bench/adaptive.ts: the lite split (22 competitions × 3 seeds, the base's 3 seeds from the
// cache), per-competition medal probabilities ~ Beta with mean 10%, 35% or 65% and ρ = 0.45, run
// times 7–24 h, head runs on 8 GPUs seed-major (longest first), no infrastructure errors. A drop δ
// scales every competition's probability by 1 − δ/rate. Each suite's true change is the mean over
// competitions of (head probability − base probability); the error is the reported change (the mean
// over competitions of head rate − base rate, from the runs the verdict used) minus it, in points.
// The fixed design's error on the same draws is the reference (unbiased).
import { betaDraw, makeRng } from "../src/stats/distributions.js";
import { decideLook, monitorDesign } from "../src/compare/monitor.js";
import type { Counts } from "../src/stats/stats.js";
import { simulatePool } from "../src/compare/pool.js";

const M = 22;
const SEEDS = 3;
const GPUS = 8;
const RHO = 0.45;
const TOLERANCE = 0.05;

interface HeadRun {
  comp: number;
  seed: number;
  hours: number;
  medal: boolean;
}

const change = (c: Counts[]) => c.reduce((a, x) => a + x.xh / x.nh - x.xb / x.nb, 0) / c.length;

/** Mean and standard error, in points ("—" without enough values). */
function meanText(xs: number[]): string {
  if (xs.length === 0) return "—";
  const mu = xs.reduce((a, b) => a + b, 0) / xs.length;
  if (xs.length < 2) return `${(mu * 100).toFixed(1)}`;
  const v = xs.reduce((a, b) => a + (b - mu) ** 2, 0) / (xs.length - 1);
  return `${mu >= 0 ? "+" : "−"}${Math.abs(mu * 100).toFixed(1)} ±${(Math.sqrt(v / xs.length) * 100).toFixed(1)}`;
}

/** One cell: the fixed design's error, and the monitored one's at early `regressed` / `no-regression` stops. */
function cell(rate: number, drop: number, suites: number, seed: number) {
  const rng = makeRng(seed);
  const design = monitorDesign(0.05);
  const fixed: number[] = [];
  const early = { regressed: [] as number[], "no-regression": [] as number[] };
  for (let k = 0; k < suites; k++) {
    const ab = 1 / RHO - 1;
    const p = Array.from({ length: M }, () => betaDraw(rate * ab, (1 - rate) * ab, rng));
    const mean = p.reduce((a, b) => a + b, 0) / M;
    const keep = mean > 0 ? Math.max(0, 1 - drop / mean) : 1;
    const truth = p.reduce((a, pi) => a + (pi * keep - pi), 0) / M;
    const hours = p.map(() => 7 + 17 * rng());
    const base = p.map((pi) => Array.from({ length: SEEDS }, () => rng() < pi).filter(Boolean).length);
    const head: HeadRun[] = [];
    for (let s = 0; s < SEEDS; s++)
      for (let c = 0; c < M; c++)
        head.push({ comp: c, seed: s, hours: hours[c] * (0.8 + 0.4 * rng()), medal: rng() < p[c] * keep });
    const countsOf = (done: HeadRun[]): Counts[] | null => {
      const out: Counts[] = [];
      for (let c = 0; c < M; c++) {
        const h = done.filter((r) => r.comp === c);
        if (!h.length) return null;
        out.push({ nb: SEEDS, xb: base[c], nh: h.length, xh: h.filter((r) => r.medal).length });
      }
      return out;
    };
    fixed.push(change(countsOf(head)!) - truth);
    const queue = [...head].sort((x, y) => x.seed - y.seed || y.hours - x.hours);
    const done: HeadRun[] = [];
    const ended = (run: HeadRun): boolean => {
      done.push(run);
      const counts = countsOf(done);
      if (!counts) return false;
      const last = done.length === head.length;
      const infra = { base: 0, baseRuns: M * SEEDS, head: 0, headRuns: done.length };
      const look = { counts, notComparable: 0, competitions: M, infra, t: done.length / head.length, last };
      const out = decideLook(design, look, { tolerance: TOLERANCE, maxNotComparable: 0.1 });
      if (out.decision === "continue") return false;
      if (!last && (out.decision === "regressed" || out.decision === "no-regression"))
        early[out.decision].push(change(counts) - truth);
      return true;
    };
    simulatePool(queue, GPUS, (r) => r.hours, ended, true);
  }
  return { fixed, early };
}

export async function benchStopBias(): Promise<string> {
  const suites = Number(process.env.STOP_BIAS_SUITES ?? 400);
  const rows: string[] = [];
  let seed = 1;
  for (const rate of [0.1, 0.35, 0.65])
    for (const drop of [0, 0.05, 0.1, 0.2]) {
      if (drop >= rate) continue;
      const c = cell(rate, drop, suites, seed++);
      const n = (xs: number[]) => `${xs.length}`;
      rows.push(
        `| ${rate * 100}% | ${drop * 100} | ${meanText(c.fixed)} | ${n(c.early.regressed)} | ${meanText(c.early.regressed)} | ${n(c.early["no-regression"])} | ${meanText(c.early["no-regression"])} |`,
      );
    }
  return [
    "## The change reported at an early stop (monitoring after every run)",
    "",
    `Lite split, 22 × 3, ${suites} suites per cell: the reported change minus the suite's true change, in points (mean ± its standard error), for the fixed design (every run) and for monitored suites that stopped before the last look.`,
    "",
    "| agent | drop (pts) | fixed design | early `regressed` stops | their error | early `no-regression` stops | their error |",
    "| ----- | ---------- | ------------ | ----------------------- | ----------- | --------------------------- | ----------- |",
    ...rows,
  ].join("\n");
}
