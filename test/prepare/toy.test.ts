import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRegistry } from "../../src/registry/registry.js";
import { generateLeaderboard, generateToy, prepareToy, toyParams } from "../../src/prepare/toy.js";
import { readLeaderboardCsv, thresholdsFromLeaderboard } from "../../src/grade/medals.js";

const registry = loadRegistry();
const toys = [...registry.values()].filter((e) => e.competition.source === "toy");

describe("toy competitions", () => {
  it("bundles at least three toy tasks of different kinds", () => {
    const tasks = new Set(toys.map((e) => toyParams(e.competition).task));
    expect(tasks).toEqual(new Set(["regression", "binary", "multiclass"]));
  });

  for (const { competition, dir } of toys) {
    describe(competition.id, () => {
      it("generates the same files every time (seeded)", () => {
        expect(generateToy(competition)).toEqual(generateToy(competition));
      });

      it("lays out public and private data as MLE-bench does, answers only in private", () => {
        const data = mkdtempSync(join(tmpdir(), "medalist-toy-"));
        expect(prepareToy(competition, data).prepared).toBe(true);
        expect(prepareToy(competition, data).prepared).toBe(false); // second call: already there
        const pub = join(data, competition.id, "prepared", "public");
        const priv = join(data, competition.id, "prepared", "private");
        for (const f of ["description.md", "train.csv", "test.csv", competition.sampleSubmission]) {
          expect(readFileSync(join(pub, f), "utf8").length).toBeGreaterThan(0);
        }
        const answers = readFileSync(join(priv, competition.answers), "utf8").trim().split("\n");
        const sample = readFileSync(join(pub, competition.sampleSubmission), "utf8").trim().split("\n");
        const test = readFileSync(join(pub, "test.csv"), "utf8").trim().split("\n");
        expect(answers[0]).toBe(sample[0]);
        expect(answers.length).toBe(test.length);
        const target = toyParams(competition).target;
        expect(test[0].split(",")).not.toContain(target);
      });

      it("ships the committed leaderboard its parameters generate, with 1000+ teams", async () => {
        const committed = readFileSync(join(dir, competition.leaderboard!), "utf8");
        expect(committed).toBe(generateLeaderboard(toyParams(competition).leaderboard));
        const scores = await readLeaderboardCsv(join(dir, competition.leaderboard!));
        expect(scores.length).toBeGreaterThanOrEqual(1000);
        const t = thresholdsFromLeaderboard(scores);
        expect(t.isLowerBetter).toBe(competition.isLowerBetter);
        // N >= 1000: gold at 10 + 0.2% of teams, silver at 5 %, bronze at 10 %: distinct thresholds.
        expect(new Set([t.gold, t.silver, t.bronze]).size).toBe(3);
      });
    });
  }
});
