// The streaming check the format-check endpoint uses: the same tokenizer and limits as the reader.
import { describe, expect, it } from "vitest";
import { CsvChecker, CsvError, parseCsvRows, readCsvText } from "../../src/tabular/csv.js";

function check(text: string, chunk = 3, opts: { maxRows?: number } = {}) {
  const c = new CsvChecker("submission.csv", opts);
  const buf = Buffer.from(text);
  for (let i = 0; i < buf.length; i += chunk) c.push(buf.subarray(i, i + chunk));
  return c.end();
}

describe("CsvChecker", () => {
  it("agrees with the reader on names and row count, chunk by chunk", () => {
    const texts = [
      '\ufeffid,"p,q",id\r\na,1,2\r\n\r\nb,"x\ny",3\n',
      "a,b\n1,2,3\n4,5,6\n", // an index column on the first data row
      "only\n\n  \nx\n",
    ];
    for (const t of texts) {
      const t1 = readCsvText(t);
      for (const chunk of [1, 2, 7, 1 << 20])
        expect(check(t, chunk)).toEqual({ names: t1.names, rows: t1.rowCount });
    }
  });
  it("reports the reader's structural errors", () => {
    for (const bad of ["", "a,b\n1,2\n1,2,3\n", 'a\n"open', "a\n\u0000\n", "a,b\n1,2\n"]) {
      let reader: string | null = null,
        checker: string | null = null;
      try {
        readCsvText(bad);
      } catch (e) {
        reader = (e as Error).constructor.name;
      }
      try {
        check(bad);
      } catch (e) {
        expect(e).toBeInstanceOf(CsvError);
        checker = (e as Error).constructor.name;
      }
      expect(checker, JSON.stringify(bad)).toBe(reader);
    }
    expect(() => check("a\n1\n2\n3\n", 4, { maxRows: 2 })).toThrow(/more than 2 data rows/);
  });
  it("parseCsvRows splits records as the reader does", () => {
    expect(parseCsvRows('\ufeffa,b\r\n"x""y",\n\n  \n"",1\n')).toEqual([
      ["a", "b"],
      ['x"y', ""],
      ["", "1"],
    ]);
  });
});
