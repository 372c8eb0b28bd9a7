import { describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runSuite } from "../../src/suite/run.js";
import { validateConfig } from "../../src/config/load.js";

const root = resolve(import.meta.dirname, "..", "..");

function setup(extra: Record<string, unknown>) {
  const dataDir = mkdtempSync(join(tmpdir(), "medalist-ext-"));
  const prepared = join(dataDir, "ext-comp", "prepared");
  mkdirSync(join(prepared, "public"), { recursive: true });
  mkdirSync(join(prepared, "private"), { recursive: true });
  writeFileSync(join(prepared, "public", "sample_submission.csv"), "id,score\n1,0\n");
  writeFileSync(join(prepared, "private", "answers.csv"), "id,label\n1,1\n");
  const agent = `mkdir -p "$SUBMISSION_DIR" && printf 'id,score\\n1,0.85\\n' > "$SUBMISSION_DIR/submission.csv"`;
  return validateConfig(
    {
      competitions: { include: ["ext-comp"] },
      seeds: 1,
      agent: { command: agent },
      dataDir,
      registryDir: "test/fixtures/external-registry",
      ...extra,
    },
    "test",
  );
}

describe("external grading in a suite", () => {
  it("grades with the configured command and medals from the precomputed thresholds", async () => {
    const config = setup({
      externalGrader: [
        "node",
        "test/fixtures/graders/fake-mlebench.mjs",
        "{submission}",
        "{competition}",
        "{private_dir}",
      ],
    });
    const outDir = mkdtempSync(join(tmpdir(), "medalist-ext-out-"));
    const r = await runSuite({ config, baseDir: root, outDir, label: "head" });
    expect(r.runs[0].grade).toMatchObject({
      score: 0.85,
      valid_submission: true,
      silver_medal: true,
      any_medal: true,
    });
  });

  it("refuses to start when an external competition has no grader configured", async () => {
    const outDir = mkdtempSync(join(tmpdir(), "medalist-ext-out-"));
    await expect(runSuite({ config: setup({}), baseDir: root, outDir, label: "head" })).rejects.toThrow(
      /externalGrader: ext-comp is not graded natively/,
    );
  });
});
