/**
 * The format endpoint and the grader agree: for every submission, the endpoint's `valid` (the
 * grader's checks with the public sample standing in for the answers) equals the grader's
 * `valid_submission` against the real answers. Fuzzed on the toy competitions (size from
 * MEDALIST_FUZZ_CASES) and run on every case of the lite graders' reference vectors.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { scoreSubmission } from "../../src/grade/grade.js";
// A seeded generator: failures are reproducible from the printed seed.
import { rng } from "../../src/prepare/random.js";
import { breather } from "../helpers/breathe.js";
import { columnsUsed } from "../../src/grade/graders.js";
import { loadGraderSpec, type GraderSpec } from "../../src/grade/spec.js";
import { parseCsvRows, readCsvText } from "../../src/tabular/csv.js";
import { startValidationServer } from "../../src/execute/validation-server.js";
import {
  checkFormatFileWithGrader,
  checkFormatWithGrader,
  standInOfFile,
} from "../../src/grade/format-rules.js";

const CASES = Number(process.env.MEDALIST_FUZZ_CASES ?? 150);
const dir = mkdtempSync(path.join(os.tmpdir(), "medalist-formatcheck-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let seq = 0;

function put(text: string | Buffer): string {
  const f = path.join(dir, `${++seq}.csv`);
  writeFileSync(f, text);
  return f;
}

const cell = (s: string) => (/[",\r\n]/.test(s) || s !== s.trim() ? `"${s.replaceAll('"', '""')}"` : s);
const csvOf = (rows: string[][]) => rows.map((r) => r.map(cell).join(",")).join("\n") + "\n";

/** The grader's verdict (real answers) and the endpoint's (sample only) on one submission. */
function both(spec: GraderSpec, sampleFile: string, answersCsv: string, submission: string | Buffer) {
  const used = columnsUsed(spec).answers;
  const answers = readCsvText(answersCsv, "answers", { keep: (n) => used.includes(n) });
  const file = put(submission);
  const grader = scoreSubmission(spec, file, answers);
  const endpoint = checkFormatFileWithGrader(spec, standInOfFile(spec, sampleFile), file);
  return { grader, endpoint };
}

interface Toy {
  id: string;
  spec: GraderSpec;
  /** Target columns and a valid prediction row for them. */
  targets: string[];
  predict: (r: () => number) => string[];
  truth: (r: () => number, i: number) => string[];
  sample: () => string[];
}

const toys: Toy[] = [
  {
    id: "toy-churn",
    spec: loadGraderSpec("competitions/toy-churn")!,
    targets: ["churned"],
    predict: (r) => [String(Math.round(r() * 1000) / 1000)],
    truth: (_r, i) => [String(i % 2)],
    sample: () => ["0.5"],
  },
  {
    id: "toy-house-prices",
    spec: loadGraderSpec("competitions/toy-house-prices")!,
    targets: ["price"],
    predict: (r) => [String(Math.round(r() * 500000))],
    truth: (r) => [String(Math.round(r() * 500000))],
    sample: () => ["0"],
  },
  {
    id: "toy-species",
    spec: loadGraderSpec("competitions/toy-species")!,
    targets: ["alder", "birch", "cedar", "dogwood", "elm"],
    predict: (r) => {
      const k = Math.floor(r() * 5);
      return [0, 1, 2, 3, 4].map((j) => (j === k ? "0.6" : "0.1"));
    },
    truth: (r) => {
      const k = Math.floor(r() * 5);
      return [0, 1, 2, 3, 4].map((j) => (j === k ? "1" : "0"));
    },
    sample: () => ["0.2", "0.2", "0.2", "0.2", "0.2"],
  },
];

type Rows = string[][];
const pick = <T>(r: () => number, xs: T[]) => xs[Math.floor(r() * xs.length)];

/** One mutation of a valid submission (header first); its name for the failure message. */
const mutations: [string, (rows: Rows, r: () => number, toy: Toy) => Rows | string | Buffer][] = [
  ["unchanged", (rows) => rows],
  ["out of range", (rows, r) => setCell(rows, r, pick(r, ["1.7", "-0.1", "2", "-5"]))],
  ["NaN", (rows, r) => setCell(rows, r, pick(r, ["", "nan", "NaN", "NA", "null"]))],
  ["infinite", (rows, r) => setCell(rows, r, pick(r, ["inf", "-inf", "1e400", "Infinity"]))],
  ["text in a number column", (rows, r) => setCell(rows, r, pick(r, ["abc", "0.5x", "1,5", "yes"]))],
  ["missing column", (rows, r) => dropColumn(rows, Math.floor(r() * rows[0].length))],
  ["extra column", (rows) => rows.map((row, i) => [...row, i === 0 ? "extra" : "1"])],
  ["renamed column", (rows, r) => rename(rows, Math.floor(r() * rows[0].length))],
  ["columns reordered", (rows) => rows.map((row) => [...row].reverse())],
  ["duplicate id", (rows, r) => dupId(rows, r)],
  [
    "missing row",
    (rows, r) => {
      const drop = 1 + Math.floor(r() * (rows.length - 1));
      return rows.filter((_, i) => i !== drop);
    },
  ],
  ["extra row", (rows) => [...rows, rows[1]]],
  ["unknown id", (rows, r) => setId(rows, r, "no-such-id")],
  ["id as a float", (rows, r) => setId(rows, r, `${rows[1][0]}.0`)],
  ["empty file", () => ""],
  ["header only", (rows) => [rows[0]]],
  ["BOM", (rows) => "\uFEFF" + csvOf(rows)],
  ["CRLF", (rows) => csvOf(rows).replaceAll("\n", "\r\n")],
  ["blank lines", (rows) => csvOf(rows).replace("\n", "\n\n\n")],
  [
    "ragged row",
    (rows, r) => {
      const at = 1 + Math.floor(r() * (rows.length - 1));
      return rows.map((row, i) => (i === at ? [...row, "9"] : row));
    },
  ],
  ["short row", (rows) => rows.map((row, i) => (i === 2 ? row.slice(0, 1) : row))],
  ["quoted values", (rows) => rows.map((row) => row.map((v) => `"${v}"`).join(",")).join("\n") + "\n"],
  ["spaces", (rows, r) => setCell(rows, r, " 0.5 ")],
  ["rows do not sum to 1", (rows, r) => setCell(rows, r, "0.9")],
  ["invalid UTF-8", (rows) => Buffer.concat([Buffer.from(csvOf(rows)), Buffer.from([0xff, 0xfe, 0x0a])])],
  ["no newline at the end", (rows) => csvOf(rows).trimEnd()],
  ["binary junk", (_rows, r) => Buffer.from(Array.from({ length: 64 }, () => Math.floor(r() * 256)))],
];

function setCell(rows: Rows, r: () => number, v: string): Rows {
  const i = 1 + Math.floor(r() * (rows.length - 1));
  const j = 1 + Math.floor(r() * (rows[0].length - 1));
  return rows.map((row, k) => (k === i ? row.map((x, m) => (m === j ? v : x)) : row));
}
function setId(rows: Rows, r: () => number, v: string): Rows {
  const i = 1 + Math.floor(r() * (rows.length - 1));
  return rows.map((row, k) => (k === i ? [v, ...row.slice(1)] : row));
}
function dupId(rows: Rows, r: () => number): Rows {
  const i = 1 + Math.floor(r() * (rows.length - 2));
  return rows.map((row, k) => (k === i + 1 ? [rows[i][0], ...row.slice(1)] : row));
}
const dropColumn = (rows: Rows, j: number) => rows.map((row) => row.filter((_, m) => m !== j));
const rename = (rows: Rows, j: number) =>
  rows.map((row, k) => (k === 0 ? row.map((x, m) => (m === j ? x.toUpperCase() : x)) : row));

function shuffle<T>(xs: T[], r: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

describe("the format endpoint and the grader agree", () => {
  it("rejects a probability of 1.7, as the grader does", () => {
    const toy = toys[0];
    const sample = put("id,churned\n1,0.5\n2,0.5\n3,0.5\n");
    const { grader, endpoint } = both(
      toy.spec,
      sample,
      "id,churned\n1,0\n2,1\n3,0\n",
      "id,churned\n1,0.2\n2,1.7\n3,0.1\n",
    );
    expect(grader.valid).toBe(false);
    expect(endpoint).toEqual({
      valid: false,
      errors: ['column "churned" has 1.7 (data row 2); values must lie in [0, 1]'],
    });
  });

  it("accepts extra columns and any row order where the grader does, and says why otherwise", () => {
    const spec = toys[0].spec;
    const stand = standInOfFile(spec, put("id,churned\n1,0.5\n2,0.5\n3,0.5\n"));
    expect(checkFormatWithGrader(spec, stand, "churned,x,id\n0.1,a,3\n0.9,b,1\n0.5,c,2\n")).toEqual({
      valid: true,
      errors: [],
    });
    const short = checkFormatWithGrader(spec, stand, "id,churned\n1,0.5\n2,0.5\n");
    expect(short).toEqual({
      valid: false,
      errors: ["submission has 2 rows, the sample submission has 3"],
    });
    expect(checkFormatWithGrader(spec, stand, "")).toEqual({
      valid: false,
      errors: ["the submission is empty"],
    });
  });

  it("fails closed when the sample cannot stand in for the answers", () => {
    const spec = toys[0].spec;
    const stand = standInOfFile(spec, put("id,other\n1,0.5\n"));
    const r = checkFormatWithGrader(spec, stand, "id,churned\n1,0.5\n");
    expect(r.valid).toBe(false);
    expect(r.errors[0]).toMatch(/^cannot check the format: the sample submission lacks .*"churned"/);
  });

  it(`fuzz: ${CASES} mutated submissions on the toy competitions`, { timeout: 120_000 }, async () => {
    const breathe = breather();
    const seed = Number(process.env.MEDALIST_FUZZ_SEED ?? 20261203);
    const r = rng(seed);
    const seen = new Map<string, { valid: number; invalid: number }>();
    for (let c = 0; c < CASES; c++) {
      await breathe();
      const toy = toys[c % toys.length];
      const n = 4 + Math.floor(r() * 20);
      const textIds = r() < 0.5;
      const ids = Array.from({ length: n }, (_, i) => (textIds ? `row-${i + 100}` : String(i + 1)));
      const header = ["id", ...toy.targets];
      const sampleFile = put(csvOf([header, ...ids.map((id) => [id, ...toy.sample()])]));
      const answers = csvOf([header, ...shuffle(ids, r).map((id, i) => [id, ...toy.truth(r, i)])]);
      const base: Rows = [header, ...shuffle(ids, r).map((id) => [id, ...toy.predict(r)])];
      const [name, mutate] = pick(r, mutations);
      let sub = mutate(base, r, toy);
      if (Array.isArray(sub)) sub = csvOf(sub);
      const { grader, endpoint } = both(toy.spec, sampleFile, answers, sub);
      const why = `${toy.id} seed ${seed} case ${c} (${name}): ${JSON.stringify(String(sub).slice(0, 300))} grader=${JSON.stringify(grader.error)} endpoint=${JSON.stringify(endpoint.errors)}`;
      expect(endpoint.valid, why).toBe(grader.valid);
      expect(endpoint.errors.length === 0, why).toBe(endpoint.valid);
      const s = seen.get(name) ?? { valid: 0, invalid: 0 };
      s[grader.valid ? "valid" : "invalid"]++;
      seen.set(name, s);
    }
    if (process.env.MEDALIST_FUZZ_REPORT) console.log(Object.fromEntries(seen));
    // Both verdicts occur: the corpus is not all-valid or all-invalid.
    const all = [...seen.values()];
    if (CASES >= 50) {
      expect(all.some((s) => s.valid > 0)).toBe(true);
      expect(all.some((s) => s.invalid > 0)).toBe(true);
    }
  });
});

describe("the format endpoint agrees with every reference vector of the lite graders", () => {
  const vectors = "test/fixtures/vectors";
  for (const f of readdirSync(vectors).filter((x) => x.endsWith(".json"))) {
    const id = f.replace(/\.json$/, "");
    const compDir = path.join("competitions", id);
    if (!existsSync(path.join(compDir, "grader.json"))) continue;
    const spec = loadGraderSpec(compDir)!;
    const idName = "id" in spec ? spec.id : null;
    it(id, () => {
      const v = JSON.parse(readFileSync(path.join(vectors, f), "utf8")) as {
        answers_file: string;
        sample_submission_columns: string[];
        cases: { name: string; answers: Record<string, string>; submission_csv: string }[];
      };
      for (const c of v.cases) {
        // The sample as MLE-bench makes it: the answers' ids, the sample's columns, one constant
        // value per column (the first answer row's).
        const rows = parseCsvRows(c.answers[v.answers_file], "answers");
        const at = v.sample_submission_columns.map((n) => rows[0].indexOf(n));
        if (at.some((j) => j < 0)) continue;
        const sample0 = v.sample_submission_columns;
        const sample = [
          v.sample_submission_columns,
          ...rows.slice(1).map((row) => at.map((j, k) => (sample0[k] === idName ? row[j] : rows[1][j]))),
        ];
        const sampleFile = put(csvOf(sample));
        const { grader, endpoint } = both(spec, sampleFile, c.answers[v.answers_file], c.submission_csv);
        expect(
          endpoint.valid,
          `${id} ${c.name}: grader=${JSON.stringify(grader.error)} endpoint=${JSON.stringify(endpoint.errors)}`,
        ).toBe(grader.valid);
      }
    });
  }
});

describe("the endpoint over HTTP runs the grader's checks, off the private folder", () => {
  it("answers {valid, errors} for a probability of 1.7, given only the public sample", async () => {
    // A prepared layout with no private folder at all: the endpoint is only ever given the sample.
    const comp = mkdtempSync(path.join(dir, "comp-"));
    const sample = path.join(comp, "sample_submission.csv");
    writeFileSync(sample, "id,churned\n1,0.5\n2,0.5\n3,0.5\n");
    expect(existsSync(path.join(comp, "prepared", "private"))).toBe(false);
    const server = await startValidationServer();
    try {
      const url = server.register("toy-churn", sample, "run-1", toys[0].spec);
      const post = async (body: string) =>
        (await (await fetch(url, { method: "POST", body })).json()) as Record<string, unknown>;
      const bad = await post("id,churned\n1,0.2\n2,1.7\n3,0.1\n");
      expect(bad).toEqual({
        competition_id: "toy-churn",
        valid: false,
        result: 'Submission is invalid: column "churned" has 1.7 (data row 2); values must lie in [0, 1]',
        errors: ['column "churned" has 1.7 (data row 2); values must lie in [0, 1]'],
      });
      // Extra columns are fine for this grader (the old shape check refused them).
      const ok = await post("id,churned,note\n3,0.2,x\n1,1,y\n2,0,z\n");
      expect(ok.valid).toBe(true);
      expect(Object.keys(ok).sort()).toEqual(["competition_id", "errors", "result", "valid"]);
    } finally {
      await server.close();
    }
  });
});
