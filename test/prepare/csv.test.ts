import { describe, expect, it } from "vitest";
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
    expect(inferType(["True", ""])).toBe("text");
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
});
