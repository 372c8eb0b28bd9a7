// A RangeError inside a metric is the grader's failure, not an invalid submission.
import { describe, expect, it, vi } from "vitest";

vi.mock("../../src/grade/graders.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/grade/graders.js")>();
  return {
    ...real,
    scoreTables: () => {
      throw new RangeError("Invalid typed array length: -1");
    },
  };
});

const { scoreSubmissionText } = await import("../../src/grade/grade.js");
const { parseGraderSpec } = await import("../../src/grade/spec.js");
const { readCsvText } = await import("../../src/tabular/csv.js");

describe("RangeError inside a metric", () => {
  it("is thrown as a grader failure (grade() flags grader_error), not reported as invalid", () => {
    const spec = parseGraderSpec({ kind: "binary-auc", id: "id", target: "y" });
    const answers = readCsvText("id,y\na,0\nb,1\n");
    expect(() => scoreSubmissionText(spec, "id,y\na,0.1\nb,0.9\n", answers)).toThrow(
      /the grader failed: Invalid typed array length/,
    );
  });
});
