import { mkdirSync, writeFileSync, readFileSync, existsSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { z } from "zod";
import type { Competition } from "../registry/schema.js";
import { rng, normal } from "./random.js";
import { UserError } from "../errors.js";

/** Shape of the synthetic Kaggle leaderboard: score of the best team, the median team and the last team. */
export const ToyLeaderboardSchema = z.strictObject({
  teams: z.number().int().min(1),
  best: z.number(),
  median: z.number(),
  worst: z.number(),
  seed: z.number().int(),
});

const Split = {
  seed: z.number().int(),
  trainRows: z.number().int().positive().max(2_000_000),
  testRows: z.number().int().positive().max(1_000_000),
  leaderboard: ToyLeaderboardSchema,
};

/** The `toy` block of a toy competition.json. */
export const ToySchema = z.discriminatedUnion("task", [
  z.strictObject({
    task: z.literal("regression"),
    ...Split,
    features: z.number().int().min(3).max(200),
    noise: z.number().positive(),
    target: z.string(),
  }),
  z.strictObject({
    task: z.literal("binary"),
    ...Split,
    features: z.number().int().min(3).max(200),
    target: z.string(),
  }),
  z.strictObject({
    task: z.literal("multiclass"),
    ...Split,
    features: z.number().int().min(2).max(200),
    classes: z.array(z.string().max(64)).min(2).max(1000),
    spread: z.number().positive(),
    target: z.string(),
  }),
]);
export type Toy = z.output<typeof ToySchema>;

export function toyParams(c: Competition): Toy {
  const parsed = ToySchema.safeParse(c.toy);
  if (!parsed.success)
    throw new UserError(`competitions/${c.id}: toy parameters invalid: ${parsed.error.issues[0].message}`);
  return parsed.data;
}

interface Table {
  header: string[];
  rows: (string | number)[][];
}

function csv(t: Table): string {
  return [t.header.join(","), ...t.rows.map((r) => r.join(","))].join("\n") + "\n";
}

const fmt = (x: number) => Number(x.toFixed(6));

/** Generates the public and private files of a toy competition (pure: same params, same files). */
export function generateToy(c: Competition): Record<"public" | "private", Record<string, string>> {
  const p = toyParams(c);
  const u = rng(p.seed);
  const n = normal(u);
  const total = p.trainRows + p.testRows;
  const featureNames = Array.from({ length: p.features }, (_, j) => `f${j}`);
  const X = Array.from({ length: total }, () => featureNames.map(() => n()));
  const ids = Array.from({ length: total }, (_, i) => 10000 + i);
  let labels: (number | string)[];
  let answers: Table;
  let sample: Table;
  const testIdx = Array.from({ length: p.testRows }, (_, i) => p.trainRows + i);

  if (p.task === "regression") {
    const w = featureNames.map(() => -5 + 10 * u());
    labels = X.map((x) =>
      fmt(
        20 +
          x.reduce((s, v, j) => s + w[j] * v, 0) +
          3 * x[0] * x[1] +
          4 * Math.sin(2 * x[2]) +
          p.noise * n(),
      ),
    );
    answers = { header: ["id", p.target], rows: testIdx.map((i) => [ids[i], labels[i]]) };
    sample = { header: ["id", p.target], rows: testIdx.map((i) => [ids[i], 0]) };
  } else if (p.task === "binary") {
    const w = featureNames.map(() => -1.5 + 3 * u());
    labels = X.map((x) => {
      const logit = x.reduce((s, v, j) => s + w[j] * v, 0) + 1.5 * x[0] * x[1] - 0.5;
      return u() < 1 / (1 + Math.exp(-logit)) ? 1 : 0;
    });
    answers = { header: ["id", p.target], rows: testIdx.map((i) => [ids[i], labels[i]]) };
    sample = { header: ["id", p.target], rows: testIdx.map((i) => [ids[i], 0.5]) };
  } else {
    const centers = p.classes.map(() => featureNames.map(() => p.spread * n()));
    const cls = X.map(() => Math.floor(u() * p.classes.length));
    X.forEach((x, i) => x.forEach((_, j) => (x[j] += centers[cls[i]][j])));
    labels = cls.map((k) => p.classes[k]);
    answers = {
      header: ["id", ...p.classes],
      rows: testIdx.map((i) => [ids[i], ...p.classes.map((_, k) => (k === cls[i] ? 1 : 0))]),
    };
    const uniform = 1 / p.classes.length;
    sample = {
      header: ["id", ...p.classes],
      rows: testIdx.map((i) => [ids[i], ...p.classes.map(() => uniform)]),
    };
  }

  const train: Table = {
    header: ["id", ...featureNames, p.target],
    rows: Array.from({ length: p.trainRows }, (_, i) => [ids[i], ...X[i].map(fmt), labels[i]]),
  };
  const test: Table = {
    header: ["id", ...featureNames],
    rows: testIdx.map((i) => [ids[i], ...X[i].map(fmt)]),
  };
  return {
    public: {
      "description.md": describe(c, p),
      "train.csv": csv(train),
      "test.csv": csv(test),
      [c.sampleSubmission]: csv(sample),
    },
    private: { [c.answers]: csv(answers) },
  };
}

function describe(c: Competition, p: Toy): string {
  const task =
    p.task === "regression"
      ? `Predict the numeric column \`${p.target}\` for every row of test.csv. Submissions are scored by ${c.metric} (lower is better).`
      : p.task === "binary"
        ? `Predict the probability that \`${p.target}\` is 1 for every row of test.csv. Submissions are scored by ${c.metric} (higher is better).`
        : `Predict a probability for each class (${p.classes.join(", ")}) of \`${p.target}\` for every row of test.csv; each row's probabilities sum to 1. Submissions are scored by ${c.metric} (lower is better).`;
  return [
    `# ${c.name}`,
    "",
    "A small synthetic competition bundled with Medalist (generated, deterministic, no download).",
    "",
    "## Task",
    task,
    "",
    "## Files",
    `- train.csv: ${p.trainRows} rows with features f0..f${p.features - 1} and the target \`${p.target}\``,
    `- test.csv: ${p.testRows} rows, features only`,
    `- ${c.sampleSubmission}: the expected submission format`,
    "",
    "## Submission",
    `Write \`submission.csv\` with the same columns and ids as ${c.sampleSubmission}.`,
    "",
  ].join("\n");
}

/** A Kaggle-export-style leaderboard CSV, best team first. */
export function generateLeaderboard(params: z.input<typeof ToyLeaderboardSchema>): string {
  const p = ToyLeaderboardSchema.parse(params);
  const u = rng(p.seed);
  const ratio = (p.median - p.best) / (p.worst - p.best);
  const k = ratio > 0 && ratio < 1 ? Math.log(ratio) / Math.log(0.5) : 1;
  const scores: number[] = [];
  for (let r = 1; r <= p.teams; r++) {
    const q = (r - 0.5) / p.teams;
    scores.push(Number((p.best + (p.worst - p.best) * q ** k).toFixed(5)));
  }
  const start = Date.UTC(2024, 0, 1);
  const lines = ["scoreNullable,teamId,hasTeamName,submissionDate,score,hasScore"];
  scores.forEach((s, i) => {
    const date = new Date(start + Math.floor(u() * 90 * 86400_000)).toISOString().slice(0, 19);
    lines.push(`${s},${100000 + i},True,${date},${s},True`);
  });
  return lines.join("\n") + "\n";
}

function fingerprint(c: Competition): string {
  return createHash("sha256")
    .update(
      JSON.stringify({
        toy: { ...(c.toy ?? {}), leaderboard: undefined },
        answers: c.answers,
        sample: c.sampleSubmission,
      }),
    )
    .digest("hex");
}

/**
 * Writes <dataDir>/<id>/prepared/{public,private} for a toy competition; skipped when already there
 * with the same parameters. Written to a temporary folder first, then renamed into place.
 */
export function prepareToy(c: Competition, dataDir: string): { prepared: boolean; dir: string } {
  const dir = join(dataDir, c.id, "prepared");
  const stamp = join(dataDir, c.id, ".medalist-toy");
  const fp = fingerprint(c);
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === fp && existsSync(dir))
    return { prepared: false, dir };
  const files = generateToy(c);
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  for (const side of ["public", "private"] as const) {
    for (const [name, text] of Object.entries(files[side])) {
      const file = join(tmp, side, name);
      mkdirSync(join(file, ".."), { recursive: true });
      writeFileSync(file, text);
    }
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  writeFileSync(stamp, fp);
  return { prepared: true, dir };
}
