// Issue 22's classes A–E, each from its minimal example, with upstream's verdict recorded by
// running upstream's own grade functions (fixtures/issue22-cases.json says with which versions).
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readCsvText } from "../../src/tabular/csv.js";
import { scoreSubmissionText } from "../../src/grade/grade.js";
import { loadGraderSpec } from "../../src/grade/spec.js";
import { columnsUsed } from "../../src/grade/graders.js";
import { UndefinedMetricError } from "../../src/grade/metrics/errors.js";

interface Case {
  name: string;
  competition: string;
  answers: string;
  submission: string;
  valid: boolean;
  score: number | null;
  upstream_error: string | null;
}
const cases = (
  JSON.parse(readFileSync("test/grade/fixtures/issue22-cases.json", "utf8")) as { cases: Case[] }
).cases;

function score(c: Case) {
  const spec = loadGraderSpec(join("competitions", c.competition))!;
  const used = columnsUsed(spec).answers;
  const answers = readCsvText(c.answers, "answers.csv", { keep: (n) => used.includes(n) });
  return scoreSubmissionText(spec, c.submission, answers);
}

describe("issue 22: upstream's verdict on each minimal example", () => {
  it.each(cases.map((c) => [`${c.name} (${c.competition})`, c] as const))("%s", (_n, c) => {
    if (c.name.startsWith("A_")) {
      // Answers with a single label: scikit-learn's log loss raises whatever the submission, so
      // the answers are at fault: a grader error (valid_submission false), as for a one-class AUC.
      expect(c.valid).toBe(false);
      expect(() => score(c)).toThrow(UndefinedMetricError);
      return;
    }
    const r = score(c);
    expect(r.valid, r.error ?? "").toBe(c.valid);
    if (c.valid) expect(Math.abs((r.score as number) - c.score!)).toBeLessThanOrEqual(1e-12);
  });

  it("A: a bad submission is still reported as the submission's fault first", () => {
    const c = cases.find((x) => x.name === "A_dogs")!;
    const r = score({ ...c, submission: "id,label\n1,0.9\n2,1.5\n" });
    expect(r.valid).toBe(false);
  });
});
