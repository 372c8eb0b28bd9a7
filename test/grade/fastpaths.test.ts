// The reader's and the id join's fast paths agree with the plain definitions they shortcut.
import { describe, expect, it } from "vitest";
import { readCsvText, CsvError, type Column } from "../../src/tabular/csv.js";
import { pairById } from "../../src/grade/align.js";
import { sortDoubles } from "../../src/grade/metrics/radix.js";
import { multiclassLogLoss } from "../../src/grade/metrics/logloss.js";

/** LCG in [0, 1). */
function rng(seed: number): () => number {
  return () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), seed / 4294967296);
}

function textColumn(ids: string[]): Column {
  const t = readCsvText("id\n" + ids.join("\n") + "\n", "csv");
  const c = t.column("id")!;
  expect(c.kind).toBe("text");
  return c;
}

/** pairById by definition: each answers row gets the submission row with the same id. */
function naivePairing(sub: string[], ans: string[]): Int32Array {
  const at = new Map<string, number>();
  sub.forEach((s, i) => at.set(s, i));
  return Int32Array.from(ans, (a) => at.get(a)!);
}

function shuffle<T>(a: T[], r: () => number): T[] {
  const b = a.slice();
  for (let i = b.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [b[i], b[j]] = [b[j], b[i]];
  }
  return b;
}

function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof CsvError) return e.message;
    throw e;
  }
  return "no error";
}

describe("text id join", () => {
  const r = rng(11);
  // 300k short ids: with 32-bit hashes some collide, exercising the re-probe.
  const ans = Array.from({ length: 300_000 }, (_, i) => `x${(i * 7919).toString(36)}${i % 3 ? "é" : ""}`);
  const sub = shuffle(ans, r);

  it("pairs shuffled ids as the definition does (some hashes colliding)", () => {
    const a = textColumn(ans);
    const hashes = new Set(Array.from({ length: ans.length }, (_, i) => a.text!.hash(i)));
    expect(hashes.size).toBeLessThan(ans.length);
    expect(pairById(textColumn(sub), a)).toEqual(naivePairing(sub, ans));
  });

  it("ids of different lengths and common prefixes", () => {
    const ids = ["a", "ab", "abc", "b", "ba", "abd", "aa"];
    const s = shuffle(ids, r);
    expect(pairById(textColumn(s), textColumn(ids))).toEqual(naivePairing(s, ids));
  });

  it("invalid submissions get the general path's errors", () => {
    const small = ans.slice(0, 2000),
      s = shuffle(small, r);
    const cases: [string[], string[], RegExp][] = [
      [[...s.slice(0, -1), s[0]], small, /appears more often/],
      [[...s.slice(0, -1), "nope"], small, /"nope" is not in the answers/],
      [[...s.slice(0, -1), "NA"], small, /missing id/],
      [s, [...small.slice(0, -1), "NA"], /the answers have a missing id/],
    ];
    for (const [subIds, ansIds, re] of cases)
      expect(errorOf(() => pairById(textColumn(subIds), textColumn(ansIds)))).toMatch(re);
  });

  it("duplicated answer ids still pair in pandas' sort order", () => {
    const a = ["k", "b", "k", "a", "b", "k"],
      s = ["b", "k", "a", "k", "k", "b"];
    const out = pairById(textColumn(s), textColumn(a));
    expect(Array.from(out, (i) => s[i])).toEqual(a);
    expect(new Set(out).size).toBe(a.length);
  });
});

describe("number fast paths agree with Number()", () => {
  /** Parses each string as a cell, plain and quoted, and counts disagreements with Number(). */
  function disagreements(vals: string[]): string[] {
    const t = readCsvText("a,b\n" + vals.map((v) => `${v},"${v}"`).join("\n") + "\n", "csv", {
      chunkSize: 4099,
    });
    const a = t.column("a")!.values!,
      b = t.column("b")!.values!;
    return vals.filter((v, i) => !Object.is(a[i], Number(v)) || !Object.is(b[i], a[i]));
  }

  /** The same for cells that pandas keeps as text: the column must come out as text. */
  function staysText(vals: string[]): boolean {
    const t = readCsvText("a\n" + vals.join("\n") + "\n", "csv");
    return t.column("a")!.kind === "text" && t.column("a")!.strings!.join() === vals.join();
  }

  it("boundary cases", () => {
    const vals = [
      "1e22",
      "1e23",
      "9007199254740993",
      "9007199254740992",
      "9007199254740995",
      "-9007199254740993",
      "0.1",
      "0.30000000000000004",
      "000123.4500",
      "-0.0",
      "+1.5",
      "-1.5e-3",
      "123456789012345678",
      "1234567890123456789",
      "12345678901234567890",
      "0.0000000000000000000000123",
      "1.7976931348623157e308",
      "2.2250738585072014e-308",
      "4.9e-324",
      "0.00831234567890123",
      "99999999999999999",
      "9999999999999999.5",
      "0.1000000000000000055511151231257827",
      "1.00000000000000011102230246251565404236316680908203125",
      "1.00000000000000011102230246251565404236316680908203124",
      "1.00000000000000011102230246251565404236316680908203126",
      "5e-324",
      "1e-22",
      "123456789012345.6",
      "1234567890123456.7",
      "12345678901234567.8",
      "8.98846567431158e307",
      ".5",
      "5.",
      "-.5e1",
      "0.",
      "-0.",
      "0.000",
      "0.0000000000000000000001",
      "0.00000000000000000000001",
      "0.1234567890123456789",
      "0.12345678901234567891",
      "0.0001234567890123456789",
      "0.1234567890123456",
      "-0.9999999999999999",
      "0.99999999999999999",
      "0.0e5",
      "0.5e-3",
      "00.5",
      "0.1.2",
      "0.5x",
    ];
    expect(disagreements(vals.filter((v) => !Number.isNaN(Number(v))))).toEqual([]);
    expect(staysText(["0.1.2", "0.5"])).toBe(true);
    expect(staysText(["0.5", "0.5x"])).toBe(true);
    expect(staysText(["0.5", "-0.x"])).toBe(true);
  });

  it("single digits before a comma, a line end or the end of the file", () => {
    for (const eol of ["\n", "\r\n", "\r"]) {
      const t = readCsvText(["a,b,c", "0,1,2", "9,5,7", "3,4,8"].join(eol), "csv", { chunkSize: 3 });
      expect(t.columns.map((c) => [c.kind, Array.from(c.values!)])).toEqual([
        ["int", [0, 9, 3]],
        ["int", [1, 5, 4]],
        ["int", [2, 7, 8]],
      ]);
    }
    // Long runs of digits (past the tokenizer's initial 64 fields), split across chunks.
    const wide = Array.from({ length: 3 }, (_, r) => Array.from({ length: 150 }, (_, k) => (k * 7 + r) % 10));
    const w = readCsvText(
      [wide[0].map((_, k) => `c${k}`), ...wide].map((row) => row.join(",")).join("\n"),
      "csv",
      { chunkSize: 97 },
    );
    expect(w.columns.map((c) => Array.from(c.values!))).toEqual(
      wide[0].map((_, k) => wide.map((row) => row[k])),
    );
    const t = readCsvText("a,b,c,d\n1,-0,0,1\n0,0,1x,2.5\n", "csv");
    expect(t.column("a")!.kind).toBe("int");
    expect(Object.is(t.column("b")!.values![0], 0)).toBe(true); // int64 -0 is 0
    expect(t.column("c")!.strings).toEqual(["0", "1x"]);
    expect(t.column("d")!.kind).toBe("float");
  });

  it("random decimals of 1 to 21 significant digits, with and without exponents", () => {
    const r = rng(5);
    const vals: string[] = [];
    for (let k = 0; vals.length < 60_000; k++) {
      const digits = 1 + (k % 21);
      let m = "";
      for (let d = 0; d < digits; d++) m += Math.floor(r() * 10);
      if (k % 11 === 0) m = m.slice(0, -1) + "5"; // near halfway cases
      const point = Math.floor(r() * (digits + 1));
      let s =
        (k % 3 === 0 ? "-" : "") + (k % 4 === 0 ? "0.00" + m : m.slice(0, point) + "." + m.slice(point));
      if (k % 5 === 0) s += `e${Math.floor(r() * 60) - 30}`;
      vals.push(s);
    }
    expect(disagreements(vals)).toEqual([]);
  });
});

describe("radix sort of doubles", () => {
  it("orders as Float64Array.prototype.sort, bit for bit", () => {
    const r = rng(9);
    const gens: (() => number)[] = [
      () => r(),
      () => (r() - 0.5) * 10 ** (Math.floor(r() * 80) - 40),
      () => (Math.floor(r() * 10) / 10) * (r() < 0.5 ? -1 : 1),
      () => (r() < 0.5 ? -0 : 0),
      () => [Infinity, -Infinity, 5e-324, -5e-324, 1.7976931348623157e308, 1][Math.floor(r() * 6)],
      () => 0.25,
    ];
    for (const gen of gens)
      for (const n of [0, 1, 5000, 70_000]) {
        const x = Float64Array.from({ length: n }, gen);
        const a = x.slice(),
          b = x.slice();
        a.sort();
        sortDoubles(b);
        expect(Array.from(b, (v) => Object.is(v, -0))).toEqual(Array.from(a, (v) => Object.is(v, -0)));
        expect(b).toEqual(a);
      }
  });
});

describe("multi-class log loss through a row pairing", () => {
  it("equals the loss of the gathered predictions, and reports the same missing row", () => {
    const r = rng(21);
    const n = 3000,
      k = 7;
    const perm = Int32Array.from(
      shuffle(
        Array.from({ length: n }, (_, i) => i),
        r,
      ),
    );
    const truth = Array.from({ length: k }, () => new Float64Array(n));
    for (let i = 0; i < n; i++) truth[Math.floor(r() * k)][i] = 1;
    truth[2][5] = 0.5; // not one-hot
    const prob = Array.from({ length: k }, () => Float64Array.from({ length: n }, () => r()));
    prob[1][perm[9]] = 0; // clipped
    const gathered = prob.map((p) => Float64Array.from(perm, (i) => p[i]));
    expect(multiclassLogLoss(truth, prob, perm)).toBe(multiclassLogLoss(truth, gathered));
    prob[3][perm[17]] = NaN;
    expect(() => multiclassLogLoss(truth, prob, perm)).toThrow(/row 18\)/);
  });
});
