// One leaderboard resolver: `medalist grade`, `medalist rank` and `medalist run` medal a score
// against the same board — a fetched, pin-verified leaderboard first.
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runSuite } from "../../src/suite/run.js";
import { validateConfig } from "../../src/config/load.js";
import { gradeCommand } from "../../src/cli/commands/grade.js";
import { rankCommand } from "../../src/cli/commands/rank.js";

const root = resolve(import.meta.dirname, "..", "..");
const tmp = mkdtempSync(join(tmpdir(), "medalist-board-"));
const registryDir = join(tmp, "registry");
const leaderboardsDir = join(tmp, "leaderboards");
const dataDir = join(tmp, "data");
// Ten teams, best first: gold 0.99 (position 1), silver 0.98 (2), bronze 0.96 (4), median 0.935.
const fetched =
  "scoreNullable,teamId,hasTeamName,submissionDate,score,hasScore\n" +
  [0.99, 0.98, 0.97, 0.96, 0.95, 0.92, 0.9, 0.88, 0.86, 0.5]
    .map((s, i) => `${s},${i},True,2024-01-01T00:00:00,${s},True`)
    .join("\n") +
  "\n";

let saved: string | undefined;
beforeAll(() => {
  cpSync(join(root, "competitions", "toy-churn"), join(registryDir, "toy-churn"), { recursive: true });
  const file = join(registryDir, "toy-churn", "competition.json");
  const c = JSON.parse(readFileSync(file, "utf8"));
  c.leaderboardPin = {
    sha256: createHash("sha256").update(fetched).digest("hex"),
    bytes: Buffer.byteLength(fetched),
  };
  writeFileSync(file, JSON.stringify(c, null, 2));
  mkdirSync(join(leaderboardsDir, "toy-churn"), { recursive: true });
  writeFileSync(join(leaderboardsDir, "toy-churn", "leaderboard.csv"), fetched);
  saved = process.env.MEDALIST_LEADERBOARDS_DIR;
  process.env.MEDALIST_LEADERBOARDS_DIR = leaderboardsDir;
});
afterAll(() => {
  if (saved === undefined) delete process.env.MEDALIST_LEADERBOARDS_DIR;
  else process.env.MEDALIST_LEADERBOARDS_DIR = saved;
});

async function cli(cmd: typeof gradeCommand, argv: string[]) {
  const log = vi.spyOn(console, "log").mockImplementation(() => {});
  try {
    const code = await cmd.run(argv);
    return { code, out: log.mock.calls.map((c) => c.join(" ")).join("\n") };
  } finally {
    log.mockRestore();
  }
}

describe("one leaderboard resolver", () => {
  it(
    "grade and run give the same thresholds and percentile with a fetched leaderboard",
    { timeout: 120_000 },
    async () => {
      const outDir = join(tmp, "out");
      const config = validateConfig(
        {
          name: "t",
          competitions: { include: ["toy-churn"] },
          seeds: 1,
          agent: { command: "node examples/agents/strong/agent.mjs" },
          limits: { time: 60 },
          dataDir,
          registryDir,
        },
        "test",
      );
      const results = await runSuite({ config, baseDir: root, outDir, label: "head", log: () => {} });
      const fromRun = results.runs[0].grade!;
      expect(fromRun.thresholds_source).toBe("leaderboard");
      expect(fromRun.gold_threshold).toBe(0.99);
      expect(fromRun.median_threshold).toBe(0.935);

      const { code, out } = await cli(gradeCommand, [
        "--competition",
        "toy-churn",
        "--registry",
        registryDir,
        "--data-dir",
        dataDir,
        "--submission",
        join(outDir, results.runs[0].runDir, "submission", "submission.csv"),
        "--json",
      ]);
      expect(code).toBe(0);
      const fromGrade = JSON.parse(out);
      for (const k of [
        "score",
        "gold_threshold",
        "silver_threshold",
        "bronze_threshold",
        "median_threshold",
        "percentile",
        "thresholds_source",
      ])
        expect(fromGrade[k], k).toEqual(fromRun[k as keyof typeof fromRun]);

      const rank = await cli(rankCommand, [
        "--competition",
        "toy-churn",
        "--registry",
        registryDir,
        "--score",
        String(fromRun.score),
        "--json",
      ]);
      expect(JSON.parse(rank.out)).toMatchObject({
        gold_threshold: 0.99,
        percentile: fromRun.percentile,
        thresholds_source: "leaderboard",
        team_count: 10,
      });
    },
  );

  it("a fetched file that does not match the pin is ignored: the shipped leaderboard decides", async () => {
    const other = join(tmp, "other");
    mkdirSync(join(other, "toy-churn"), { recursive: true });
    writeFileSync(join(other, "toy-churn", "leaderboard.csv"), fetched.replace("0.99", "0.999"));
    const { out } = await cli(rankCommand, [
      "--competition",
      "toy-churn",
      "--registry",
      registryDir,
      "--leaderboards-dir",
      other,
      "--score",
      "0.9",
      "--json",
    ]);
    const r = JSON.parse(out);
    expect(r.thresholds_source).toBe("leaderboard");
    expect(r.team_count).toBe(1200); // the shipped toy leaderboard
  });
});
