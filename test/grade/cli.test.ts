import { describe, expect, it } from "vitest";
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VECTORS, parsePyJson, runCli } from "./helpers.js";
import { grade } from "../../src/grade/grade.js";
import { gradeExternal, lastJsonObject } from "../../src/grade/external.js";
import { CompetitionSchema } from "../../src/registry/schema.js";
import { main } from "../../src/cli/main.js";

interface Board {
  name: string;
  scores: (number | null)[];
  probes: { label: string; score: number | "NaN" | null; expected: Record<string, boolean> }[];
}
const boards = (JSON.parse(readFileSync(join(VECTORS, "medals.json"), "utf8")) as { leaderboards: Board[] })
  .leaderboards;
const dir = mkdtempSync(join(tmpdir(), "medalist-cli-"));

function leaderboardCsv(scores: (number | null)[]): string {
  return (
    ["scoreNullable,teamId,hasTeamName,submissionDate,score,hasScore"]
      .concat(
        scores.map(
          (s, i) =>
            `${s ?? ""},${1000 + i},True,2021-03-01 12:00:00,${s ?? ""},${s === null ? "False" : "True"}`,
        ),
      )
      .join("\n") + "\n"
  );
}

describe("medalist rank agrees with medals.json", () => {
  for (const board of boards) {
    const file = join(dir, `${board.name}.csv`);
    writeFileSync(file, leaderboardCsv(board.scores));
    for (const probe of board.probes.filter((p) => p.score !== null)) {
      it(`${board.name}: ${probe.label}`, async () => {
        const { code, out } = await runCli("rank", [
          "--leaderboard",
          file,
          "--score",
          String(probe.score),
          "--json",
        ]);
        expect(code).toBe(0);
        const r = parsePyJson(out);
        for (const [k, v] of Object.entries(probe.expected)) expect(r[k], k).toBe(v);
      });
    }
  }
  it("NaN prints as null named in nonFinite; bad input is a one-line error, exit 2", async () => {
    const file = join(dir, `${boards[0].name}.csv`);
    const { out } = await runCli("rank", ["--leaderboard", file, "--score", "NaN", "--json"]);
    expect(JSON.parse(out)).toMatchObject({ score: null, nonFinite: { score: "NaN" } });
    const errors: string[] = [];
    const orig = console.error;
    console.error = (m: string) => void errors.push(m);
    try {
      expect(await main(["rank", "--leaderboard", file, "--score", "abc"])).toBe(2);
      expect(await main(["rank", "--leaderboard", join(dir, "missing.csv"), "--score", "1"])).toBe(2);
      expect(await main(["grade", "--submission", "x.csv"])).toBe(2);
    } finally {
      console.error = orig;
    }
    expect(errors.every((e) => !e.includes("\n"))).toBe(true);
  });
});

function competition(extra: Record<string, unknown> = {}) {
  return CompetitionSchema.parse({
    id: "toy-x",
    name: "x",
    metric: "AUC",
    isLowerBetter: false,
    answers: "answers.csv",
    sampleSubmission: "s.csv",
    ...extra,
  });
}

describe("grade()", () => {
  const compDir = join(dir, "comp");
  const privateDir = join(dir, "private");
  mkdirSync(compDir, { recursive: true });
  mkdirSync(privateDir, { recursive: true });
  writeFileSync(join(compDir, "grader.json"), JSON.stringify({ kind: "binary-auc", id: "id", target: "y" }));
  writeFileSync(join(privateDir, "answers.csv"), "id,y\na,0\nb,1\nc,0\nd,1\n");
  writeFileSync(
    join(compDir, "leaderboard.csv"),
    leaderboardCsv([0.99, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1]),
  );
  const sub = join(dir, "sub.csv");
  writeFileSync(sub, "id,y\nd,0.9\nc,0.2\nb,0.8\na,0.1\n");
  const now = new Date("2026-01-02T03:04:05Z");

  it("scores, medals and percentile from the leaderboard", async () => {
    const r = await grade({
      competition: competition({ leaderboard: "leaderboard.csv" }),
      competitionDir: compDir,
      privateDir,
      submissionPath: sub,
      now,
    });
    expect(r).toMatchObject({
      score: 1,
      valid_submission: true,
      submission_exists: true,
      gold_medal: true,
      any_medal: true,
      gold_threshold: 0.99,
      thresholds_source: "leaderboard",
      error: null,
      created_at: "2026-01-02T03:04:05.000Z",
    });
    expect(r.percentile).toBe(1);
  });
  it("precomputed thresholds when there is no leaderboard; a leaderboard override wins", async () => {
    const thresholds = { gold: 1.5, silver: 1.2, bronze: 0.9, median: 0.5, source: "test" };
    const r = await grade({
      competition: competition({ thresholds }),
      competitionDir: compDir,
      privateDir,
      submissionPath: sub,
    });
    expect(r).toMatchObject({ bronze_medal: true, thresholds_source: "thresholds", percentile: null });
    const o = await grade({
      competition: competition({ thresholds }),
      competitionDir: compDir,
      privateDir,
      submissionPath: sub,
      leaderboardPath: join(compDir, "leaderboard.csv"),
    });
    expect(o.gold_medal).toBe(true);
  });
  it("missing, non-.csv and invalid submissions are reports with a reason", async () => {
    const c = competition({ leaderboard: "leaderboard.csv" });
    const missing = await grade({
      competition: c,
      competitionDir: compDir,
      privateDir,
      submissionPath: join(dir, "nope.csv"),
    });
    expect(missing).toMatchObject({
      submission_exists: false,
      valid_submission: false,
      score: null,
      any_medal: false,
    });
    expect(missing.error).toMatch(/no submission/);
    const txt = join(dir, "sub.txt");
    writeFileSync(txt, "id,y\n");
    expect(
      (await grade({ competition: c, competitionDir: compDir, privateDir, submissionPath: txt })).error,
    ).toMatch(/not a .csv/);
    expect(
      (await grade({ competition: c, competitionDir: compDir, privateDir, submissionPath: dir }))
        .submission_exists,
    ).toBe(false);
    const bad = join(dir, "bad.csv");
    writeFileSync(bad, "id,y\na,0.1\nb,x\nc,0.2\nd,0.3\n");
    const r = await grade({ competition: c, competitionDir: compDir, privateDir, submissionPath: bad });
    expect(r).toMatchObject({ submission_exists: true, valid_submission: false, score: null });
    expect(r.error).toMatch(/not numeric/);
    expect(r.grader_error).toBeUndefined();
  });
  it("grader problems are flagged, never thrown", async () => {
    const r = await grade({
      competition: competition({ answers: "missing.csv" }),
      competitionDir: compDir,
      privateDir,
      submissionPath: sub,
    });
    expect(r.grader_error).toBe(true);
    expect(r.error).toMatch(/answers/);
    const noSpec = await grade({
      competition: competition(),
      competitionDir: dir,
      privateDir,
      submissionPath: sub,
    });
    expect(noSpec.grader_error).toBe(true);
  });
});

describe("external grader", () => {
  const node = process.execPath;
  const ctx = { competition: "c", submission: "/s.csv", privateDir: "/p" };
  it("parses the last JSON report (Python NaN allowed) and fills placeholders", async () => {
    const script = join(dir, "ext.mjs");
    writeFileSync(
      script,
      `console.log("log line {"); console.log(JSON.stringify({ competition_id: process.argv[2], score: 0.75, valid_submission: true }));`,
    );
    expect(await gradeExternal([node, script, "{competition}"], ctx)).toEqual({
      valid: true,
      score: 0.75,
      error: null,
    });
    expect(lastJsonObject('x {"score": NaN, "valid_submission": true} y')).toEqual({
      score: "NaN",
      valid_submission: true,
    });
  });
  it("invalid, failing, silent or malformed graders are reported as such", async () => {
    const w = (name: string, code: string) => {
      const f = join(dir, name);
      writeFileSync(f, code);
      return f;
    };
    expect(
      (
        await gradeExternal(
          [node, w("inv.mjs", `console.log('{"score": null, "valid_submission": false}')`)],
          ctx,
        )
      ).valid,
    ).toBe(false);
    await expect(
      gradeExternal([node, w("fail.mjs", `console.error("boom"); process.exit(3)`)], ctx),
    ).rejects.toThrow(/exited with code 3: boom/);
    await expect(gradeExternal([node, w("quiet.mjs", ``)], ctx)).rejects.toThrow(/no JSON/);
    await expect(
      gradeExternal([node, w("odd.mjs", `console.log('{"score": "high"}')`)], ctx),
    ).rejects.toThrow(/unexpected report/);
    await expect(gradeExternal([join(dir, "no-such-binary")], ctx)).rejects.toThrow(/failed/);
  });
  it("grade() with grading: external", async () => {
    const script = join(dir, "ext2.mjs");
    writeFileSync(script, `console.log(JSON.stringify({ score: 0.5, valid_submission: true }))`);
    const sub = join(dir, "e.csv");
    writeFileSync(sub, "a\n1\n");
    const c = competition({
      grading: "external",
      thresholds: { gold: 0.9, silver: 0.8, bronze: 0.7, median: 0.4, source: "t" },
    });
    const r = await grade({
      competition: c,
      competitionDir: dir,
      privateDir: dir,
      submissionPath: sub,
      external: { command: [node, script] },
    });
    expect(r).toMatchObject({ score: 0.5, valid_submission: true, above_median: true, any_medal: false });
    const none = await grade({ competition: c, competitionDir: dir, privateDir: dir, submissionPath: sub });
    expect(none.grader_error).toBe(true);
  });
});

describe("benchmark modules", () => {
  it("import without running (bench/index.ts imports every bench file)", async () => {
    const bench = await import("../../bench/grade.js");
    const run = await import("../../bench/grade-run.js");
    expect(typeof bench.benchGrade).toBe("function");
    expect(typeof run.gradeOnce).toBe("function");
  });
});

describe("medalist rank's text", () => {
  it("prints thresholds without float noise (median of 0.7586 and 0.7598 is 0.7592)", async () => {
    const file = join(dir, "noise.csv");
    writeFileSync(file, leaderboardCsv([0.95, 0.9, 0.7598, 0.7586, 0.5, 0.4]));
    const { code, out } = await runCli("rank", ["--leaderboard", file, "--score", "0.8"]);
    expect(code).toBe(0);
    expect(out).toMatch(/median 0\.7592$/m);
    expect(out).not.toMatch(/\d{13}/);
  });
});
