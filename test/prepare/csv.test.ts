import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scanTable } from "../../src/prepare/table-file.js";
import {
  inferType,
  parseCsv,
  pyFloat,
  quoteCell,
  readTable,
  renderCell,
  writeTable,
} from "../../src/prepare/csv.js";

describe("pandas-compatible CSV round trip", () => {
  it("renders doubles as Python's repr", () => {
    const cases: [number, string][] = [
      [2, "2.0"],
      [0.5, "0.5"],
      [-73.844311, "-73.844311"],
      [0.0001, "0.0001"],
      [0.00001, "1e-05"],
      [1.5e-7, "1.5e-07"],
      [123456789012345, "123456789012345.0"],
      [1e16, "1e+16"],
      [1.2345678901234568e17, "1.2345678901234568e+17"],
      [0, "0.0"],
      [-0, "-0.0"],
      [1 / 120, "0.008333333333333333"],
      [1 / 99, "0.010101010101010102"],
      [100000, "100000.0"],
    ];
    for (const [x, s] of cases) expect(pyFloat(x), String(x)).toBe(s);
  });

  it("infers column types over the whole column", () => {
    expect(inferType(["1", "007", "-3"])).toBe("int");
    expect(inferType(["1", "", "3"])).toBe("float"); // a missing cell makes ints float
    expect(inferType(["1", "2.5"])).toBe("float");
    expect(inferType(["1.0E5", "NaN"])).toBe("float");
    expect(inferType(["True", "false"])).toBe("bool");
    expect(inferType(["True", "x"])).toBe("text");
    expect(inferType(["a", "1"])).toBe("text");
    expect(inferType(["", "NA"])).toBe("float");
  });

  it("re-renders cells as pandas writes them", () => {
    expect(renderCell("007", "int")).toBe("7");
    expect(renderCell("+5", "int")).toBe("5");
    expect(renderCell("4.50", "float")).toBe("4.5");
    expect(renderCell("0", "float")).toBe("0.0");
    expect(renderCell("1.0E5", "float")).toBe("100000.0");
    expect(renderCell("N/A", "text")).toBe("");
    expect(renderCell("None", "text")).toBe(""); // pandas >= 2.0, as upstream used
    expect(renderCell("TRUE", "bool")).toBe("True");
  });

  it("parses quoted fields and writes minimal quoting", () => {
    expect(parseCsv('a,b\r\n"x, ""y""",2\n"multi\nline",3\n')).toEqual([
      ["a", "b"],
      ['x, "y"', "2"],
      ["multi\nline", "3"],
    ]);
    expect(quoteCell('say "hi"')).toBe('"say ""hi"""');
    expect(quoteCell("plain")).toBe("plain");
    const t = readTable("id,v,s\n1,4.50,a\n2,,b c\n");
    expect(t.types).toEqual(["int", "float", "text"]);
    expect(
      writeTable(
        t.header,
        t.rows.map((r) => r.map((v, k) => renderCell(v, t.types[k]))),
      ),
    ).toBe("id,v,s\n1,4.5,a\n2,,b c\n");
  });

  // Issue 22's preparation differences, each checked against pandas 2.2.3 (and 1.5.3) read_csv + to_csv.
  it("writes lowercase booleans beside missing cells as True/False, as pandas", () => {
    const t = readTable("a,b\ntrue,1\n,2\nFALSE,3\n");
    expect(t.types[0]).toBe("bool");
    expect(t.rows.map((r) => renderCell(r[0], t.types[0]))).toEqual(["True", "", "False"]);
  });

  it("renames blank and repeated header names as pandas (Unnamed: N, name.1)", async () => {
    expect(readTable("a,b,,b\n1,2,3,4\n").header).toEqual(["a", "b", "Unnamed: 2", "b.1"]);
    const dir = mkdtempSync(join(tmpdir(), "medalist-prep-csv-"));
    const file = join(dir, "t.csv");
    writeFileSync(file, "Elevation,,Elevation\n1,2,3\n");
    expect((await scanTable(file)).header).toEqual(["Elevation", "Unnamed: 1", "Elevation.1"]);
  });

  it("types integers outside int64 by the order of the cells, as pandas' parser", () => {
    // A float cell first: float64, and the big integer is written 1e+20.
    expect(inferType(["1.5", "100000000000000000000"])).toBe("float");
    expect(renderCell("100000000000000000000", "float")).toBe("1e+20");
    // The big integer first: object (text), written verbatim.
    expect(inferType(["100000000000000000000", "1.5"])).toBe("text");
    expect(inferType(["1", "-9223372036854775809"])).toBe("text");
    expect(inferType(["-9223372036854775809", "1.5"])).toBe("float");
    expect(inferType(["9223372036854775808", "1"])).toBe("int");
    // uint64 beside a missing cell: object, and pandas keeps the missing-value token as text.
    expect(inferType(["9223372036854775808", "NA"])).toBe("text-na");
    expect(renderCell("NA", "text-na")).toBe("NA");
  });
});
