// `baseline: run` paired with the monitored head (issue 30, src/session/paired.ts): the base runs
// seed k of every competition, then the head's seed k, looked at after every head run against the
// base's runs so far; nothing further starts on either side at the verdict.
//   npm run bench -- adaptive-paired        PAIRED_SUITES=2000 (default) suites per agent
// Lite split (22 × 3), per-competition rates ~ Beta (mean 10%, 35%, 65%; ρ = 0.45), the head's true
// drop equal to the tolerance (5 points), where both claims are errors; looks in seed-major order.
import { betaDraw, makeRng } from "../src/stats/distributions.js";
import { decideLook, monitorDesign } from "../src/compare/monitor.js";
import type { Counts } from "../src/stats/stats.js";

const M = 22;
const S = 3;

export function simulatePaired(rate: number, suites: number) {
  const d = monitorDesign(0.05);
  const rng = makeRng(17 + Math.round(rate * 1000));
  const ab = 1 / 0.45 - 1;
  let regressed = 0;
  let noRegression = 0;
  let baseRuns = 0;
  let headRuns = 0;
  for (let k = 0; k < suites; k++) {
    const p = Array.from({ length: M }, () => betaDraw(rate * ab, (1 - rate) * ab, rng));
    const mean = p.reduce((a, b) => a + b, 0) / M;
    const keep = Math.max(0, 1 - 0.05 / mean);
    const base = p.map((pi) => Array.from({ length: S }, () => rng() < pi));
    const head = p.map((pi) => Array.from({ length: S }, () => rng() < pi * keep));
    let verdict = "inconclusive";
    let done = 0;
    rounds: for (let s = 0; s < S; s++) {
      baseRuns += M;
      for (let c = 0; c < M; c++) {
        headRuns++;
        done++;
        if (s === 0 && c < M - 1) continue; // the first look needs a head run of every competition
        const counts: Counts[] = p.map((_, i) => {
          const nh = i <= c ? s + 1 : s;
          const nb = s + 1;
          const x = (rs: boolean[], n: number) => rs.slice(0, n).filter(Boolean).length;
          return { nb, xb: x(base[i], nb), nh, xh: x(head[i], nh) };
        });
        const look = {
          counts,
          notComparable: 0,
          competitions: M,
          infra: { base: 0, baseRuns: M * (s + 1), head: 0, headRuns: done },
          t: done / (M * S),
          last: done === M * S,
        };
        const out = decideLook(d, look, { tolerance: 0.05, maxNotComparable: 0.1 });
        if (out.decision !== "continue") {
          verdict = out.verdict;
          break rounds;
        }
      }
    }
    if (verdict === "regressed") regressed++;
    if (verdict === "no-regression") noRegression++;
  }
  return { suites, regressed, noRegression, baseRuns: baseRuns / suites, headRuns: headRuns / suites };
}

export async function benchAdaptivePaired(): Promise<string> {
  const n = Number(process.env.PAIRED_SUITES ?? 2000);
  const started = Date.now();
  const pct = (k: number) => {
    const p = k / n;
    return `${(100 * p).toFixed(1)}% ±${(100 * Math.sqrt((p * (1 - p)) / n)).toFixed(1)}`;
  };
  const rows = [0.1, 0.35, 0.65].map((rate) => {
    const r = simulatePaired(rate, n);
    return `| ${Math.round(rate * 100)}% agent | ${pct(r.regressed)} | ${pct(r.noRegression)} | ${r.baseRuns.toFixed(1)} of ${M * S} | ${r.headRuns.toFixed(1)} of ${M * S} |`;
  });
  return [
    "## `baseline: run` paired with the monitored head (bench/adaptive-paired.ts)",
    "",
    `${n} simulated suites per agent, lite split (22 × 3), the head's true drop equal to the tolerance (5 points; both claims are errors there), α = 5%, looks after every head run in seed-major order, the base one seed ahead; ${((Date.now() - started) / 1000).toFixed(0)} s. ± is one Monte Carlo standard error.`,
    "",
    "| agent | `regressed` | `no-regression` | base runs (mean) | head runs (mean) |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}
