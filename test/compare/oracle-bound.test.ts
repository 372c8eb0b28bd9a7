// The oracle bound of bench/adaptive-bound.ts (issue 30, docs/statistics.md "What no design can do
// here"): its dynamic program must reproduce the z test where that is the answer, hold its level
// exactly, never beat Neyman–Pearson with at most 3 seeds, and its greedy allocation must carry at
// least the even allocation's information at every number of runs.
import { describe, expect, it } from "vitest";
import {
  bestSaving,
  evenCurve,
  greedyCurve,
  information,
  levelEta,
  makeGrid,
  thetaOf,
  zPower,
} from "../../bench/bound/oracle.js";
import { drawAgent } from "../../bench/adaptive.js";
import { makeRng } from "../../src/stats/distributions.js";

const ALPHA = 0.05;
const H = 0.04; // the bench's default grid step
const ones = (x: number) => Array.from({ length: 22 }, () => x);

describe("oracle bound: the Brownian sequential test's dynamic program", () => {
  it("with one look it is the one-sided z test: power Φ(θ − z(1−α)) at level α", () => {
    for (const p of [0.15, 0.5, 0.8]) {
      const theta = thetaOf(p, ALPHA);
      expect(zPower(theta, ALPHA)).toBeCloseTo(p, 9);
      const { out } = levelEta(makeGrid([{ info: 1, cost: 1 }], theta, H), 20, ALPHA);
      expect(Math.abs(out.level - ALPHA)).toBeLessThan(1e-4);
      expect(Math.abs(out.power - p)).toBeLessThan(2e-3);
      expect(out.cost).toBeCloseTo(1, 9);
    }
  });

  it("the tuned η puts P_0(claim) at α with a look after every head run", () => {
    const g = makeGrid(evenCurve(ones(1), ones(1), ones(1), 3, 4), thetaOf(0.2, ALPHA), H);
    for (const lambda of [2, 20, 200]) {
      const { out } = levelEta(g, lambda, ALPHA);
      expect(Math.abs(out.level - ALPHA)).toBeLessThan(1e-4);
      // Stopping early costs less than running every one of the 88 runs (4/3 of the fixed design).
      expect(out.cost).toBeLessThan(4 / 3);
      expect(out.cost).toBeGreaterThanOrEqual(1 / 3 - 1e-9);
    }
  }, 120_000);

  it("with at most 3 head seeds it is never more decisive than fixed 3 seeds (beyond grid error)", () => {
    for (const p of [0.15, 0.3, 0.76]) {
      const b = bestSaving(
        makeGrid(evenCurve(ones(1), ones(1), ones(1), 3, 3), thetaOf(p, ALPHA), H),
        ALPHA,
        p,
      );
      expect(b.maxPower).toBeLessThan(p + 2e-3);
      // The fixed design is among its choices, so it gets there up to grid error.
      expect(b.maxPower).toBeGreaterThan(p - 2e-3);
    }
  }, 120_000);

  it("with more head seeds it is more decisive, and saves more per decisive verdict at the fixed rate", () => {
    const theta = thetaOf(0.2, ALPHA);
    const four = bestSaving(makeGrid(evenCurve(ones(1), ones(1), ones(1), 3, 4), theta, H), ALPHA, 0.2);
    const six = bestSaving(makeGrid(evenCurve(ones(1), ones(1), ones(1), 3, 6), theta, H), ALPHA, 0.2);
    expect(four.maxPower).toBeGreaterThan(0.205);
    expect(six.maxPower).toBeGreaterThan(four.maxPower);
    expect(four.saving).not.toBeNull();
    expect(four.power).toBeGreaterThanOrEqual(0.2);
    expect(four.saving!).toBeGreaterThan(0.2);
    // Its cost per decisive verdict can never be below stopping everything at the first look.
    expect(four.saving!).toBeLessThan(2 / 3);
    expect(six.saving!).toBeGreaterThan(four.saving! - 0.005);
  }, 120_000);
});

describe("oracle bound: the information curves", () => {
  it("I = m² / Σ v_i (1/n_b + 1/n_i); the fixed design's is 1 on the scaled curve", () => {
    expect(information([0.25, 0.09], [0.16, 0.04], 3, [1, 2])).toBeCloseTo(
      4 / (0.25 / 3 + 0.16 + 0.03 + 0.02),
      12,
    );
    const even = evenCurve(ones(0.2), ones(0.2), ones(1), 3, 3);
    expect(even).toHaveLength(45);
    // One head run each against 3 base runs: (1/3 + 1/3) / (1/3 + 1) of the fixed design's, at a third of its cost.
    expect(even[0].info).toBeCloseTo(0.5, 12);
    expect(even[0].cost).toBeCloseTo(1 / 3, 12);
    expect(even.at(-1)!.info).toBeCloseTo(1, 12);
    expect(even.at(-1)!.cost).toBeCloseTo(1, 12);
  });

  it("the greedy allocation has at least the even allocation's information at every number of runs", () => {
    const rng = makeRng(4242);
    let strictly = 0;
    for (const [agent, drop] of [
      [0.1, 0],
      [0.35, 0],
      [0.35, 0.1],
      [0.65, 0.2],
    ])
      for (let s = 0; s < 5; s++) {
        const { p, q } = drawAgent(agent, drop, rng, 22);
        const vb = p.map((x) => x * (1 - x));
        const vh = q.map((x) => x * (1 - x));
        for (const K of [3, 4, 6]) {
          const even = evenCurve(vb, vh, ones(1), 3, K);
          const greedy = greedyCurve(vb, vh, ones(1), 3, K);
          expect(greedy).toHaveLength(even.length);
          for (let k = 0; k < even.length; k++) {
            expect(greedy[k].cost).toBeCloseTo(even[k].cost, 12);
            expect(greedy[k].info).toBeGreaterThanOrEqual(even[k].info * (1 - 1e-12));
            if (greedy[k].info > even[k].info * (1 + 1e-6)) strictly++;
          }
          // Both end on every competition's last seed: the same information.
          expect(greedy.at(-1)!.info).toBeCloseTo(even.at(-1)!.info, 9);
        }
      }
    expect(strictly).toBeGreaterThan(0);
  });
});
