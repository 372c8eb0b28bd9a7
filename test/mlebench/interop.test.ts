import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { UserError } from "../../src/errors.js";
import { exportRunGroup } from "../../src/mlebench/export.js";
import { importRunGroup } from "../../src/mlebench/import.js";
import { main } from "../../src/cli/main.js";
import { readResults, writeResults } from "../../src/suite/store.js";
import { SuiteResultsSchema } from "../../src/results/schema.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";
import { runCli } from "../helpers/cli.js";
import { writeSuiteViewer } from "../../src/session/viewer.js";

const tmp = (p: string) => mkdtempSync(join(tmpdir(), `medalist-${p}-`));

/** A Medalist results folder: results.json and run folders (two seeds of one competition, one run without a submission). */
function medalistResults(): { file: string; dir: string } {
  const dir = tmp("results");
  const runs = [
    fakeRun("spooky-author-identification", 0, "gold"),
    fakeRun("spooky-author-identification", 1, "none"),
    fakeRun("toy-churn", 0, "none", { outcome: "infra_error", grade: null }),
  ];
  for (const r of runs.slice(0, 2)) {
    const run = join(dir, r.runDir);
    mkdirSync(join(run, "submission"), { recursive: true });
    mkdirSync(join(run, "logs"), { recursive: true });
    mkdirSync(join(run, "code"), { recursive: true });
    writeFileSync(join(run, "submission", "submission.csv"), `id,EAP\n1,${r.seed}\n`);
    writeFileSync(join(run, "logs", "agent.log"), "log\n");
    writeFileSync(join(run, "run.log"), "run log\n");
    if (r.seed === 0) writeFileSync(join(run, "code", "train.py"), "print(1)\n");
    // An agent's link (to answers on this machine, say) is not carried into the run group.
    symlinkSync("/etc/hostname", join(run, "logs", "link"));
  }
  const file = join(dir, "results.json");
  writeResults(file, fakeSuite("head", runs));
  return { file, dir };
}

/**
 * What upstream's experiments/make_submission.py reads from a run group, written from its format:
 * metadata.json's "runs" keys are run ids; each run's folder is <metadata dir>/<run id>; its
 * competition id is the run id up to the first "_"; it looks for submission/submission.csv,
 * logs/agent.log and code/train.py there.
 */
function makeSubmissionView(metadataPath: string) {
  const metadata = JSON.parse(readFileSync(metadataPath, "utf8")) as { runs: Record<string, unknown> };
  return Object.keys(metadata.runs).map((runId) => {
    const runDir = join(dirname(metadataPath), runId);
    const at = (rel: string) => (existsSync(join(runDir, rel)) ? join(runDir, rel) : null);
    return {
      competition_id: runId.split("_")[0],
      submission_path: at("submission/submission.csv"),
      logs_path: at("logs/agent.log"),
      code_path: at("code/train.py"),
    };
  });
}

/** json.dumps(line) with Python's defaults: ", " and ": " separators, keys in insertion order. */
const pyDumps = (o: Record<string, string | null>) =>
  `{${Object.entries(o)
    .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`)
    .join(", ")}}`;

describe("medalist export --mlebench", () => {
  it("writes a run group that make_submission.py and mlebench grade read as upstream's", () => {
    const { file } = medalistResults();
    const out = join(tmp("export"), "2026-01-01T00-00-00-UTC_run-group_medalist");
    const r = exportRunGroup(readResults(file), file, out, new Date("2026-01-02T03:04:05.678Z"));
    expect(r).toMatchObject({ runs: 3, skipped: 2 });

    // metadata.json as run_agent.py writes it.
    const metadata = JSON.parse(readFileSync(join(out, "metadata.json"), "utf8"));
    expect(Object.keys(metadata)).toEqual(["run_group", "created_at", "runs"]);
    expect(metadata.run_group).toBe(basename(out));
    expect(metadata.created_at).toBe("2026-01-02T03-04-05-UTC");
    const ids = Object.keys(metadata.runs);
    expect(ids).toHaveLength(3);
    for (const id of ids)
      expect(id).toMatch(/^[^_]+_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(Object.values(metadata.runs)).toEqual([{ success: true }, { success: true }, { success: false }]);

    // make_submission.py's view: plain competition ids (never "….s0") and the files where it looks.
    const view = makeSubmissionView(join(out, "metadata.json"));
    expect(view.map((v) => v.competition_id)).toEqual([
      "spooky-author-identification",
      "spooky-author-identification",
      "toy-churn",
    ]);
    expect(readFileSync(view[1].submission_path!, "utf8")).toBe("id,EAP\n1,1\n");
    expect(view[1].code_path).toBeNull();
    expect(view[2].submission_path).toBeNull();
    expect(existsSync(join(dirname(dirname(view[0].submission_path!)), "logs", "link"))).toBe(false);
    expect(readFileSync(join(dirname(dirname(view[0].submission_path!)), "run.log"), "utf8")).toBe(
      "run log\n",
    );

    // submission.jsonl is exactly what make_submission.py would write over metadata.json.
    const jsonl = readFileSync(join(out, "submission.jsonl"), "utf8");
    expect(jsonl).toBe(view.map((v) => `${pyDumps(v)}\n`).join(""));
    // mlebench grade reads competition_id and submission_path of each line.
    for (const line of jsonl.trim().split("\n")) {
      const o = JSON.parse(line);
      expect(Object.keys(o)).toEqual(["competition_id", "submission_path", "logs_path", "code_path"]);
    }
  });

  it("is stable for the same results, and refuses a non-empty folder", () => {
    const { file } = medalistResults();
    const a = join(tmp("export"), "g");
    const b = join(tmp("export"), "g");
    exportRunGroup(readResults(file), file, a);
    exportRunGroup(readResults(file), file, b);
    expect(Object.keys(JSON.parse(readFileSync(join(a, "metadata.json"), "utf8")).runs)).toEqual(
      Object.keys(JSON.parse(readFileSync(join(b, "metadata.json"), "utf8")).runs),
    );
    expect(() => exportRunGroup(readResults(file), file, a)).toThrow(/is not empty/);
  });

  it("the CLI writes the run group (exit 0) and refuses a missing results file (exit 2)", async () => {
    const { dir } = medalistResults();
    const group = join(tmp("export"), "g");
    const quiet = console.error;
    console.error = () => {};
    try {
      expect(await main(["export", "--mlebench", group, dir])).toBe(0);
      expect(existsSync(join(group, "submission.jsonl"))).toBe(true);
      expect(await main(["export", "--mlebench", join(tmp("export"), "h"), join(dir, "nope.json")])).toBe(2);
      expect(await main(["export", dir])).toBe(2); // --mlebench is required
    } finally {
      console.error = quiet;
    }
  });

  it("refuses a competition id with an underscore (make_submission.py would cut it)", () => {
    const dir = tmp("results");
    const file = join(dir, "results.json");
    writeResults(file, fakeSuite("head", [fakeRun("my_comp", 0, "none")]));
    expect(() => exportRunGroup(readResults(file), file, join(dir, "g"))).toThrow(UserError);
  });
});

/** An upstream CompetitionReport.to_dict(). */
function report(competition: string, submission: string, over: Record<string, unknown> = {}) {
  return {
    competition_id: competition,
    score: 0.42,
    gold_threshold: 0.9,
    silver_threshold: 0.8,
    bronze_threshold: 0.7,
    median_threshold: 0.4,
    any_medal: false,
    gold_medal: false,
    silver_medal: false,
    bronze_medal: false,
    above_median: true,
    submission_exists: true,
    valid_submission: true,
    is_lower_better: false,
    created_at: "2024-10-08T18:09:02.123456",
    submission_path: submission,
    ...over,
  };
}

function totals(reports: ReturnType<typeof report>[]) {
  const sum = (k: string) => reports.filter((r) => (r as Record<string, unknown>)[k]).length;
  return {
    total_runs: reports.length,
    total_runs_with_submissions: sum("submission_exists"),
    total_valid_submissions: sum("valid_submission"),
    total_medals: sum("any_medal"),
    total_gold_medals: sum("gold_medal"),
    total_silver_medals: sum("silver_medal"),
    total_bronze_medals: sum("bronze_medal"),
    total_above_median: sum("above_median"),
    competition_reports: reports,
  };
}

/** A crafted upstream run group: metadata.json and two grading reports (one submission graded twice). */
function upstreamRunGroup(): string {
  const group = join(tmp("upstream"), "2024-10-08T18-00-00-GMT_run-group_aide");
  mkdirSync(group, { recursive: true });
  const sub = (id: string) => join(group, id, "submission", "submission.csv");
  writeFileSync(
    join(group, "metadata.json"),
    JSON.stringify({
      run_group: basename(group),
      created_at: "2024-10-08T18-00-00-GMT",
      runs: { "spooky-author-identification_a": { success: true }, "toy-churn_b": { success: false } },
    }),
  );
  const first = [
    report("spooky-author-identification", sub("spooky-author-identification_a")),
    report("toy-churn", sub("toy-churn_b"), {
      score: null,
      submission_exists: false,
      valid_submission: false,
    }),
  ];
  // Python's json.dump writes NaN bare.
  writeFileSync(
    join(group, "2024-10-08T19-00-00-GMT_grading_report.json"),
    JSON.stringify(totals(first), null, 2).replaceAll('"median_threshold": 0.4', '"median_threshold": NaN'),
  );
  const second = [
    report("spooky-author-identification", sub("spooky-author-identification_a"), {
      score: 0.95,
      any_medal: true,
      gold_medal: true,
    }),
    report("spooky-author-identification", sub("spooky-author-identification_c")),
  ];
  writeFileSync(join(group, "2024-10-08T20-00-00-GMT_grading_report.json"), JSON.stringify(totals(second)));
  return group;
}

describe("medalist import", () => {
  it("reads a run group's grading reports into a results document", () => {
    const group = upstreamRunGroup();
    const out = join(tmp("import"), "imported.json");
    const results = SuiteResultsSchema.parse(importRunGroup(group, { timeLimitSecs: 86400, outFile: out }));
    expect(results.label).toBe("base");
    expect(results.suite).toMatchObject({
      name: `mlebench ${basename(group)}`,
      competitions: ["spooky-author-identification", "toy-churn"],
      seeds: 2,
    });
    expect(results.suite.hash).toMatch(/^mlebench-[0-9a-f]{16}$/);
    expect(results.environment).toMatchObject({ executor: "mlebench", timeLimitSecs: 86400 });
    const byId = Object.fromEntries(results.runs.map((r) => [r.runId, r]));
    expect(Object.keys(byId).sort()).toEqual([
      "spooky-author-identification.s0",
      "spooky-author-identification.s1",
      "toy-churn.s0",
    ]);
    // The submission graded twice counts once, from the newer report.
    const a = results.runs.find((r) => r.details.upstreamRunId === "spooky-author-identification_a")!;
    expect(a.grade).toMatchObject({ score: 0.95, gold_medal: true, any_medal: true, percentile: null });
    const b = byId["toy-churn.s0"];
    expect(b.outcome).toBe("failed");
    expect(b.grade).toMatchObject({ score: null, median_threshold: "NaN", valid_submission: false });
    expect(b.runDir).toBe(join("..", basename(dirname(group)), basename(group), "toy-churn_b"));
  });

  it("refuses a bad report in one sentence naming the file and the field, exit 2", async () => {
    const group = upstreamRunGroup();
    const file = join(group, "2024-10-08T20-00-00-GMT_grading_report.json");
    const bad = totals([report("x", "/s.csv", { gold_medal: "yes" })]);
    writeFileSync(file, JSON.stringify(bad));
    expect(() => importRunGroup(file, { timeLimitSecs: 1, outFile: "x.json" })).toThrow(
      new RegExp(
        `^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: competition_reports\\[0\\]\\.gold_medal: expected true or false`,
      ),
    );
    const errs: string[] = [];
    const orig = console.error;
    console.error = (m: string) => errs.push(m);
    try {
      expect(await main(["import", file, "--time-limit", "60", "--out", join(tmp("import"), "r.json")])).toBe(
        2,
      );
    } finally {
      console.error = orig;
    }
    expect(errs.join("\n")).toContain("gold_medal");
    expect(errs.join("\n").split("\n")).toHaveLength(1);
  });

  it("a score that is not a number: the field's path and 'expected a number or null', one line", async () => {
    const group = upstreamRunGroup();
    const file = join(group, "2024-10-08T20-00-00-GMT_grading_report.json");
    writeFileSync(file, JSON.stringify(totals([report("x", "/s.csv", { score: "oops" })])));
    expect(() => importRunGroup(file, { timeLimitSecs: 1, outFile: "x.json" })).toThrow(
      `${file}: competition_reports[0].score: expected a number or null`,
    );
    writeFileSync(file, JSON.stringify(totals([report("x", "/s.csv", { gold_threshold: "high" })])));
    expect(() => importRunGroup(file, { timeLimitSecs: 1, outFile: "x.json" })).toThrow(
      `${file}: competition_reports[0].gold_threshold: expected a number`,
    );
    // The same in a results document Medalist reads (compare, view, trend).
    const { file: results } = medalistResults();
    const doc = JSON.parse(readFileSync(results, "utf8"));
    doc.runs[0].grade.score = "oops";
    writeFileSync(results, JSON.stringify(doc));
    expect(() => readResults(results)).toThrow(`${results}: runs[0].grade.score: expected a number or null`);
  });

  it("imported runs have no recorded time: agent time 'unknown', never compared or marked", async () => {
    const out = join(tmp("import"), "imported.json");
    expect(await main(["import", upstreamRunGroup(), "--time-limit", "3600", "--out", out])).toBe(0);
    // The head ran the same runs with Medalist (1 s each) and is compared despite the other suite hash.
    const base = readResults(out);
    const head = {
      ...base,
      label: "head",
      runs: base.runs.map((r) => ({ ...r, durationMs: 1000, details: {} })),
    };
    const headFile = join(dirname(out), "head.json");
    writeResults(headFile, head);
    const r = await runCli("compare", out, headFile, "--allow-suite-mismatch");
    expect(r.code).toBe(0);
    const said = [r.stdout];
    const row = said
      .join("\n")
      .split("\n")
      .find((l) => l.startsWith("| Agent time"));
    expect(row).toMatch(
      /^\| Agent time +\| +unknown \| +3s \| not compared \(MLE-bench records no run times\) +\|$/,
    );
    // The viewer's headline says the same.
    const site = join(dirname(out), "site");
    writeSuiteViewer({ head, headDir: dirname(out), base, baseDir: dirname(out), out: site });
    const html = readFileSync(join(site, "index.html"), "utf8");
    const timeRow = /<tr><th>Agent time<\/th>.*?<\/tr>/.exec(html)?.[0];
    expect(timeRow).toBe(
      '<tr><th>Agent time</th><td class="num">unknown</td><td class="num">3s</td><td>not compared (MLE-bench records no run times)</td></tr>',
    );
  });

  it("the CLI writes the document, which compare reads", async () => {
    const out = join(tmp("import"), "imported.json");
    const code = await main([
      "import",
      upstreamRunGroup(),
      "--time-limit",
      "3600",
      "--out",
      out,
      "--label",
      "mle",
    ]);
    expect(code).toBe(0);
    expect(readResults(out)).toMatchObject({ label: "mle", environment: { timeLimitSecs: 3600 } });
    expect(await main(["import", upstreamRunGroup(), "--out", out])).toBe(2); // --time-limit is required
  });

  it("round trip: an exported run group, graded as mlebench grade reports, imports back", () => {
    const { file } = medalistResults();
    const group = join(tmp("export"), "g");
    exportRunGroup(readResults(file), file, group);
    // What mlebench grade writes for submission.jsonl: one report per line, in order.
    const lines = readFileSync(join(group, "submission.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const reports = lines.map((l) =>
      // grade_jsonl: Path(str(submission["submission_path"])), so null becomes "None".
      report(l.competition_id, l.submission_path ?? "None", {
        submission_exists: l.submission_path !== null,
        valid_submission: l.submission_path !== null,
        score: l.submission_path === null ? null : 0.5,
      }),
    );
    writeFileSync(
      join(group, "2026-01-02T00-00-00-UTC_grading_report.json"),
      JSON.stringify(totals(reports)),
    );
    const back = importRunGroup(group, { timeLimitSecs: 600, outFile: join(group, "imported.json") });
    expect(back.runs.map((r) => r.runId)).toEqual([
      "spooky-author-identification.s0",
      "spooky-author-identification.s1",
      "toy-churn.s0",
    ]);
    // A run without a submission has submission_path null, which mlebench grade reports as "None":
    // nothing links it back to its run folder, so metadata.json's success: false is not known there.
    expect(back.runs.map((r) => r.outcome)).toEqual(["completed", "completed", "completed"]);
    expect(back.runs[2].grade).toMatchObject({ submission_exists: false, submission_path: "None" });
    expect(existsSync(join(group, back.runs[0].runDir, "submission", "submission.csv"))).toBe(true);
  });
});
