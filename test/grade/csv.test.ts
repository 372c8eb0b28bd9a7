import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { readCsvFile, readCsvText, CsvError, type Table } from "../../src/tabular/csv.js";

interface PandasCase {
  text: string;
  ok: boolean;
  rows?: number;
  cols?: { name: string; kind: string; values: (string | number | null)[] }[];
}
const corpus = (
  JSON.parse(readFileSync("test/grade/fixtures/pandas-csv.json", "utf8")) as { cases: PandasCase[] }
).cases;

function summary(t: Table) {
  return t.columns.map((c) => ({
    name: c.name,
    kind: c.kind,
    values: c.kind === "text" ? c.strings! : Array.from(c.values!, (v) => (Number.isNaN(v) ? null : v)),
  }));
}

function expectLikePandas(c: PandasCase, chunkSize?: number) {
  let t: Table;
  try {
    t = readCsvText(c.text, "csv", { chunkSize });
  } catch (e) {
    expect(e).toBeInstanceOf(CsvError);
    expect(c.ok, `${JSON.stringify(c.text)}: ${(e as Error).message}`).toBe(false);
    return;
  }
  expect(c.ok, JSON.stringify(c.text)).toBe(true);
  expect(t.rowCount).toBe(c.rows);
  const mine = summary(t);
  c.cols!.forEach((want, k) => {
    const got = mine[k];
    expect(got.name).toBe(want.name);
    if (want.kind !== "objbool")
      expect(got.kind, `${JSON.stringify(c.text)} column ${want.name}`).toBe(want.kind);
    want.values.forEach((v, i) => {
      const g = got.values[i];
      if (got.kind === "text" || want.kind === "objbool" || got.kind === "bool") expect(g).toEqual(v);
      else expect(g).toBe(v === null ? null : Number(String(v).replace("inf", "Infinity")));
    });
  });
}

describe("agrees with pandas 1.5 read_csv on a random corpus", () => {
  it(`${corpus.length} texts, whole`, () => corpus.forEach((c) => expectLikePandas(c)));
  it(`${corpus.length} texts, 1-byte chunks`, () => corpus.forEach((c) => expectLikePandas(c, 1)));
  it(`${corpus.length} texts, 4-byte chunks`, () => corpus.forEach((c) => expectLikePandas(c, 4)));
});

describe("pandas semantics", () => {
  it("BOM, CRLF, blank lines, spaces around numbers", () => {
    const t = readCsvText("\ufeffid,p\r\n\r\na, 0.5 \r\n  \r\nb,1\r\n");
    expect(t.names).toEqual(["id", "p"]);
    expect(t.rowCount).toBe(2);
    expect(t.column("p")!.kind).toBe("float");
    expect(Array.from(t.column("p")!.values!)).toEqual([0.5, 1]);
  });
  it("duplicate header names become name.1, name.2", () => {
    expect(readCsvText("a,a,a,a.1\n1,2,3,4").names).toEqual(["a", "a.1", "a.2", "a.1.1"]);
    expect(readCsvText(",x,\n1,2,3").names).toEqual(["Unnamed: 0", "x", "Unnamed: 2"]);
  });
  it("NA tokens are missing even when quoted; types per column", () => {
    const t = readCsvText('a,b,c,d\n"NA",1,True,007\nnull,2,false,8\n,3,TRUE,9');
    expect(t.column("a")!.kind).toBe("float");
    expect(t.column("b")!.kind).toBe("int");
    expect(t.column("c")!.kind).toBe("bool");
    expect(Array.from(t.column("d")!.values!)).toEqual([7, 8, 9]);
  });
  it("one text cell keeps every original string of the column (second pass)", () => {
    const rows = Array.from({ length: 5000 }, (_, i) => `${i},00${i}`).join("\n");
    const t = readCsvText(`id,v\n${rows}\nx,abc\n`, "csv", { chunkSize: 1000 });
    const v = t.column("v")!;
    expect(v.kind).toBe("text");
    expect(v.strings![0]).toBe("000");
    expect(v.strings![4999]).toBe("004999");
    expect(v.strings![5000]).toBe("abc");
    expect(t.column("id")!.strings![1]).toBe("1");
  });
  it("quotes: doubled quotes, commas and newlines inside, text after the closing quote", () => {
    const t = readCsvText('a,b\n"x,""y""\nz",1\n"p"q,2');
    expect(t.column("a")!.strings).toEqual(['x,"y"\nz', "pq"]);
  });
  it("short rows are padded with missing values; long rows are an error", () => {
    const t = readCsvText("a,b\n1\n2,3");
    expect(Array.from(t.column("b")!.values!)).toEqual([NaN, 3]);
    expect(() => readCsvText("a,b\n1,2\n3,4,5")).toThrow(/expected 2 fields/);
  });
  it("numbers: exponent, overflow stays text, big integers", () => {
    expect(readCsvText("a\n1e400\n1").column("a")!.kind).toBe("text");
    expect(readCsvText("a\n-Infinity\ninf").column("a")!.kind).toBe("float");
    expect(readCsvText("a\n0.1000000000000000055511151231257827\n1").column("a")!.values![0]).toBe(0.1);
    expect(readCsvText("a\n99999999999999999999999\n1").column("a")!.kind).toBe("text");
  });
  it("keep: only named columns are materialised, names are all known", () => {
    const t = readCsvText("a,b,c\n1,x,3", "csv", { keep: (n) => n === "c" });
    expect(t.names).toEqual(["a", "b", "c"]);
    expect(t.columns.map((c) => c.name)).toEqual(["c"]);
  });
  it("keep: kept columns read the same beside dropped ones and an index column, at any chunk size", () => {
    const rows = Array.from({ length: 3000 }, (_, i) => `${i},${i / 7},x${i},${i * 1e10},0.${i}5,"${i}"`);
    const withIndex = "a,b,c,d,e\n" + rows.join("\n") + "\n";
    const plain = "i,a,b,c,d,e\n" + rows.join("\n") + "\n";
    for (const chunkSize of [7, 64, 4096]) {
      const all = readCsvText(plain, "csv", { chunkSize });
      const kept = ["b", "c", "e"];
      const some = readCsvText(withIndex, "csv", { chunkSize, keep: (n) => kept.includes(n) });
      expect(some.columns.map((c) => c.name)).toEqual(kept);
      expect(some.columns.map((c) => c.kind)).toEqual(["text", "int", "int"]);
      for (const name of kept) {
        const [x, y] = [some.column(name)!, all.column(name)!];
        expect(x.kind).toBe(y.kind);
        expect(x.values ? Array.from(x.values) : x.strings).toEqual(
          y.values ? Array.from(y.values) : y.strings,
        );
      }
    }
  });
});

describe("numbers are parsed exactly as Number() (round_trip)", () => {
  it("random doubles in shortest, fixed and exponent notation, quoted and not", () => {
    let seed = 7;
    const r = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), seed / 4294967296);
    const vals: string[] = [];
    for (let k = 0; vals.length < 60_000; k++) {
      const x = [r(), r() * 1e6, r() * 1e-7, -r() * 100, Math.floor(r() * 2 ** 53) * 7, r() * 1e18][k % 6];
      let s = String(x);
      if (k % 5 === 0) s = x.toPrecision(1 + (k % 19));
      if (k % 7 === 0) s = x.toExponential(k % 18);
      vals.push(s);
    }
    const t = readCsvText("a,b\n" + vals.map((v) => `${v},"${v}"`).join("\n") + "\n", "csv", {
      chunkSize: 65_543,
    });
    const a = t.column("a")!.values!,
      b = t.column("b")!.values!;
    let bad = 0;
    vals.forEach((v, i) => {
      if (!Object.is(a[i], Number(v)) || !Object.is(b[i], Number(v))) bad++;
    });
    expect(bad).toBe(0);
  });
});

describe("malformed input is a CsvError with a reason", () => {
  const bad: [string, string | Buffer, RegExp][] = [
    ["empty file", "", /empty/],
    ["only blank lines", "\n\r\n  \n", /empty/],
    ["binary garbage (NUL)", Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0xff]), /NUL/],
    ["invalid UTF-8", Buffer.from([0x61, 0x0a, 0xff, 0xfe, 0x0a]), /UTF-8/],
    ["unterminated quote", 'a\n"abc', /never closed/],
    ["ragged row", "a\n1,2\n3,4,5", /fields/],
  ];
  for (const [name, text, re] of bad) {
    it(name, () => {
      expect(() => readCsvText(text)).toThrow(CsvError);
      expect(() => readCsvText(text)).toThrow(re);
    });
  }
  it("header only is an empty table", () => {
    const t = readCsvText("id,target\n");
    expect(t.rowCount).toBe(0);
    expect(t.names).toEqual(["id", "target"]);
  });
  it("a line over the limit, and more rows than allowed", () => {
    expect(() =>
      readCsvText("a\n" + "x".repeat(5000), "csv", { maxLineBytes: 1000, chunkSize: 100 }),
    ).toThrow(/longer than/);
    expect(() => readCsvText("a\n1\n2\n3", "csv", { maxRows: 2 })).toThrow(/more than 2 data rows/);
  });
  it("huge lines and headers stop early instead of exhausting memory", () => {
    expect(() => readCsvText("a\n" + "x".repeat(17 * 1024 * 1024))).toThrow(/longer than/);
    expect(() => readCsvText("a,".repeat(1_000_001) + "a\n1\n")).toThrow(/more than 1000000 columns/);
  });
  it("files: missing path, a directory", () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-csv-"));
    expect(() => readCsvFile(join(dir, "nope.csv"))).toThrow(CsvError);
    expect(() => readCsvFile(dir)).toThrow(CsvError);
    writeFileSync(join(dir, "ok.csv"), "a\n1\n");
    expect(readCsvFile(join(dir, "ok.csv")).rowCount).toBe(1);
  });
});

describe("integers outside int64: the order of the cells decides, as in pandas' parser", () => {
  // [cells of column a, pandas 2.2.3's dtype, values] — pandas 1.5.3 gives the same.
  const big = "100000000000000000000",
    below = "-9223372036854775809",
    uint = "9223372036854775808";
  const cases: [string[], string, (string | number | null)[]][] = [
    [[below, "1"], "text", [below, "1"]],
    [["1", below], "text", ["1", below]],
    [[big, "1.5"], "text", [big, "1.5"]],
    [["1.5", big], "float", [1.5, 1e20]],
    [[below, "1.5"], "float", [-9223372036854775808, 1.5]],
    [["1", below, "NA", "1.5"], "float", [1, -9223372036854775808, null, 1.5]],
    [[big, "nan"], "text", [big, null]],
    [[below, "nan"], "text", [below, null]],
    [[uint, "1"], "int", [9223372036854775808, 1]],
    [[uint, "-1"], "text", [uint, "-1"]],
    // uint64 beside a missing value: object, and the missing-value tokens stay text.
    [[uint, "nan"], "text", [uint, "nan"]],
    [[uint, "NA", "1"], "text", [uint, "NA", "1"]],
    [["1e20", uint], "float", [1e20, 9223372036854775808]],
    [[big, "inf"], "text", [big, "inf"]],
  ];
  it.each(cases.map((c) => [c[0].join(" "), c] as const))("%s", (_n, [cells, kind, values]) => {
    const t = readCsvText("a,b\n" + cells.map((v, i) => `${v},${i}`).join("\n") + "\n");
    expect(summary(t)[0]).toEqual({ name: "a", kind, values });
  });
});

describe("rows split across chunks", () => {
  // Rows ended by a bare CR, quoted fields holding line feeds, CRLF: every chunk size gives the
  // table read whole (the reader finishes a split row from the next chunk's first line).
  const text = 'id,v\ra,"x\ny"\rb,2\r\nc,"p\n\nq"\nd,0.5\re,"\r"\n';
  it("every chunk size agrees with the whole read", () => {
    const whole = summary(readCsvText(text, "csv"));
    expect(whole[0].values).toEqual(["a", "b", "c", "d", "e"]);
    for (let size = 1; size <= text.length; size++)
      expect(summary(readCsvText(text, "csv", { chunkSize: size })), `chunk ${size}`).toEqual(whole);
  });
});
