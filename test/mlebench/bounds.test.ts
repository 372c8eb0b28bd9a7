// import/export with hostile competition ids and oversized files: one sentence, no byte of the file
// in it, nothing written outside the folder asked for.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { UserError } from "../../src/errors.js";
import { exportRunGroup } from "../../src/mlebench/export.js";
import { importRunGroup } from "../../src/mlebench/import.js";
import { parsePythonJson } from "../../src/mlebench/upstream.js";
import { readResults, readStoredRun, writeResults } from "../../src/suite/store.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";

const HOSTILE = [
  "../../pwned",
  "/tmp/abs",
  "..",
  ".",
  ".hidden",
  "a/b",
  "a\\b",
  "a\u0000b",
  "",
  "x".repeat(129),
];
const SECRET = "SECRET-BYTES-0123456789";

/** An upstream grading report of one submission of `id`. */
const report = (id: string, extra = "") =>
  JSON.stringify({
    total_runs: 1,
    total_runs_with_submissions: 1,
    total_valid_submissions: 1,
    total_medals: 1,
    total_gold_medals: 1,
    total_silver_medals: 0,
    total_bronze_medals: 0,
    total_above_median: 1,
    competition_reports: [
      {
        competition_id: id,
        score: 1,
        gold_threshold: 0.9,
        silver_threshold: 0.8,
        bronze_threshold: 0.7,
        median_threshold: 0.5,
        any_medal: true,
        gold_medal: true,
        silver_medal: false,
        bronze_medal: false,
        above_median: true,
        submission_exists: true,
        valid_submission: true,
        is_lower_better: false,
        created_at: "2026-01-01T00:00:00",
        submission_path: `/runs/${id}_1/submission/submission.csv`,
        note: extra,
      },
    ],
  });

/** main()'s exit code and what it printed on stderr. */
async function cli(argv: string[]): Promise<{ code: number; err: string }> {
  const errs: string[] = [];
  const orig = console.error;
  console.error = (...m: unknown[]) => errs.push(m.map(String).join(" "));
  try {
    return { code: await main(argv), err: errs.join("\n") };
  } finally {
    console.error = orig;
  }
}

/** Every file and folder under `dir` (relative). */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
}

describe("hostile competition ids and oversized files", () => {
  const dirs: string[] = [];
  const tmp = () => {
    // Nested two levels down: what "../.." would reach is inside the outer folder, and checked.
    const outer = mkdtempSync(join(tmpdir(), "medalist-bounds-"));
    dirs.push(outer);
    const inner = join(outer, "p", "q");
    mkdirSync(inner, { recursive: true });
    return { outer, inner };
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    delete process.env.MEDALIST_MAX_IMPORT_BYTES;
  });

  it("import refuses each hostile id in one sentence naming the field, writing nothing", async () => {
    for (const id of HOSTILE) {
      const { outer, inner } = tmp();
      const file = join(inner, "x_grading_report.json");
      writeFileSync(file, report(id));
      const out = join(inner, "imported.json");
      const { code, err } = await cli(["import", file, "--time-limit", "60", "--out", out]);
      expect(code, JSON.stringify(id)).toBe(2);
      expect(err.split("\n")).toHaveLength(1);
      expect(err).toContain("competition_reports[0].competition_id");
      if (id.length > 1) expect(err).not.toContain(id);
      expect(tree(outer)).toEqual(["p", "p/q", "p/q/x_grading_report.json"]);
    }
  });

  it("export refuses results naming a hostile id and writes nothing, read from disk or given", async () => {
    for (const id of HOSTILE) {
      const { outer, inner } = tmp();
      const file = join(inner, "results.json");
      // Written as an attacker would: past writeResults' own checks.
      const runs = [
        fakeRun("toy-churn", 0, "gold"),
        { ...fakeRun("toy-churn", 1, "gold"), competitionId: id },
      ];
      writeFileSync(file, JSON.stringify(fakeSuite("head", runs)));
      const group = join(inner, "group");
      const { code, err } = await cli(["export", "--mlebench", group, file]);
      expect(code, JSON.stringify(id)).toBe(2);
      expect(err.split("\n")).toHaveLength(1);
      expect(err).toContain("runs[1].competitionId");
      expect(() => exportRunGroup(fakeSuite("head", runs), file, group)).toThrow(
        "runs[1].competitionId is not a competition id",
      );
      expect(tree(outer)).toEqual(["p", "p/q", "p/q/results.json"]);
    }
  });

  it("a results file or run record with a hostile run id or competition id is not read", () => {
    const { inner } = tmp();
    const file = join(inner, "results.json");
    const bad = { ...fakeRun("toy-churn", 0, "gold"), runId: "../../pwned" };
    writeFileSync(file, JSON.stringify(fakeSuite("head", [bad])));
    expect(() => readResults(file)).toThrow(/runs\[0\]\.runId/);
    expect(() => writeResults(join(inner, "w.json"), fakeSuite("head", [bad]))).toThrow();
    const record = join(inner, "run.json");
    const run = { ...fakeRun("toy-churn", 0, "gold"), competitionId: "../../pwned" };
    writeFileSync(record, JSON.stringify({ schemaVersion: 1, suiteHash: "abc", agent: "a", result: run }));
    expect(readStoredRun(record)).toBeNull();
  });

  it("an oversized report is refused in one sentence before it is read", async () => {
    process.env.MEDALIST_MAX_IMPORT_BYTES = String(1024 ** 2);
    const { inner } = tmp();
    const file = join(inner, "big_grading_report.json");
    // A valid report padded past the cap with bytes that must never reach the message.
    writeFileSync(file, report("toy-churn", SECRET.repeat(Math.ceil((2 * 1024 ** 2) / SECRET.length))));
    const out = join(inner, "imported.json");
    const { code, err } = await cli(["import", file, "--time-limit", "60", "--out", out]);
    expect(code).toBe(2);
    expect(err).toMatch(/is \d+ bytes, larger than the 1048576 bytes Medalist reads from such a file$/);
    expect(err.split("\n")).toHaveLength(1);
    expect(err).not.toContain(SECRET);
    expect(() => importRunGroup(inner, { timeLimitSecs: 1, outFile: out })).toThrow(UserError);
    expect(tree(inner)).toEqual(["big_grading_report.json"]);
    // A sparse file of 160 MB at the default cap is refused the same way, without reading it.
    delete process.env.MEDALIST_MAX_IMPORT_BYTES;
    writeFileSync(file, "");
    truncateSync(file, 160 * 1024 ** 2);
    const big = await cli(["import", file, "--time-limit", "60", "--out", out]);
    expect(big.code).toBe(2);
    expect(big.err).toContain("is 167772160 bytes, larger than the 33554432 bytes");
  });

  it("a malformed report's error never quotes its bytes", async () => {
    const { inner } = tmp();
    const file = join(inner, "bad_grading_report.json");
    writeFileSync(file, `${SECRET} {"competition_reports": [`);
    const { code, err } = await cli(["import", file, "--time-limit", "60", "--out", join(inner, "o.json")]);
    expect(code).toBe(2);
    expect(err.split("\n")).toHaveLength(1);
    expect(err).toContain("not an MLE-bench grading report (not valid JSON)");
    expect(err).not.toContain("SECRET");
  });

  it("Python's NaN is still read outside strings; strings are kept as they are", () => {
    const { inner } = tmp();
    const file = join(inner, "x_grading_report.json");
    const text = report("toy-churn", 'NaN "quoted" Infinity \\ done').replace('"score":1', '"score":NaN');
    writeFileSync(file, text);
    const r = importRunGroup(file, { timeLimitSecs: 1, outFile: join(inner, "o.json") });
    expect(r.runs[0].grade).toMatchObject({ score: "NaN", median_threshold: 0.5 });
    expect(parsePythonJson('{"a": "x\\"NaN\\" Infinity", "b": [NaN, -Infinity]}')).toEqual({
      a: 'x"NaN" Infinity',
      b: ["NaN", -Infinity],
    });
  });
});
