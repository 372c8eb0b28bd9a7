import { describe, expect, it } from "vitest";
import { makeRng } from "../../src/stats/distributions.js";
import {
  binomialCdf,
  clopperPearson,
  coveredSentence,
  coveredTolerances,
  informedKey,
  informedPlan,
  seedsFor,
} from "../../src/plan/informed.js";

const N = Number(process.env.MEDALIST_TEST_SIM_SUITES ?? 2000);

describe("history bounds (Clopper–Pearson)", () => {
  it("matches closed forms at the edges", () => {
    // 0 of n: upper = 1 − a^(1/n); n of n: lower = a^(1/n).
    expect(clopperPearson(0, 42, 0.05).upper).toBeCloseTo(1 - 0.05 ** (1 / 42), 9);
    expect(clopperPearson(0, 42, 0.05).lower).toBe(0);
    expect(clopperPearson(10, 10, 0.05).lower).toBeCloseTo(0.05 ** (1 / 10), 9);
    expect(clopperPearson(10, 10, 0.05).upper).toBe(1);
    expect(binomialCdf(1, 2, 0.5)).toBeCloseTo(0.75, 12);
  });

  it("covers the true rate at least at its level, whatever the rate", () => {
    const rng = makeRng(7);
    for (const p of [0.001, 0.02, 0.1, 0.35]) {
      let above = 0;
      let below = 0;
      for (let k = 0; k < N; k++) {
        let x = 0;
        for (let i = 0; i < 40; i++) if (rng() < p) x++;
        const b = clopperPearson(x, 40, 0.05);
        if (p > b.upper) above++;
        if (p < b.lower) below++;
      }
      const slack = 2.5 * Math.sqrt((0.05 * 0.95) / N);
      expect(above / N).toBeLessThanOrEqual(0.05 + slack);
      expect(below / N).toBeLessThanOrEqual(0.05 + slack);
    }
  });
});

describe("the history-informed plan", () => {
  const comps = (hist: ({ runs: number; medals: number } | null)[]) =>
    hist.map((history, i) => ({ id: `c${i}`, secs: 3600 * (i + 1), history }));

  it("gives seeds where the outcome varies, every seed without enough history", () => {
    expect(seedsFor(0.5, 3)).toBe(3);
    expect(seedsFor(0.01, 3)).toBe(1);
    expect(seedsFor(0.999, 5)).toBe(1);
    const p = informedPlan({
      competitions: comps([
        { runs: 60, medals: 0 },
        { runs: 60, medals: 30 },
        { runs: 60, medals: 60 },
        { runs: 5, medals: 0 },
        null,
      ]),
      seeds: 3,
      alpha: 0.05,
      tolerance: 0.05,
    });
    expect(p.competitions.map((c) => c.seeds)).toEqual([1, 3, 1, 3, 3]);
    expect(p.headRuns).toBe(11);
    expect(p.fixedRuns).toBe(15);
    // Without covering, no α goes to history bounds.
    expect(p.alphaHistory).toBe(0);
    expect(p.alphaRuns).toBe(0.05);
    // Within a seed the uncertain competition starts first; seed 0 of all before seed 1.
    const [a, b] = [p.competitions[0], p.competitions[1]];
    expect(informedKey(b, 0, 3, 3600)).toBeGreaterThan(informedKey(a, 0, 3, 7200));
    expect(informedKey(a, 0, 3, 60)).toBeGreaterThan(informedKey(b, 1, 3, 86_400));
  });

  it("covers never-won competitions only on request, within half the tolerance, with α spent on them", () => {
    const hist = Array.from({ length: 10 }, (_, i) =>
      i < 6 ? { runs: 400, medals: 0 } : { runs: 400, medals: 200 },
    );
    const p = informedPlan({
      competitions: comps(hist),
      seeds: 3,
      alpha: 0.05,
      tolerance: 0.2,
      cover: true,
    });
    const covered = p.competitions.filter((c) => c.covered);
    expect(covered.length).toBeGreaterThan(0);
    expect(p.alphaHistory).toBeCloseTo(0.01, 12);
    expect(p.alphaRuns).toBeCloseTo(0.04, 12);
    // Bonferroni over all 10 competitions with enough history.
    for (const c of covered) expect(c.covered!.level).toBeCloseTo(0.001, 12);
    const t = coveredTolerances(p, 0.2);
    const drop = covered.reduce((a, c) => a + c.covered!.upper, 0) / 10;
    expect(drop).toBeLessThanOrEqual(0.1);
    expect(t.noRegression).toBeCloseTo((0.2 * 10 - drop * 10) / (10 - covered.length), 12);
    // The head may have gained everything there: the regressed claim needs a larger drop on the
    // rest, at most twice the tolerance (covering stops before that).
    expect(t.regressed).toBeGreaterThan(0.2);
    expect(t.regressed).toBeLessThanOrEqual(0.4);
    const tighter = informedPlan({
      competitions: comps(hist),
      seeds: 3,
      alpha: 0.05,
      tolerance: 0.05,
      cover: true,
    });
    expect(tighter.competitions.some((c) => c.covered)).toBe(false);
    expect(covered.every((c) => c.seeds === 0)).toBe(true);
    expect(p.headRuns).toBe(p.competitions.reduce((a, c) => a + c.seeds, 0));
  });

  it("states each bound rounded the safe way: the bound up, the confidence down", () => {
    const s = coveredSentence("toy-x", { runs: 42, medals: 0, upper: 0.06884, lower: 0, level: 0.05 / 22 });
    expect(s).toBe(
      "toy-x: base 0 medals in 42 runs of its current identity; its possible drop ≤ 6.9 points at 99.77 % (one-sided), counted against the head; for `regressed` it counts as a possible gain of up to 100.0 points for the head.",
    );
    expect(coveredSentence("a", { runs: 10, medals: 1, upper: 0.30001, lower: 0.01, level: 0.05 })).toMatch(
      /base 1 medal in 10 runs .* ≤ 30\.1 points at 95\.0 %.* up to 99\.0 points/,
    );
  });
});

describe("the plan in the comment's details", () => {
  it("lists the seeds and each covered competition's sentence", async () => {
    const { renderInformedPlan } = await import("../../src/report/informed.js");
    expect(renderInformedPlan(null, 0.05)).toBe("");
    const hist = Array.from({ length: 8 }, (_, i) =>
      i < 4 ? { runs: 400, medals: 0 } : { runs: 400, medals: 200 },
    );
    const plan = informedPlan({
      competitions: hist.map((history, i) => ({ id: `c${i}`, secs: 60, history })),
      seeds: 3,
      alpha: 0.05,
      tolerance: 0.2,
      cover: true,
    });
    expect(plan.competitions.filter((c) => c.covered).length).toBe(1);
    const text = renderInformedPlan(plan, 0.05);
    expect(text).toContain(`History-informed plan: ${plan.headRuns} of 24 head runs planned`);
    expect(text).toContain("| c4 | 200 of 400 runs | 3 |");
    expect(text).toContain(
      "of α = 0.05, 0.01 is spent on these bounds, Bonferroni; the runs' analysis uses the remaining 0.04 for each claim",
    );
    for (const c of plan.competitions.filter((x) => x.covered))
      expect(text).toContain(`- ${coveredSentence(c.id, c.covered!)}`);
  });
});
