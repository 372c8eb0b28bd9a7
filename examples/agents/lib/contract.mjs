// The agent contract (same variables as MLE-bench's container paths; defaults are the container paths).
import { mkdirSync, readFileSync, writeFileSync, appendFileSync, copyFileSync } from "node:fs";
import { join, basename } from "node:path";

export const env = {
  dataDir: process.env.DATA_DIR ?? "/home/data",
  submissionDir: process.env.SUBMISSION_DIR ?? "/home/submission",
  logsDir: process.env.LOGS_DIR ?? "/home/logs",
  codeDir: process.env.CODE_DIR ?? "/home/code",
  competition: process.env.COMPETITION_ID ?? "unknown",
  seed: Number(process.env.SEED ?? 0),
  timeLimitSecs: Number(process.env.TIME_LIMIT_SECS ?? 0),
};

/** Appends a line to the trajectory log (logs/agent.log) and echoes it to stdout. */
export function log(message) {
  mkdirSync(env.logsDir, { recursive: true });
  const line = `${new Date().toISOString()} ${message}`;
  appendFileSync(join(env.logsDir, "agent.log"), line + "\n");
  console.log(line);
}

/** Records a validation metric over time (logs/metrics.jsonl). */
export function metric(name, value, step) {
  mkdirSync(env.logsDir, { recursive: true });
  appendFileSync(
    join(env.logsDir, "metrics.jsonl"),
    JSON.stringify({ t: Date.now(), step, name, value }) + "\n",
  );
}

/** Keeps a copy of the agent's code as part of the run's artifact. */
export function saveCode(...files) {
  mkdirSync(env.codeDir, { recursive: true });
  for (const f of files) copyFileSync(f, join(env.codeDir, basename(f)));
}

/** Reads a simple numeric/text CSV (no quoted commas) into {header, rows}. */
export function readCsv(file) {
  const lines = readFileSync(file, "utf8")
    .split(/\r?\n/)
    .filter((l) => l.length > 0);
  const header = lines[0].split(",");
  return { header, rows: lines.slice(1).map((l) => l.split(",")) };
}

export function writeSubmission(header, rows) {
  mkdirSync(env.submissionDir, { recursive: true });
  const text = [header.join(","), ...rows.map((r) => r.join(","))].join("\n") + "\n";
  writeFileSync(join(env.submissionDir, "submission.csv"), text);
}

/** Seeded uniform PRNG (mulberry32). */
export function random(seed) {
  let a = (seed * 2654435761) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Loads the task from the data folder: features shared by train and test, the target column(s),
 * and what kind of task it is, inferred from the sample submission and the training labels.
 */
export function loadTask() {
  const train = readCsv(join(env.dataDir, "train.csv"));
  const test = readCsv(join(env.dataDir, "test.csv"));
  const sample = readCsv(join(env.dataDir, "sample_submission.csv"));
  const idCol = sample.header[0];
  const features = test.header.filter((c) => c !== idCol);
  const fIdx = features.map((c) => train.header.indexOf(c));
  const labelCol = train.header.find((c) => c !== idCol && !features.includes(c));
  const li = train.header.indexOf(labelCol);
  const X = train.rows.map((r) => fIdx.map((j) => Number(r[j])));
  const Xtest = test.rows.map((r) => features.map((c) => Number(r[test.header.indexOf(c)])));
  const ids = test.rows.map((r) => r[test.header.indexOf(idCol)]);
  const rawY = train.rows.map((r) => r[li]);
  let kind;
  let classes = [];
  if (sample.header.length > 2) {
    kind = "multiclass";
    classes = sample.header.slice(1);
  } else if (rawY.every((v) => v === "0" || v === "1")) kind = "binary";
  else kind = "regression";
  const y = kind === "multiclass" ? rawY.map((v) => classes.indexOf(v)) : rawY.map(Number);
  return { kind, idCol, targetCols: sample.header.slice(1), features, classes, X, y, Xtest, ids };
}
