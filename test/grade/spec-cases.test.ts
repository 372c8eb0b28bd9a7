import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scoreSubmission } from "../../src/grade/grade.js";
import { loadGraderSpec } from "../../src/grade/spec.js";

interface Case {
  competition: string;
  name: string;
  answers: string;
  submission: string;
  valid: boolean;
  score: number | null;
  nan: boolean;
}
const cases = (JSON.parse(readFileSync("test/grade/fixtures/spec-cases.json", "utf8")) as { cases: Case[] })
  .cases;
const dir = mkdtempSync(join(tmpdir(), "medalist-spec-"));

describe("rules of lite-grading.md on crafted submissions", () => {
  it.each(cases.map((c) => [`${c.competition}: ${c.name}`, c] as const))("%s", (_n, c) => {
    const ans = join(dir, "answers.csv"),
      sub = join(dir, "submission.csv");
    writeFileSync(ans, c.answers);
    writeFileSync(sub, c.submission);
    const r = scoreSubmission(loadGraderSpec(join("competitions", c.competition))!, sub, ans);
    expect(r.valid, r.error ?? "").toBe(c.valid);
    if (c.valid && c.nan) expect(r.score).toBeNaN();
    else if (c.valid) expect(Math.abs((r.score as number) - (c.score as number))).toBeLessThanOrEqual(1e-9);
  });
});
