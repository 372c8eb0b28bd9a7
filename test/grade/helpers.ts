import { fileURLToPath } from "node:url";
import { mkdtempSync, mkdirSync, writeFileSync, copyFileSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { vi } from "vitest";
import { gradeCommand } from "../../src/cli/commands/grade.js";
import { rankCommand } from "../../src/cli/commands/rank.js";

/** Upstream grader's reference cases, copied into the repository (see test/fixtures/vectors/README.md). */
export const VECTORS = fileURLToPath(new URL("../fixtures/vectors", import.meta.url));
export const LOWER_IS_BETTER = new Set([
  "denoising-dirty-documents",
  "dog-breed-identification",
  "dogs-vs-cats-redux-kernels-edition",
  "leaf-classification",
  "new-york-city-taxi-fare-prediction",
  "nomad2018-predict-transparent-conductors",
  "spooky-author-identification",
]);

export interface VectorCase {
  name: string;
  note: string;
  answers: Record<string, string>;
  submission_csv: string;
  expected: {
    valid: boolean;
    score: number | null | "NaN";
    rounded_score: number | null | "NaN";
    error: string | null;
  };
}
export interface VectorFile {
  competition_id: string;
  answers_file: string;
  id_column: string;
  target_columns: string[];
  cases: VectorCase[];
}

export function vectorFiles(): VectorFile[] {
  return readdirSync(VECTORS)
    .filter((f) => f.endsWith(".json") && f !== "medals.json" && f !== "numpy-permutation.json")
    .sort()
    .map((f) => JSON.parse(readFileSync(join(VECTORS, f), "utf8")) as VectorFile);
}

/** A scratch registry holding the repo's grader.json for a competition, and a data dir. */
export function scratchCompetition(id: string, answersFile: string, answers: Record<string, string>) {
  const root = mkdtempSync(join(tmpdir(), "medalist-grade-"));
  const reg = join(root, "registry", id);
  mkdirSync(reg, { recursive: true });
  writeFileSync(
    join(reg, "competition.json"),
    JSON.stringify({
      id,
      name: id,
      metric: "m",
      isLowerBetter: LOWER_IS_BETTER.has(id),
      answers: answersFile,
      sampleSubmission: "s.csv",
    }),
  );
  copyFileSync(join("competitions", id, "grader.json"), join(reg, "grader.json"));
  const priv = join(root, "data", id, "prepared", "private");
  mkdirSync(priv, { recursive: true });
  for (const [name, text] of Object.entries(answers)) writeFileSync(join(priv, name), text);
  return { root, registry: join(root, "registry"), dataDir: join(root, "data") };
}

/** Runs a CLI command, returning its exit code and stdout. */
export async function runCli(cmd: "grade" | "rank", argv: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const spy = vi.spyOn(console, "log").mockImplementation((...a: unknown[]) => void lines.push(a.join(" ")));
  try {
    const code = await (cmd === "grade" ? gradeCommand : rankCommand).run(argv);
    return { code, out: lines.join("\n") };
  } finally {
    spy.mockRestore();
  }
}

/** Parses a --json report, putting each non-finite number back as its name ("NaN", "Infinity"). */
export function parsePyJson(text: string): Record<string, unknown> {
  const r = JSON.parse(text) as Record<string, unknown>;
  for (const [k, v] of Object.entries((r.nonFinite ?? {}) as Record<string, string>)) r[k] = v;
  return r;
}
