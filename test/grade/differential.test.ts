// The classes where a randomized differential run of upstream's grade code found Medalist
// disagreeing (issue 10), each pinned by a case: upstream's answer is in the test name.
import { describe, expect, it } from "vitest";
import { readCsvText, classifyCell } from "../../src/tabular/csv.js";
import { scoreSubmissionText } from "../../src/grade/grade.js";
import { parseGraderSpec, type GraderSpec } from "../../src/grade/spec.js";
import { columnsUsed } from "../../src/grade/graders.js";
import { UndefinedMetricError } from "../../src/grade/metrics/errors.js";
import { rmse } from "../../src/grade/metrics/regression.js";
import { keyOrder } from "../../src/grade/keyorder.js";
import { pandasSortOrder } from "../../src/grade/npsort.js";

function score(spec: GraderSpec, answers: string, submission: string) {
  const used = columnsUsed(spec).answers;
  const table = readCsvText(answers, "answers.csv", { keep: (n) => used.includes(n) });
  return scoreSubmissionText(spec, submission, table);
}

const rmseSpec = parseGraderSpec({ kind: "rmse", id: "id", target: "value" });
const aucSpec = parseGraderSpec({ kind: "binary-auc", id: "id", target: "y" });
const accSpec = parseGraderSpec({ kind: "accuracy", id: "Id", target: "Cover_Type" });
const qwkSpec = parseGraderSpec({ kind: "qwk", id: "id_code", target: "diagnosis" });
const taxiSpec = parseGraderSpec({ kind: "rmse", id: "key", target: "fare", ids: "sort-only" });

describe("reading numbers as pandas does", () => {
  it("-1e400 is -inf (pandas flags only +HUGE_VAL); 1e400 stays text", () => {
    const t = readCsvText("a,b\n-1e400,1e400\n1,2\n");
    expect(t.column("a")!.kind).toBe("float");
    expect(t.column("a")!.values![0]).toBe(-Infinity);
    expect(t.column("b")!.kind).toBe("text");
    expect(classifyCell("-1e400")).toEqual({ kind: "float", value: -Infinity });
    expect(classifyCell("1e400").kind).toBe("text");
  });
  it("-1e400 in a score column makes an AUC submission invalid (out of [0,1]), not a text column", () => {
    const r = score(aucSpec, "id,y\na,0\nb,1\n", "id,y\na,-1e400\nb,0.5\n");
    expect(r.valid).toBe(false);
    expect(r.error).toMatch(/-Infinity/);
  });
});

describe("Python float() of text cells", () => {
  it("accepts non-ASCII decimal digits (１, ٣) where scikit-learn converts text", () => {
    // nyc-taxi sorts by key and lets scikit-learn convert the fares: a text column via float().
    const answers = "key,fare\nk1,1\nk2,3\n";
    const r = score(taxiSpec, answers, "key,fare\nk1,１\nk2,٣\n");
    expect(r).toMatchObject({ valid: true, score: 0 });
  });
  it("denoising scores a text column that astype(float) accepts: 1_0 and a 30-digit integer", () => {
    const answers = "id,value\n1_1_1,10\n1_1_2,0\n";
    const r = score(rmseSpec, answers, "id,value\n1_1_1,1_0\n1_1_2,0\n");
    expect(r).toMatchObject({ valid: true, score: 0 });
    const big = "1" + "0".repeat(29);
    const r2 = score(rmseSpec, answers, `id,value\n1_1_1,${big}\n1_1_2,0\n`);
    expect(r2.valid).toBe(true);
    expect(r2.score).toBe(Math.sqrt(((1e29 - 10) ** 2 + 0) / 2));
    expect(score(rmseSpec, answers, "id,value\n1_1_1,ten\n1_1_2,0\n")).toMatchObject({ valid: false });
  });
});

describe("labels beyond int64 are continuous for scikit-learn", () => {
  it("accuracy: a float label of 1e19 is invalid, 2.0 is fine", () => {
    const answers = "Id,Cover_Type\n1,2\n2,3\n";
    expect(score(accSpec, answers, "Id,Cover_Type\n1,2.0\n2,3\n")).toMatchObject({ valid: true, score: 1 });
    const r = score(accSpec, answers, "Id,Cover_Type\n1,1e19\n2,3.0\n");
    expect(r.valid).toBe(false);
    expect(r.error).toMatch(/continuous/);
  });
  it("quadratic weighted kappa: -1e19 is invalid", () => {
    const answers = "id_code,diagnosis\na,0\nb,1\n";
    expect(score(qwkSpec, answers, "id_code,diagnosis\na,-1e19\nb,1.0\n").valid).toBe(false);
  });
});

describe("answers upstream cannot grade are a grader error, never an invalid submission", () => {
  it("single-class answers for an AUC throw (grade() reports grader_error)", () => {
    expect(() => score(aucSpec, "id,y\na,1\nb,1\n", "id,y\na,0.2\nb,0.4\n")).toThrow(UndefinedMetricError);
    // A bad score is still the submission's fault (scikit-learn checks scores first).
    expect(score(aucSpec, "id,y\na,1\nb,1\n", "id,y\na,0.2\nb,\n").valid).toBe(false);
  });
});

describe("RMSE is summed in sorted-id order, bit for bit", () => {
  it("answers in file order that is not sorted give numpy's pairwise sum over the sorted rows", () => {
    // 300 rows: numpy's pairwise sum uses blocks of 128 values, so the order of terms matters
    // (here file order gives 0.4342901888294344, sorted order 0.43429018882943443).
    const n = 300;
    const ids = Array.from({ length: n }, (_, i) => `1_${n - i}_1`);
    const truth = ids.map((_, i) => ((i * 7919) % 1000) / 997);
    const pred = ids.map((_, i) => ((i * 104729) % 1000) / 991);
    const answers = "id,value\n" + ids.map((id, i) => `${id},${truth[i]}`).join("\n") + "\n";
    const sub = "id,value\n" + ids.map((id, i) => `${id},${pred[i]}`).join("\n") + "\n";
    const order = ids.map((_, i) => i).sort((a, b) => (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : 0));
    const want = rmse(
      order.map((i) => truth[i]),
      order.map((i) => pred[i]),
    );
    const r = score(rmseSpec, answers, sub);
    expect(r.valid).toBe(true);
    expect(r.score).toBe(want);
    expect(r.score).not.toBe(rmse(truth, pred));
  });
});

describe("the radix order of unique text ids equals pandas' sort", () => {
  it("random ids with shared prefixes, different lengths and non-ASCII characters", () => {
    let seed = 11;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const alphabet = ["a", "b", "_", "1", "10", "é", "ж", "😀", "\uffff", "Z"];
    const ids = new Set<string>();
    while (ids.size < 3000) {
      let s = "";
      const len = 1 + Math.floor(rand() * 6);
      for (let k = 0; k < len; k++) s += alphabet[Math.floor(rand() * alphabet.length)];
      ids.add(s);
    }
    const csv = "id\n" + [...ids].map((s) => `"${s}"`).join("\n") + "\n";
    const col = readCsvText(csv).column("id")!;
    expect(Array.from(keyOrder(col))).toEqual(Array.from(pandasSortOrder(col.strings!)));
  });
});
