import { describe, expect, it } from "vitest";
import { meanColumnAuc, rocAuc } from "../../src/grade/metrics/auc.js";
import {
  accuracy,
  binaryF1,
  macroF1,
  microF1,
  quadraticWeightedKappa,
} from "../../src/grade/metrics/classification.js";
import { MetricError, UndefinedMetricError } from "../../src/grade/metrics/errors.js";
import { binaryLogLoss, EPS, multiclassLogLoss } from "../../src/grade/metrics/logloss.js";
import { mae, meanColumnRmsle, rmse, rmsle } from "../../src/grade/metrics/regression.js";
import { pythonFloatRepr } from "../../src/grade/pystr.js";
import { round5Numpy } from "../../src/grade/round.js";
import { numpySum } from "../../src/grade/metrics/npsum.js";
import { readFileSync } from "node:fs";

describe("ROC AUC", () => {
  it("counts correctly ranked pairs, ties as half", () => {
    // positives 0.8, 0.4; negatives 0.4, 0.1 → pairs: (0.8>0.4)1 (0.8>0.1)1 (0.4=0.4)½ (0.4>0.1)1 → 3.5/4
    expect(rocAuc([1, 1, 0, 0], [0.8, 0.4, 0.4, 0.1])).toBe(0.875);
    expect(rocAuc([0, 1], [0.2, 0.9])).toBe(1);
    expect(rocAuc([0, 1], [0.9, 0.2])).toBe(0);
    expect(rocAuc([0, 1, 0, 1], [0.5, 0.5, 0.5, 0.5])).toBe(0.5);
  });
  it("positive class is the larger label; scores outside [0,1] are fine", () => {
    expect(rocAuc([2, 5, 5], [-3, 10, 7])).toBe(1);
  });
  it("throws on one class, missing or infinite scores", () => {
    expect(() => rocAuc([1, 1], [0.1, 0.2])).toThrow(UndefinedMetricError);
    expect(() => rocAuc([0, 1], [NaN, 0.2])).toThrow(MetricError);
    expect(() => rocAuc([0, 1], [Infinity, 0.2])).toThrow(MetricError);
    expect(() => rocAuc([0, 1, 2], [0, 1, 2])).toThrow(/more than two/);
  });
  it("column-wise mean", () => {
    expect(
      meanColumnAuc(
        [
          [0, 1],
          [1, 0],
        ],
        [
          [0.1, 0.9],
          [0.1, 0.9],
        ],
      ),
    ).toBe(0.5);
  });
  it("matches the brute-force pair count on random data", () => {
    let seed = 3;
    const r = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const y = Array.from({ length: 300 }, () => (r() < 0.4 ? 1 : 0));
    const s = Array.from({ length: 300 }, () => Math.round(r() * 20) / 20);
    let num = 0,
      p = 0,
      n = 0;
    for (let i = 0; i < 300; i++)
      for (let j = 0; j < 300; j++)
        if (y[i] === 1 && y[j] === 0) num += s[i] > s[j] ? 1 : s[i] === s[j] ? 0.5 : 0;
    for (const v of y) {
      if (v) p++;
      else n++;
    }
    expect(rocAuc(y, s)).toBeCloseTo(num / (p * n), 14);
  });
});

describe("log loss", () => {
  it("multi-class: mean of -ln p(true), clipped, no renormalisation", () => {
    const truth = [
      [1, 0],
      [0, 1],
    ]; // columns: class A for row 0, class B for row 1
    const prob = [
      [0.8, 0.3],
      [0.2, 0.6],
    ]; // row 1 sums to 0.9: not renormalised
    expect(multiclassLogLoss(truth, prob)).toBeCloseTo((-Math.log(0.8) - Math.log(0.6)) / 2, 15);
    expect(multiclassLogLoss([[1]], [[1]])).toBeCloseTo(-Math.log(1 - EPS), 20);
    expect(multiclassLogLoss([[1], [0], [0]], [[1 / 3], [1 / 3], [1 / 3]])).toBeCloseTo(Math.log(3), 15);
  });
  it("binary: p = P(label 1); p = 1 with label 0 costs -ln(eps)", () => {
    expect(binaryLogLoss([0, 1], [1, 1])).toBe(36.04365338911715 / 2);
    expect(binaryLogLoss([1, 0], [0.5, 0.5])).toBeCloseTo(Math.log(2), 15);
    expect(() => binaryLogLoss([1, 0], [NaN, 0.5])).toThrow(MetricError);
    // scikit-learn raises on a single label in y_true (the answers), after checking y_pred.
    expect(() => binaryLogLoss([1, 1], [0.9, 0.8])).toThrow(UndefinedMetricError);
    expect(() => binaryLogLoss([1], [NaN])).toThrow(MetricError);
  });
});

describe("regression", () => {
  it("RMSE, MAE", () => {
    expect(rmse([1, 2, 3], [1, 2, 5])).toBeCloseTo(Math.sqrt(4 / 3), 15);
    expect(mae([1, 2, 3], [2, 2, 1])).toBe(1);
    expect(() => rmse([1], [NaN])).toThrow(MetricError);
    expect(() => rmse([1], [Infinity])).toThrow(MetricError);
    expect(() => rmse([1, 2], [1])).toThrow(MetricError);
  });
  it("RMSLE and its domain; column-wise mean", () => {
    expect(rmsle([0, Math.E - 1], [Math.E - 1, Math.E - 1])).toBeCloseTo(Math.sqrt(0.5), 15);
    expect(rmsle([0.5], [-0.5])).toBeCloseTo(Math.abs(Math.log(0.5) - Math.log(1.5)), 15);
    expect(() => rmsle([0], [-1])).toThrow(MetricError);
    expect(meanColumnRmsle([[0], [0]], [[0], [Math.E - 1]])).toBeCloseTo(0.5, 15);
  });
});

describe("classification", () => {
  it("accuracy", () => {
    expect(accuracy([1, 2, 3, 4], [1, 2, 0, 0])).toBe(0.5);
    expect(accuracy(["a", "b"], ["a", "c"])).toBe(0.5);
  });
  it("quadratic weighted kappa uses label ranks", () => {
    expect(quadraticWeightedKappa([0, 1, 2, 3], [0, 1, 2, 3])).toBe(1);
    // labels {0, 2, 4}: 2 vs 4 is rank distance 1 (weight 1), not 2
    const a = [0, 2, 4, 4],
      b = [0, 2, 2, 4];
    // O: (0,0)1 (2,2)1 (4,2)1 (4,4)1; rows 0:1 2:1 4:2, cols 0:1 2:2 4:1; n = 4
    // Σ w·O = 1; Σ w·E = Σ w(x,y)·row_x·col_y/4 = [0→2:1·1·2 + 0→4:4·1·1 + 2→0:1·1·1 + 2→4:1·1·1 + 4→0:4·2·1 + 4→2:1·2·2]/4 = (2+4+1+1+8+4)/4 = 5
    expect(quadraticWeightedKappa(a, b)).toBeCloseTo(1 - 1 / 5, 15);
    expect(quadraticWeightedKappa([1, 1], [1, 1])).toBeNaN();
  });
  it("F1 scores", () => {
    // truth a a b c, pred a b b b: a: tp1 fp0 fn1 → 2/3; b: tp1 fp2 fn0 → 2/4; c: tp0 fp0 fn1 → 0
    expect(macroF1(["a", "a", "b", "c"], ["a", "b", "b", "b"])).toBeCloseTo((2 / 3 + 0.5 + 0) / 3, 15);
    expect(microF1(["a", "a", "b", "c"], ["a", "b", "b", "b"])).toBe(0.5);
    expect(binaryF1([1, 1, 0, 0], [1, 0, 1, 0])).toBe(0.5);
  });
});

describe("helpers", () => {
  it("Python float repr", () => {
    expect(pythonFloatRepr(7)).toBe("7.0");
    expect(pythonFloatRepr(1e-5)).toBe("1e-05");
    expect(pythonFloatRepr(0.0001)).toBe("0.0001");
    expect(pythonFloatRepr(1e16)).toBe("1e+16");
    expect(pythonFloatRepr(1e15)).toBe("1000000000000000.0");
    expect(pythonFloatRepr(123456789012345.6)).toBe("123456789012345.6");
    expect(pythonFloatRepr(-1.5)).toBe("-1.5");
    expect(pythonFloatRepr(NaN)).toBe("nan");
  });
  it("numpy rounding", () => {
    expect(round5Numpy(0.890625)).toBe(0.89062);
    expect(round5Numpy(0.109375)).toBe(0.10938);
    expect(round5Numpy(0.123456)).toBe(0.12346);
  });
});

describe("bit-for-bit with numpy / scikit-learn", () => {
  const load = <T>(f: string) =>
    (JSON.parse(readFileSync(`test/grade/fixtures/${f}`, "utf8")) as { cases: T[] }).cases;
  it("numpy add.reduce (pairwise, 8192-element buffers)", () => {
    for (const c of load<{ a: number[]; sum: number }>("numpy-sum.json")) expect(numpySum(c.a)).toBe(c.sum);
  });
  it("roc_auc_score on random data with ties", () => {
    for (const c of load<{ y: number[]; s: number[]; auc: number }>("sklearn-auc.json"))
      expect(rocAuc(c.y, c.s)).toBe(c.auc);
  });
});
