// Every --json output is JSON: non-finite numbers become null, named in a sibling "nonFinite" map.
import { afterEach, describe, expect, it, vi } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toCliJson } from "../../src/util/json.js";
import { toJson } from "../../src/suite/store.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";
import { scratchCompetition } from "../grade/helpers.js";
import { runCli } from "../helpers/cli.js";

const cli = runCli;
afterEach(() => vi.restoreAllMocks());

/** A NaN or Infinity token outside a string. */
const BARE = /[:[,]\s*-?(NaN|Infinity)\b/;

describe("toCliJson", () => {
  it("writes non-finite numbers as null and names them beside, by key and array path", () => {
    const text = toCliJson({
      score: NaN,
      best: Infinity,
      worst: -Infinity,
      ok: 1.5,
      scores: [1, NaN, [Infinity]],
      runs: [{ score: -Infinity }],
      when: new Date(0),
    });
    expect(text).not.toMatch(BARE);
    expect(JSON.parse(text)).toEqual({
      score: null,
      best: null,
      worst: null,
      ok: 1.5,
      scores: [1, null, [null]],
      runs: [{ score: null, nonFinite: { score: "-Infinity" } }],
      when: "1970-01-01T00:00:00.000Z",
      nonFinite: {
        score: "NaN",
        best: "Infinity",
        worst: "-Infinity",
        "scores[1]": "NaN",
        "scores[2][0]": "Infinity",
      },
    });
    expect(JSON.parse(toCliJson([NaN, 2]))).toEqual([null, 2]);
  });
});

describe("every --json output parses with JSON.parse", () => {
  const board = ["scoreNullable,teamId,hasTeamName,submissionDate,score,hasScore"]
    .concat(Array.from({ length: 20 }, (_, i) => `,${i},True,2020-01-01,${(0.9 - i * 0.01).toFixed(2)},True`))
    .join("\n");
  const dir = mkdtempSync(join(tmpdir(), "medalist-json-"));
  const lb = join(dir, "lb.csv");
  writeFileSync(lb, board + "\n");

  it.each(["NaN", "Infinity", "-Infinity"])("rank --json --score %s", async (score) => {
    const { code, stdout } = await cli("rank", "--leaderboard", lb, `--score=${score}`, "--json");
    expect(stdout).not.toMatch(BARE);
    expect(code).toBe(0);
    const r = JSON.parse(stdout) as Record<string, unknown>;
    expect(r.score).toBeNull();
    expect(r.nonFinite).toEqual({ score: score });
    expect(r.any_medal).toBe(score === "Infinity");
  });

  it("grade --json with an infinite score (issue 22 F: RMSE of 1e200 overflows)", async () => {
    const s = scratchCompetition("denoising-dirty-documents", "answers.csv", {
      "answers.csv": "id,value\n1_1_1,0.5\n1_1_2,1\n",
    });
    const sub = join(s.root, "submission.csv");
    writeFileSync(sub, "id,value\n1_1_1,1e200\n1_1_2,1\n");
    const args = ["--competition", "denoising-dirty-documents", "--submission", sub];
    const { stdout } = await cli(
      "grade",
      ...args,
      "--data-dir",
      s.dataDir,
      "--registry",
      s.registry,
      "--json",
    );
    const r = JSON.parse(stdout) as Record<string, unknown>;
    expect(r).toMatchObject({ valid_submission: true, score: null, unrounded_score: null });
    expect(stdout).not.toMatch(BARE);
    expect(r.nonFinite).toMatchObject({ score: "Infinity", unrounded_score: "Infinity" });
  });

  it("compare --json with NaN scores", async () => {
    const runs = (label: string) =>
      fakeSuite(
        label,
        ["a", "b"].flatMap((id) =>
          [0, 1].map((seed) => ({
            ...fakeRun(id, seed, "none", { score: 0.5 }),
            grade: { ...fakeRun(id, seed, "none").grade!, score: NaN, percentile: 0 },
          })),
        ),
      );
    writeFileSync(join(dir, "base.json"), toJson(runs("base")));
    writeFileSync(join(dir, "head.json"), toJson(runs("head")));
    const { stdout, stderr } = await cli("compare", join(dir, "base.json"), join(dir, "head.json"), "--json");
    expect(stderr).toBe("");
    expect(stdout).not.toMatch(BARE);
    expect(() => JSON.parse(stdout) as unknown).not.toThrow();
    expect(stdout).toContain('"NaN"'); // a NaN in the comparison, named in a nonFinite map
  });

  it("competitions --json", async () => {
    const { code, stdout } = await cli("competitions", "--json");
    expect(code).toBe(0);
    expect(Array.isArray(JSON.parse(stdout))).toBe(true);
  });
});
