// Simulation of the verdict's error rates, power and MDE (docs/statistics.md; monitoring: bench/adaptive.ts).
//   npm run stats-sim            full size; rewrites the tables in docs/statistics.md
//   STATS_SIM_SUITES=200 ...     smaller (quick) run; `npm run bench` includes this section
// Agents are heterogeneous: per-competition medal probabilities ~ Beta(0.3, 0.9) (many near 0,
// some near 1), 8% invalid submissions (no medal, percentile 0), percentiles consistent with
// medals (a medal is a percentile ≥ 0.9). A drop of δ scales every competition's medal probability
// by 1 − δ / (suite's medal rate), so the suite's rate falls by exactly δ (capped by the rate).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { betaDraw, binomialDraw, makeRng, normalCdf, normalDraw } from "../src/stats/distributions.js";
import { analyzeMetric, medalVerdict, type Counts, type Levels } from "../src/stats/stats.js";

const ALPHA = 0.05;
const TOL = 0.05;
const VALID = 0.92;
const DESIGNS: [number, number][] = [
  [5, 1],
  [5, 3],
  [22, 1],
  [22, 3],
  [75, 3],
];
const LEVELS: Levels = { regressed: ALPHA, noRegression: ALPHA };

interface Size {
  suites: number;
  mdeSuites: number;
  mdeSims: number;
}

function size(): Size {
  const suites = Number(process.env.STATS_SIM_SUITES ?? 2000);
  return {
    suites,
    mdeSuites: Number(process.env.STATS_SIM_MDE_SUITES ?? Math.max(8, Math.round(suites / 50))),
    mdeSims: Number(process.env.STATS_SIM_MDE_SIMS ?? Math.max(200, Math.round(suites / 5))),
  };
}

/** Medal probability of a valid run, per competition. */
function agent(m: number, rng: () => number): number[] {
  return Array.from({ length: m }, () => betaDraw(0.3, 0.9, rng));
}

/** Scale factor for a suite-level drop (capped: at most every medal is lost). */
function keepFor(p: number[], drop: number): number {
  const rate = (VALID * p.reduce((a, b) => a + b, 0)) / p.length;
  return rate > 0 ? Math.max(0, 1 - drop / rate) : 1;
}

function counts(p: number[], seeds: number, keep: number, rng: () => number, headSeeds = seeds): Counts[] {
  return p.map((pi) => ({
    nb: seeds,
    xb: binomialDraw(seeds, VALID * pi, rng),
    nh: headSeeds,
    xh: binomialDraw(headSeeds, VALID * pi * keep, rng),
  }));
}

/** Share of simulated suites whose verdict is `verdict` at a given drop. */
export function rate(
  m: number,
  seeds: number,
  drop: number,
  verdict: string,
  n: number,
  seed: number,
  tolerance = TOL,
): number {
  const rng = makeRng(seed);
  let hits = 0;
  for (let r = 0; r < n; r++) {
    const p = agent(m, rng);
    if (medalVerdict(counts(p, seeds, keepFor(p, drop), rng), LEVELS, tolerance).verdict === verdict) hits++;
  }
  return hits / n;
}

/** Drop at which `regressed` fires 80% of the time (bisection on the simulated rate). */
function simulatedMde(m: number, seeds: number, n: number): number | null {
  if (rate(m, seeds, 0.9, "regressed", n, 11) < 0.8) return null;
  let lo = 0;
  let hi = 0.9;
  while (hi - lo > 0.005) {
    const mid = (lo + hi) / 2;
    if (rate(m, seeds, mid, "regressed", n, 11) >= 0.8) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** Median of the MDE the report prints, over suites run without change. */
function printedMde(m: number, seeds: number, s: Size): { median: number | null; missing: number } {
  const rng = makeRng(5);
  const values: number[] = [];
  let missing = 0;
  for (let r = 0; r < s.mdeSuites; r++) {
    const p = agent(m, rng);
    const c = counts(p, seeds, 1, rng);
    const samples = c.map((x, i) => ({
      competitionId: `c${i}`,
      base: Array.from({ length: x.nb }, (_, j) => (j < x.xb ? 1 : 0)),
      head: Array.from({ length: x.nh }, (_, j) => (j < x.xh ? 1 : 0)),
    }));
    const a = analyzeMetric("medal", samples, {
      alpha: ALPHA,
      tolerance: TOL,
      seed: r + 1,
      simulations: s.mdeSims,
      drops: [],
    });
    if (a.mde === null) missing++;
    else values.push(a.mde);
  }
  values.sort((a, b) => a - b);
  // Suites whose MDE is missing (no drop detectable) sort above every number.
  const all = [...values, ...Array<number>(missing).fill(Infinity)];
  const med = all[Math.floor((all.length - 1) / 2)];
  return { median: Number.isFinite(med) ? med : null, missing };
}

/** Percentile verdict (Monte Carlo test) under no change and a 10-point medal drop. */
function percentileRates(m: number, seeds: number, n: number, drop: number, seed: number): number {
  const rng = makeRng(seed);
  const sigma = 0.6;
  const cut = 1.2815515655446004; // Φ⁻¹(0.9): a medal is a percentile ≥ 0.9
  // z with P(z + σε ≥ cut) = q, via a normal quantile by bisection.
  const zFor = (q: number) => {
    const t = Math.min(1 - 1e-4, Math.max(1e-4, q));
    let lo = -10;
    let hi = 10;
    for (let i = 0; i < 40; i++) {
      const mid = (lo + hi) / 2;
      if (normalCdf((mid - cut) / sigma) < t) lo = mid;
      else hi = mid;
    }
    return (lo + hi) / 2;
  };
  const run = (z: number) => (rng() < VALID ? normalCdf(z + sigma * normalDraw(rng)) : 0);
  let hits = 0;
  for (let r = 0; r < n; r++) {
    const p = agent(m, rng);
    const keep = keepFor(p, drop);
    const samples = p.map((pi, i) => {
      const zb = zFor(pi);
      const zh = zFor(pi * keep);
      return {
        competitionId: `c${i}`,
        base: Array.from({ length: seeds }, () => run(zb)),
        head: Array.from({ length: seeds }, () => run(zh)),
      };
    });
    const a = analyzeMetric("percentile", samples, {
      alpha: ALPHA,
      tolerance: TOL,
      seed: r + 1,
      permutations: 499,
    });
    if (a.verdict === "regressed") hits++;
  }
  return hits / n;
}

const pc = (x: number | null) => (x === null ? "n/a" : `${(x * 100).toFixed(1)}%`);
const pts = (x: number | null) => (x === null ? "n/a" : `${(x * 100).toFixed(1)} pts`);

export function statsTables(s: Size = size()): string {
  const n = s.suites;
  const head = ["", ...DESIGNS.map(([m, k]) => `${m}×${k}`)];
  const row = (name: string, f: (m: number, k: number, i: number) => string) => [
    name,
    ...DESIGNS.map(([m, k], i) => f(m, k, i)),
  ];
  const rows: string[][] = [
    row("false `regressed`, no change", (m, k, i) => pc(rate(m, k, 0, "regressed", n, 100 + i))),
    row("`regressed` at a drop = tolerance (5 pts)", (m, k, i) =>
      pc(rate(m, k, TOL, "regressed", n, 200 + i)),
    ),
    row("power (`regressed`), 5-pt drop", (m, k, i) => pc(rate(m, k, 0.05, "regressed", n, 300 + i))),
    row("power, 10-pt drop", (m, k, i) => pc(rate(m, k, 0.1, "regressed", n, 400 + i))),
    row("power, 20-pt drop", (m, k, i) => pc(rate(m, k, 0.2, "regressed", n, 500 + i))),
    row("false `no-regression`, 10-pt drop", (m, k, i) => pc(rate(m, k, 0.1, "no-regression", n, 600 + i))),
    row("`no-regression`, no change", (m, k, i) => pc(rate(m, k, 0, "no-regression", n, 700 + i))),
    row("false `regressed`, no change, tolerance 0", (m, k, i) =>
      pc(rate(m, k, 0, "regressed", n, 750 + i, 0)),
    ),
  ];
  const mdeRows = [
    row("simulated 80%-power drop", (m, k) => pts(simulatedMde(m, k, Math.min(n, 1000)))),
    row("printed MDE (median)", (m, k) => {
      const r = printedMde(m, k, s);
      return `${pts(r.median)}${r.missing ? ` (${r.missing}/${s.mdeSuites} n/a)` : ""}`;
    }),
  ];
  const pn = Math.max(40, Math.round(n / 10));
  const pRows = [
    row("false `regressed`, no change", (m, k, i) => pc(percentileRates(m, k, pn, 0, 1100 + i))),
    row("`regressed`, 10-pt medal drop", (m, k, i) => pc(percentileRates(m, k, pn, 0.1, 1200 + i))),
  ];
  const table = (rs: string[][]) => {
    const widths = rs[0].map((_, c) => Math.max(...rs.map((r) => r[c].length)));
    const line = (r: string[]) => `| ${r.map((x, c) => x.padEnd(widths[c])).join(" | ")} |`;
    return [
      line(rs[0]),
      `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`,
      ...rs.slice(1).map(line),
    ].join("\n");
  };
  return [
    `Medal verdict, α = ${ALPHA}, tolerance ${TOL * 100} pts, ${n} simulated suites per cell (competitions × seeds per side):`,
    "",
    table([head, ...rows]),
    "",
    `MDE: the drop flagged \`regressed\` 80% of the time, simulated (${Math.min(n, 1000)} suites per step) vs the median the report prints (${s.mdeSuites} suites, ${s.mdeSims} simulations each):`,
    "",
    table([head, ...mdeRows]),
    "",
    `Percentile verdict (tolerance ${TOL * 100} percentile points, Monte Carlo test with 499 permutations), ${pn} suites per cell:`,
    "",
    table([head, ...pRows]),
  ].join("\n");
}

/** `npm run bench` section. */
export async function benchStats(): Promise<string> {
  const s = size();
  return `## Statistics simulation\n\n${statsTables({ ...s, suites: Math.min(s.suites, 500) })}`;
}

const BEGIN = "<!-- stats-sim:begin -->";
const END = "<!-- stats-sim:end -->";

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const started = Date.now();
  const text = statsTables();
  const file = join(import.meta.dirname, "..", "docs", "statistics.md");
  const doc = readFileSync(file, "utf8");
  const i = doc.indexOf(BEGIN);
  const j = doc.indexOf(END);
  const stamp = `<!-- generated by npm run stats-sim in ${((Date.now() - started) / 1000).toFixed(0)} s -->`;
  if (i >= 0 && j > i && process.env.STATS_SIM_WRITE !== "0") {
    writeFileSync(file, `${doc.slice(0, i + BEGIN.length)}\n${stamp}\n\n${text}\n\n${doc.slice(j)}`);
  }
  process.stdout.write(text + "\n");
}
