import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { MT19937, permutation, testCount, trainTestSplit } from "../../src/prepare/numpy-random.js";

interface Case {
  n: number;
  random_state: number;
  test_size: number;
  permutation?: number[];
  train_indices?: number[];
  test_indices?: number[];
  test_indices_head: number[];
  train_indices_head: number[];
  n_test: number;
  n_train: number;
}

const vectorsFile = resolve(__dirname, "fixtures/numpy-permutation.json");
const cases: Case[] = JSON.parse(readFileSync(vectorsFile, "utf8")).cases;

describe("NumPy RandomState permutation", () => {
  it("MT19937 seeded with 0 gives NumPy's first words", () => {
    const rng = new MT19937(0);
    expect([rng.next(), rng.next(), rng.next(), rng.next(), rng.next()]).toEqual([
      2357136044, 2546248239, 3071714933, 3626093760, 2588848963,
    ]);
  });

  it(`matches ${cases.length} known NumPy / scikit-learn outputs`, () => {
    expect(cases.length).toBeGreaterThan(10);
    for (const c of cases) {
      const label = `n=${c.n} seed=${c.random_state} test_size=${c.test_size}`;
      if (c.permutation) expect([...permutation(c.n, c.random_state)], label).toEqual(c.permutation);
      const { train, test } = trainTestSplit(c.n, c.test_size, c.random_state);
      expect(test.length, label).toBe(c.n_test);
      expect(train.length, label).toBe(c.n_train);
      expect([...test.subarray(0, c.test_indices_head.length)], label).toEqual(c.test_indices_head);
      expect([...train.subarray(0, c.train_indices_head.length)], label).toEqual(c.train_indices_head);
      if (c.test_indices) expect([...test], label).toEqual(c.test_indices);
      if (c.train_indices) expect([...train], label).toEqual(c.train_indices);
    }
  });

  it("matches the spec's table of first entries (seed 0)", () => {
    const table: [number, number[]][] = [
      [144, [7, 89, 97, 26, 110]],
      [3662, [2596, 1548, 2912, 1544, 2438]],
      [19579, [16527, 6398, 10604, 17864, 19368]],
      [220025, [155115, 145742, 105400, 61543, 32978]],
      [900000, [772215, 292046, 814437, 381608, 172519]],
    ];
    for (const [n, head] of table) expect([...permutation(n, 0).subarray(0, 5)]).toEqual(head);
  });

  it("computes scikit-learn's test size in float64", () => {
    expect(testCount(3662, 0.1)).toBe(367);
    expect(testCount(990, 0.1)).toBe(99);
    expect(testCount(17500, 0.19)).toBe(3325);
    expect(testCount(900000, 100000)).toBe(100000);
    expect(() => testCount(5, 5)).toThrow(/empty/);
  });
});
