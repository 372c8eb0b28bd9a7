import { describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parsePyJson, runCli, scratchCompetition, vectorFiles } from "./helpers.js";

const asNum = (v: unknown) => (v === "NaN" ? NaN : (v as number | null));

describe.each(vectorFiles().map((f) => [f.competition_id, f] as const))("%s", (id, file) => {
  it.each(file.cases.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const s = scratchCompetition(id, file.answers_file, c.answers);
    const sub = join(s.root, "submission.csv");
    writeFileSync(sub, c.submission_csv);
    const { code, out } = await runCli("grade", [
      "--competition",
      id,
      "--submission",
      sub,
      "--data-dir",
      s.dataDir,
      "--registry",
      s.registry,
      "--json",
    ]);
    expect(code).toBe(0);
    const r = parsePyJson(out);
    expect({ valid: r.valid_submission, error: r.error }).toMatchObject({ valid: c.expected.valid });
    const rounded = asNum(c.expected.rounded_score);
    if (rounded === null) expect(r.score).toBeNull();
    else if (Number.isNaN(rounded)) expect(r.score).toBe("NaN");
    else expect(r.score).toBe(rounded);
    const raw = asNum(c.expected.score);
    if (raw === null) expect(r.unrounded_score).toBeNull();
    else if (Number.isNaN(raw)) expect(r.unrounded_score).toBe("NaN");
    else expect(Math.abs((r.unrounded_score as number) - raw)).toBeLessThanOrEqual(1e-9);
    if (c.expected.valid) expect(r.error).toBeNull();
    else expect(typeof r.error).toBe("string");
  });
});

describe("through the bundled registry (competitions/<id>/competition.json + grader.json)", () => {
  it.each(vectorFiles().map((f) => [f.competition_id, f] as const))("%s", async (id, file) => {
    const c = file.cases.find((x) => x.name === "valid_random")!;
    const s = scratchCompetition(id, file.answers_file, c.answers);
    const sub = join(s.root, "submission.csv");
    writeFileSync(sub, c.submission_csv);
    const { out } = await runCli("grade", [
      "--competition",
      id,
      "--submission",
      sub,
      "--data-dir",
      s.dataDir,
      "--json",
    ]);
    const r = parsePyJson(out);
    expect(r.valid_submission).toBe(true);
    expect(r.score).toBe(c.expected.rounded_score);
  });
});
