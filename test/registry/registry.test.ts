import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { DEFAULT_FACTS_DIR, flagsOf, generateRegistry } from "../../scripts/gen-registry.js";
import {
  loadRegistry,
  selectCompetitions,
  splitMembers,
  type RegistryEntry,
} from "../../src/registry/registry.js";
import { leaderboardPath } from "../../src/registry/leaderboards.js";
import { competitionsCommand } from "../../src/cli/commands/competitions.js";
import { UserError } from "../../src/errors.js";

const competitionsDir = resolve(__dirname, "../../competitions");
const registry = loadRegistry(competitionsDir);
const mlebench = [...registry.values()].filter((e) => e.competition.source === "kaggle");

describe("registry", () => {
  // The facts are committed (scripts/mlebench-facts), so this runs on every clean clone.
  it("committed competition.json files equal the generator's output", { timeout: 120_000 }, async () => {
    expect(existsSync(join(DEFAULT_FACTS_DIR, "competitions.csv")), DEFAULT_FACTS_DIR).toBe(true);
    const files = await generateRegistry();
    expect(files.size).toBe(82);
    for (const [rel, text] of files) expect(readFileSync(join(competitionsDir, rel), "utf8"), rel).toBe(text);
  });

  it("holds MLE-bench's 75 competitions (all) plus the dev ones", () => {
    expect(mlebench.length).toBe(82);
    expect(splitMembers(registry, "all")).toHaveLength(75);
    expect(splitMembers(registry, "dev")).toHaveLength(7);
    expect(splitMembers(registry, "split75")).toEqual(splitMembers(registry, "all"));
    expect(splitMembers(registry, "medium")).toHaveLength(38);
    expect(splitMembers(registry, "high")).toHaveLength(15);
  });

  it("grades the 22 lite competitions natively and the rest externally", () => {
    const lite = splitMembers(registry, "lite");
    expect(lite).toHaveLength(22);
    for (const e of mlebench)
      expect(e.competition.grading).toBe(lite.includes(e.competition.id) ? "native" : "external");
  });

  it("carries thresholds with provenance, leaderboard pins and upstream facts", () => {
    const c = registry.get("spooky-author-identification")!.competition;
    expect(c.isLowerBetter).toBe(true);
    expect(c.thresholds).toMatchObject({ gold: 0.16506, median: 0.41879, teamCount: 1242 });
    expect(c.thresholds!.source).toMatch(/third-party/);
    expect(c.leaderboardPin!.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(c.upstream!.gradeFn).toContain("spooky-author-identification");
    expect(c.prepare!.zipMd5).toBe("8f12d4f1f138f3867e881293b9bc54ee");
    expect(registry.get("text-normalization-challenge-english-language")!.competition.sampleSubmission).toBe(
      "../private/sample_submission.csv",
    );
    for (const e of mlebench) {
      const t = e.competition.thresholds!;
      expect(e.competition.leaderboardPin, e.competition.id).toBeDefined();
      // Medal thresholds are ordered by the metric's direction.
      if (e.competition.isLowerBetter) expect(t.gold <= t.bronze && t.bronze <= t.median).toBe(true);
      else expect(t.gold >= t.bronze && t.bronze >= t.median, e.competition.id).toBe(true);
    }
  });

  it("turns upstream known issues into flags", () => {
    expect(flagsOf("public test .mat files leak labels (#77)")).toEqual(["leaked-test-labels"]);
    expect(flagsOf("crowded leaderboard (top~median)")).toEqual(["crowded-leaderboard"]);
    expect(flagsOf("")).toEqual([]);
    expect(() => flagsOf("something new")).toThrow(/no flag rule/);
    const flagged = mlebench.filter((e) => e.competition.flags.length > 0).map((e) => e.competition.id);
    expect(flagged).toHaveLength(14);
    expect(registry.get("random-acts-of-pizza")!.competition.flags).toEqual(["leaked-test-labels"]);
    expect(registry.get("tabular-playground-series-dec-2021")!.competition.flags).toEqual([
      "crowded-leaderboard",
    ]);
  });
});

describe("selectCompetitions", () => {
  it("selects a split, with include, exclude and excludeFlagged", () => {
    expect(selectCompetitions(registry, { split: "lite" })).toHaveLength(22);
    const unflagged = selectCompetitions(registry, { split: "lite", excludeFlagged: true });
    expect(unflagged).toHaveLength(16);
    expect(unflagged).not.toContain("random-acts-of-pizza");
    const sel = selectCompetitions(registry, {
      split: "lite",
      include: ["AI4Code"],
      exclude: ["leaf-classification"],
      excludeFlagged: true,
    });
    expect(sel).toHaveLength(16);
    expect(sel.at(-1)).toBe("AI4Code");
    expect(selectCompetitions(registry, { include: ["random-acts-of-pizza"], excludeFlagged: true })).toEqual(
      ["random-acts-of-pizza"],
    );
  });

  it("rejects unknown splits and ids with a hint", () => {
    expect(() => selectCompetitions(registry, { split: "lightweight" })).toThrow(UserError);
    expect(() => selectCompetitions(registry, { split: "mediun" })).toThrow(
      /unknown split "mediun" \(did you mean "medium"\?\)/,
    );
    expect(() => selectCompetitions(registry, { split: "lite", include: ["spooky-author"] })).toThrow(
      /unknown competition "spooky-author".*did you mean "spooky-author-identification"/,
    );
    expect(() => selectCompetitions(registry, { split: "lite", exclude: ["nope"] })).toThrow(
      /competitions.exclude/,
    );
    expect(() => selectCompetitions(registry, { include: ["AI4Code"], exclude: ["AI4Code"] })).toThrow(
      /no competitions selected/,
    );
  });
});

describe("medalist competitions", () => {
  it("lists a split as a table and as JSON", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      expect(await competitionsCommand.run(["--split", "lite", "--registry", competitionsDir])).toBe(0);
      const text = log.mock.calls.map((c) => c.join(" ")).join("\n");
      expect(text).toMatch(/random-acts-of-pizza\s+ROC AUC.*higher.*native\s+leaked-test-labels/);
      expect(text).toContain("22 competition(s) in split lite");
      log.mockClear();
      expect(await competitionsCommand.run(["--json", "--split", "dev", "--registry", competitionsDir])).toBe(
        0,
      );
      const rows = JSON.parse(log.mock.calls[0][0] as string);
      expect(rows).toHaveLength(7);
      expect(rows[0]).toMatchObject({ grading: "external", direction: expect.any(String) });
    } finally {
      log.mockRestore();
    }
  });
});

describe("leaderboardPath", () => {
  it("prefers a fetched leaderboard that matches the pin", () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-lb-"));
    const body = "teamId,score\n1,0.9\n";
    const base = registry.get("spooky-author-identification")!;
    const entry: RegistryEntry = {
      dir: join(dir, "registry", "x"),
      competition: {
        ...base.competition,
        leaderboardPin: { sha256: createHash("sha256").update(body).digest("hex"), bytes: body.length },
      },
    };
    expect(leaderboardPath(entry, dir)).toBeUndefined();
    mkdirSync(join(dir, entry.competition.id));
    const file = join(dir, entry.competition.id, "leaderboard.csv");
    writeFileSync(file, body.replace("0.9", "0.8"));
    expect(leaderboardPath(entry, dir)).toBeUndefined(); // same size, wrong hash
    writeFileSync(file, body);
    expect(leaderboardPath(entry, dir)).toBe(file);
  });
});
