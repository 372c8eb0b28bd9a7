// The medal claims' exact level: every outcome of the runs summed, nothing simulated (issue 30,
// docs/statistics.md "The guarantee, literally").
//   npm run bench -- exact-level
//   EXACT_LEVEL_ITERS=3000 …   rate configurations tried per small design (default 1500)
//   EXACT_LEVEL_STEP=0.0025 …  grid step of the equal-rates search (default 0.005)
//   EXACT_LEVEL_SUITES=50000 … simulated suites per Beta-agent row (default 20000)
// A claim's level at given rates is P(claim) summed over every outcome of the runs, each outcome's
// verdict computed by medalVerdict. Two ways to enumerate:
//  - small suites: every vector of per-competition counts ((nb+1)(nh+1))^m, then the worst case over
//    rate configurations is searched (random corners, then perturbations of the worst so far);
//  - every competition at the same rates: the verdict depends only on the multiset of counts, so
//    multisets weighted by their multinomial probability; the worst over a grid of base rates.
// Both look at a true drop equal to the tolerance (mean of base − head rates), where each claim is
// wrong whenever it is made. Search is not proof: a worst case printed here is a lower bound on the
// claim's worst level over all rates.
import { betaDraw, binomialDraw, logChoose, makeRng } from "../src/stats/distributions.js";
import { medalVerdict, type Counts, type Levels } from "../src/stats/stats.js";
import { STRESS_CORNERS } from "./adaptive.js";

const ALPHA = 0.05;
const LEVELS: Levels = { regressed: ALPHA, noRegression: ALPHA };

export interface Design {
  /** Competitions. */
  m: number;
  /** Runs per competition on the base and head side. */
  nb: number;
  nh: number;
}

export interface ClaimLevels {
  regressed: number;
  noRegression: number;
}

const types = (d: Design) => (d.nb + 1) * (d.nh + 1);
/** Count type c of one competition: xb = c mod (nb + 1), xh = c div (nb + 1). */
const countsOf = (d: Design, c: number): Counts => ({
  nb: d.nb,
  xb: c % (d.nb + 1),
  nh: d.nh,
  xh: Math.floor(c / (d.nb + 1)),
});

/** 1 for a `regressed`, 2 for a `no-regression` verdict, 0 otherwise; one entry per outcome. */
export interface VerdictTable {
  design: Design;
  verdicts: Uint8Array;
}

const CODE = { regressed: 1, "no-regression": 2 } as Record<string, number>;

/** The verdict of every outcome: competition i's count type is digit i of the index in base T. */
export function verdictTable(d: Design, tolerance: number, levels = LEVELS): VerdictTable {
  const T = types(d);
  const verdicts = new Uint8Array(T ** d.m);
  for (let o = 0; o < verdicts.length; o++) {
    const counts: Counts[] = [];
    for (let i = 0, r = o; i < d.m; i++, r = Math.floor(r / T)) counts.push(countsOf(d, r % T));
    verdicts[o] = CODE[medalVerdict(counts, levels, tolerance).verdict] ?? 0;
  }
  return { design: d, verdicts };
}

/** P(xb) · P(xh) for each count type of one competition with base rate p and head rate q. */
function typeProbabilities(d: Design, p: number, q: number): Float64Array {
  const bin = (n: number, r: number, x: number) =>
    Math.exp(logChoose(n, x)) * (x === 0 ? 1 : r ** x) * (x === n ? 1 : (1 - r) ** (n - x));
  const out = new Float64Array(types(d));
  for (let c = 0; c < out.length; c++) {
    const { xb, xh } = countsOf(d, c);
    out[c] = bin(d.nb, p, xb) * bin(d.nh, q, xh);
  }
  return out;
}

/** Each claim's exact probability at per-competition rates p (base) and q (head). */
export function tableLevels(table: VerdictTable, p: number[], q: number[]): ClaimLevels {
  const d = table.design;
  const T = types(d);
  // Both claims' indicators side by side; sum out the competitions from the last (the most
  // significant digit) to the first.
  let cur = new Float64Array(2 * table.verdicts.length);
  table.verdicts.forEach((v, o) => {
    if (v) cur[2 * o + v - 1] = 1;
  });
  for (let i = d.m - 1; i >= 0; i--) {
    const w = typeProbabilities(d, p[i], q[i]);
    const size = 2 * T ** i;
    const next = new Float64Array(size);
    for (let c = 0; c < T; c++) {
      if (w[c] === 0) continue;
      const off = c * size;
      for (let s = 0; s < size; s++) next[s] += w[c] * cur[off + s];
    }
    cur = next;
  }
  return { regressed: cur[0], noRegression: cur[1] };
}

/** Rates moved (each side by half the gap, within [0, 1]) so that mean(p − q) = drop; false if it cannot. */
function atDrop(p: number[], q: number[], drop: number): boolean {
  const m = p.length;
  for (let it = 0; it < 60; it++) {
    const gap = p.reduce((a, x, i) => a + x - q[i], 0) / m - drop;
    if (Math.abs(gap) < 1e-12) return true;
    for (let i = 0; i < m; i++) {
      p[i] = Math.min(1, Math.max(0, p[i] - gap / 2));
      q[i] = Math.min(1, Math.max(0, q[i] + gap / 2));
    }
  }
  return false;
}

export interface Worst {
  level: number;
  p: number[];
  q: number[];
}

/**
 * The worst level of each claim found over rate configurations with mean(p − q) = tolerance:
 * random configurations from corners (0, 2%, …, 100%), then perturbations of the worst so far.
 */
export function searchWorst(
  table: VerdictTable,
  tolerance: number,
  iters: number,
  seed = 1,
): { regressed: Worst; noRegression: Worst } {
  const rng = makeRng(seed);
  const m = table.design.m;
  const corners = [0, 0.02, 0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 0.95, 1];
  const worst = {
    regressed: { level: -1, p: [] as number[], q: [] as number[] },
    noRegression: { level: -1, p: [] as number[], q: [] as number[] },
  };
  for (let it = 0; it < iters; it++) {
    const claim = it % 2 === 0 ? "regressed" : "noRegression";
    const w = worst[claim];
    let p: number[];
    let q: number[];
    if (w.level >= 0 && rng() < 0.6) {
      const s = 0.2 * rng() ** 2;
      const jiggle = (x: number) => Math.min(1, Math.max(0, x + s * (rng() - 0.5)));
      p = w.p.map(jiggle);
      q = w.q.map(jiggle);
    } else {
      p = Array.from({ length: m }, () => corners[Math.floor(rng() * corners.length)]);
      q = p.map((x) => Math.max(0, x - tolerance * (0.5 + rng())));
    }
    if (!atDrop(p, q, tolerance)) continue;
    const l = tableLevels(table, p, q);
    for (const c of ["regressed", "noRegression"] as const)
      if (l[c] > worst[c].level) worst[c] = { level: l[c], p, q };
  }
  return worst;
}

/** Multisets of count types (how many competitions have each), with their verdict. */
export interface MultisetTable {
  design: Design;
  decisive: { n: number[]; logCoef: number; code: number }[];
  all: number;
}

/** Every multiset of m count types and its verdict; only the decisive ones are kept. */
export function multisetTable(d: Design, tolerance: number, levels = LEVELS): MultisetTable {
  const T = types(d);
  const n = new Array<number>(T).fill(0);
  const decisive: MultisetTable["decisive"] = [];
  let all = 0;
  const lf = [0]; // log k!
  for (let k = 1; k <= d.m; k++) lf.push(lf[k - 1] + Math.log(k));
  const walk = (t: number, left: number) => {
    if (t === T - 1) {
      n[t] = left;
      all++;
      const counts: Counts[] = [];
      n.forEach((k, c) => {
        for (let j = 0; j < k; j++) counts.push(countsOf(d, c));
      });
      const code = CODE[medalVerdict(counts, levels, tolerance).verdict] ?? 0;
      if (code) decisive.push({ n: [...n], logCoef: lf[d.m] - n.reduce((a, k) => a + lf[k], 0), code });
      return;
    }
    for (let k = 0; k <= left; k++) {
      n[t] = k;
      walk(t + 1, left - k);
    }
  };
  walk(0, d.m);
  return { design: d, decisive, all };
}

/** Each claim's exact probability when every competition has base rate p and head rate q. */
export function equalRateLevels(table: MultisetTable, p: number, q: number): ClaimLevels {
  const lw = Array.from(typeProbabilities(table.design, p, q), Math.log);
  const out: ClaimLevels = { regressed: 0, noRegression: 0 };
  for (const s of table.decisive) {
    let l = s.logCoef;
    s.n.forEach((k, c) => {
      if (k) l += k * lw[c];
    });
    if (s.code === 1) out.regressed += Math.exp(l);
    else out.noRegression += Math.exp(l);
  }
  return out;
}

/** The worst of each claim over base rates p on a grid (head p − tolerance). */
export function equalRateWorst(table: MultisetTable, tolerance: number, step: number) {
  const worst = { regressed: { level: 0, p: 0 }, noRegression: { level: 0, p: 0 } };
  for (let p = tolerance + step / 2; p < 1; p += step) {
    const l = equalRateLevels(table, p, p - tolerance);
    for (const c of ["regressed", "noRegression"] as const)
      if (l[c] > worst[c].level) worst[c] = { level: l[c], p };
  }
  return worst;
}

/**
 * Each claim's exact probability when competitions come in groups of equal rates: within a group
 * only the count types its rates can produce, as multisets; across groups every combination. Exact
 * for the sparse corners of issue 30, where most groups have a rate of 0 or 1 on a side.
 */
export function groupedLevels(
  d: Omit<Design, "m">,
  groups: { m: number; p: number; q: number }[],
  tolerance: number,
) {
  const per = groups.map((g) => {
    const dm = { ...d, m: g.m };
    const w = typeProbabilities(dm, g.p, g.q);
    const live = [...w.keys()].filter((c) => w[c] > 0);
    const lf = [0];
    for (let k = 1; k <= g.m; k++) lf.push(lf[k - 1] + Math.log(k));
    // Every multiset of g.m count types among the live ones, with its log probability.
    const sets: { counts: Counts[]; logP: number }[] = [];
    const n = new Array<number>(live.length).fill(0);
    const walk = (t: number, left: number) => {
      if (t === live.length - 1) {
        n[t] = left;
        let logP = lf[g.m];
        const counts: Counts[] = [];
        n.forEach((k, j) => {
          logP += k * Math.log(w[live[j]]) - lf[k];
          for (let r = 0; r < k; r++) counts.push(countsOf(dm, live[j]));
        });
        sets.push({ counts, logP });
        return;
      }
      for (let k = 0; k <= left; k++) {
        n[t] = k;
        walk(t + 1, left - k);
      }
    };
    walk(0, g.m);
    return sets;
  });
  const out: ClaimLevels = { regressed: 0, noRegression: 0 };
  const combine = (i: number, counts: Counts[], logP: number) => {
    if (i === per.length) {
      const code = CODE[medalVerdict(counts, LEVELS, tolerance).verdict] ?? 0;
      if (code === 1) out.regressed += Math.exp(logP);
      if (code === 2) out.noRegression += Math.exp(logP);
      return;
    }
    for (const s of per[i]) combine(i + 1, [...counts, ...s.counts], logP + s.logP);
  };
  combine(0, [], 0);
  return out;
}

/** A corner's competitions grouped by equal (base, head) rates. */
export function groupsOf(p: number[], q: number[]): { m: number; p: number; q: number }[] {
  const groups = new Map<string, { m: number; p: number; q: number }>();
  p.forEach((pi, i) => {
    const key = `${pi}/${q[i]}`;
    const g = groups.get(key) ?? { m: 0, p: pi, q: q[i] };
    g.m++;
    groups.set(key, g);
  });
  return [...groups.values()];
}

/**
 * Beta agents (the audit's and the bench's model: rates Beta with mean `rate` and ρ, every head
 * rate scaled by 1 − drop/mean): each claim's share of suites, over all suites and over those whose
 * drop equals the tolerance. When the drawn mean is below the tolerance the scaling stops at 0, the
 * true drop is the whole mean, smaller than the tolerance, and `no-regression` is right there.
 */
export function betaAgentLevels(
  d: Design,
  rate: number,
  rho: number,
  tolerance: number,
  suites: number,
  seed = 5,
): { all: ClaimLevels; atTolerance: ClaimLevels; shareAtTolerance: number } {
  const rng = makeRng(seed);
  const ab = 1 / rho - 1;
  const all = { regressed: 0, noRegression: 0 };
  const at = { regressed: 0, noRegression: 0 };
  let nAt = 0;
  for (let s = 0; s < suites; s++) {
    const p = Array.from({ length: d.m }, () => betaDraw(rate * ab, (1 - rate) * ab, rng));
    const mean = p.reduce((a, b) => a + b, 0) / d.m;
    const keep = Math.max(0, 1 - tolerance / mean);
    const counts: Counts[] = p.map((pi) => ({
      nb: d.nb,
      xb: binomialDraw(d.nb, pi, rng),
      nh: d.nh,
      xh: binomialDraw(d.nh, pi * keep, rng),
    }));
    const code = CODE[medalVerdict(counts, LEVELS, tolerance).verdict] ?? 0;
    const exact = mean >= tolerance;
    if (exact) nAt++;
    for (const [t, counted] of [
      [all, true],
      [at, exact],
    ] as const) {
      if (!counted) continue;
      if (code === 1) t.regressed++;
      if (code === 2) t.noRegression++;
    }
  }
  const share = (t: ClaimLevels, n: number) => ({
    regressed: t.regressed / n,
    noRegression: t.noRegression / n,
  });
  return { all: share(all, suites), atTolerance: share(at, nAt), shareAtTolerance: nAt / suites };
}

const pct = (x: number) => `${x < 0.001 && x > 0 ? (100 * x).toPrecision(2) : (100 * x).toFixed(2)}%`;
const rates = (xs: number[]) => xs.map((x) => `${Math.round(100 * x)}`).join("/");
const flag = (x: number) => (x > ALPHA ? ` **> α**` : "");

/**
 * A table with one row per design under `heading`: its size, then each claim's worst level
 * (marked above α) and where.
 */
function designTable(
  heading: string,
  columns: [size: string, where: string],
  designs: Design[],
  what: string,
  measure: (d: Design) => [string, number, string, number, string],
): string[] {
  const [size, where] = columns;
  return [
    "",
    heading,
    "",
    `| design (competitions × base runs × head runs) | ${size} | worst \`regressed\` | ${where} | worst false \`no-regression\` | ${where} |`,
    "| --- | --- | --- | --- | --- | --- |",
    ...designs.map((d) => {
      const name = `${d.m} × ${d.nb} × ${d.nh}`;
      console.error(`exact-level: ${what}${name} …`);
      const [n, regressed, rAt, noRegression, nAt] = measure(d);
      return `| ${name} | ${n} | ${pct(regressed)}${flag(regressed)} | ${rAt} | ${pct(noRegression)}${flag(noRegression)} | ${nAt} |`;
    }),
  ];
}

export async function benchExactLevel(): Promise<string> {
  const started = Date.now();
  const iters = Number(process.env.EXACT_LEVEL_ITERS ?? 1500);
  const step = Number(process.env.EXACT_LEVEL_STEP ?? 0.005);
  const suites = Number(process.env.EXACT_LEVEL_SUITES ?? 20000);
  const TOL = 0.05;
  const out = [
    "## The medal claims' exact level (bench/exact-level.ts)",
    "",
    `Each claim's probability at a true drop equal to the tolerance (${TOL * 100} pts), summed over every outcome of the runs (no simulation), α = 5% one-sided for each claim, fixed runs per side. A level above α is marked.`,
  ];
  const small: Design[] = [
    { m: 3, nb: 3, nh: 3 },
    { m: 4, nb: 3, nh: 3 },
    { m: 5, nb: 2, nh: 2 },
    { m: 6, nb: 2, nh: 2 },
    { m: 8, nb: 1, nh: 1 },
    { m: 4, nb: 3, nh: 1 },
  ];
  out.push(
    ...designTable(
      `### Small suites, every rate configuration searched (${iters} configurations each)`,
      ["outcomes", "at rates (base → head, %)"],
      small,
      "",
      (d) => {
        const table = verdictTable(d, TOL);
        const w = searchWorst(table, TOL, iters);
        const at = (x: Worst) => `${rates(x.p)} → ${rates(x.q)}`;
        return [
          String(table.verdicts.length),
          w.regressed.level,
          at(w.regressed),
          w.noRegression.level,
          at(w.noRegression),
        ];
      },
    ),
  );
  const equal: Design[] = [
    { m: 6, nb: 3, nh: 3 },
    { m: 8, nb: 3, nh: 3 },
    { m: 10, nb: 2, nh: 2 },
    { m: 14, nb: 2, nh: 2 },
    { m: 14, nb: 3, nh: 1 },
    { m: 10, nb: 1, nh: 1 },
    { m: 22, nb: 1, nh: 1 },
    { m: 40, nb: 1, nh: 1 },
    { m: 75, nb: 1, nh: 1 },
  ];
  out.push(
    ...designTable(
      `### Every competition at the same rates (base rate on a grid of step ${step}, head ${TOL * 100} pts lower)`,
      ["multisets (decisive)", "at base rate"],
      equal,
      "equal rates ",
      (d) => {
        const table = multisetTable(d, TOL);
        const w = equalRateWorst(table, TOL, step);
        return [
          `${table.all} (${table.decisive.length})`,
          w.regressed.level,
          w.regressed.p.toFixed(4),
          w.noRegression.level,
          w.noRegression.p.toFixed(4),
        ];
      },
    ),
  );
  out.push(
    "",
    "### The sparse corners of issue 30, fixed 3 × 3 runs (exact)",
    "",
    "The stress corners of `npm run bench -- adaptive`, each at a true drop equal to its tolerance, summed over every outcome of the fixed design's runs (the bench simulates them; here there is no Monte Carlo error).",
    "",
    "| corner | groups of equal rates | `regressed` | false `no-regression` |",
    "| --- | --- | --- | --- |",
  );
  for (const c of STRESS_CORNERS) {
    console.error(`exact-level: corner ${c.name} …`);
    const groups = groupsOf(c.p, c.q);
    const l = groupedLevels({ nb: 3, nh: 3 }, groups, c.tol);
    out.push(
      `| ${c.name} | ${groups.map((g) => g.m).join(" + ")} competitions | ${pct(l.regressed)}${flag(l.regressed)} | ${pct(l.noRegression)}${flag(l.noRegression)} |`,
    );
  }
  out.push(
    "",
    "### A family of sparse suites, fixed 3 × 3 runs (exact)",
    "",
    "`k` of `m` competitions always won on the base, their head rate lowered so that the suite drops by exactly the tolerance, the other `m − k` never won on either side; the worst `k` (every `k` for 22 and 40 competitions, the listed ones for 75).",
    "",
    "| competitions | tolerance | worst false `no-regression` | at k (head rate) | worst `regressed` | at k (head rate) |",
    "| --- | --- | --- | --- | --- | --- |",
  );
  for (const [m, ks] of [
    [22, null],
    [40, null],
    [75, [20, 30, 45, 60, 74]],
  ] as const)
    for (const tol of [0.025, 0.05, 0.1]) {
      console.error(`exact-level: always-won family ${m} × 3, tolerance ${tol} …`);
      const worst = { nr: { level: 0, k: 0 }, rg: { level: 0, k: 0 } };
      for (const k of ks ?? Array.from({ length: m }, (_, i) => i + 1)) {
        const q = 1 - (tol * m) / k;
        if (q < 0) continue;
        const groups = [{ m: k, p: 1, q }, ...(k < m ? [{ m: m - k, p: 0, q: 0 }] : [])];
        const l = groupedLevels({ nb: 3, nh: 3 }, groups, tol);
        if (l.noRegression > worst.nr.level) worst.nr = { level: l.noRegression, k };
        if (l.regressed > worst.rg.level) worst.rg = { level: l.regressed, k };
      }
      const at = (k: number) => (k ? `${k} (${(100 * (1 - (tol * m) / k)).toFixed(1)}%)` : "—");
      out.push(
        `| ${m} | ${tol * 100} pts | ${pct(worst.nr.level)}${flag(worst.nr.level)} | ${at(worst.nr.k)} | ${pct(worst.rg.level)}${flag(worst.rg.level)} | ${at(worst.rg.k)} |`,
      );
    }
  out.push(
    "",
    "### Smaller levels (the monitor's looks before the last spend α in parts)",
    "",
    "Every competition at the same rates, as above, both claims at the one-sided level shown.",
    "",
    "| design | level | worst `regressed` | at base rate | worst false `no-regression` | at base rate |",
    "| --- | --- | --- | --- | --- | --- |",
  );
  for (const d of [
    { m: 14, nb: 3, nh: 1 },
    { m: 22, nb: 1, nh: 1 },
  ])
    for (const level of [0.01, 0.001]) {
      console.error(`exact-level: level ${level} ${d.m} × ${d.nb} × ${d.nh} …`);
      const w = equalRateWorst(multisetTable(d, TOL, { regressed: level, noRegression: level }), TOL, step);
      const mark = (x: number) => `${pct(x)}${x > level ? " **> level**" : ""}`;
      out.push(
        `| ${d.m} × ${d.nb} × ${d.nh} | ${level * 100}% | ${mark(w.regressed.level)} | ${w.regressed.p.toFixed(4)} | ${mark(w.noRegression.level)} | ${w.noRegression.p.toFixed(4)} |`,
      );
    }
  out.push(
    "",
    `### Beta agents at a drop equal to the tolerance (simulated, ${suites} suites per row; ± one standard error)`,
    "",
    'The audit\'s model scales every head rate by 1 − drop/mean; when a suite\'s drawn mean rate is below the tolerance the head rates stop at 0 and the true drop is the mean, smaller than the tolerance, where `no-regression` is right. "All suites" counts those as errors anyway; "drop = tolerance" keeps only the suites where the claim is wrong whenever it is made.',
    "",
    "| agent | design | suites whose drop = tolerance | false `no-regression`: all suites | drop = tolerance | `regressed`: all suites | drop = tolerance |",
    "| --- | --- | --- | --- | --- | --- | --- |",
  );
  const se = (x: number, n: number) => `±${(100 * Math.sqrt((x * (1 - x)) / n)).toFixed(2)}`;
  for (const [rate, rho, d] of [
    [0.1, 0.8, { m: 22, nb: 3, nh: 3 }],
    [0.1, 0.8, { m: 75, nb: 3, nh: 3 }],
    [0.1, 0.45, { m: 22, nb: 3, nh: 3 }],
    [0.1, 0.8, { m: 22, nb: 30, nh: 1 }],
    [0.1, 0.8, { m: 75, nb: 30, nh: 1 }],
    [0.1, 0.45, { m: 75, nb: 30, nh: 1 }],
  ] as const) {
    console.error(`exact-level: Beta agent ${rate} ρ ${rho} ${d.m} × ${d.nb} × ${d.nh} …`);
    const r = betaAgentLevels(d, rate, rho, TOL, suites);
    const nAt = Math.round(r.shareAtTolerance * suites);
    out.push(
      `| ${rate * 100}%, ρ = ${rho} | ${d.m} × ${d.nb} × ${d.nh} | ${pct(r.shareAtTolerance)} | ${pct(r.all.noRegression)} ${se(r.all.noRegression, suites)} | ${pct(r.atTolerance.noRegression)} ${se(r.atTolerance.noRegression, nAt)} | ${pct(r.all.regressed)} ${se(r.all.regressed, suites)} | ${pct(r.atTolerance.regressed)} ${se(r.atTolerance.regressed, nAt)} |`,
    );
  }
  out.push("", `${((Date.now() - started) / 1000).toFixed(0)} s.`);
  return out.join("\n");
}
