import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RunResult, SuiteResults } from "../../src/results/schema.js";
import { fakeRun, fakeSuite } from "./results.js";

const FIX = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "viewer");

/** The injection every agent-written text of the fixture carries. */
export const EVIL = `</script><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">`;

function run(
  id: string,
  seed: number,
  medal: string,
  score: number,
  extra: Partial<RunResult> = {},
): RunResult {
  const r = fakeRun(id, seed, medal, { score, usage: { tokens: 12345, dollars: 0.42 }, ...extra });
  if (r.grade) {
    Object.assign(r.grade, {
      gold_threshold: 0.88,
      silver_threshold: 0.86,
      bronze_threshold: 0.84,
      median_threshold: 0.76,
      percentile: score,
    });
  }
  return r;
}

function writeRun(
  dir: string,
  r: RunResult,
  opts: { code: string; aide?: boolean; events?: boolean; logLines?: number },
) {
  const root = join(dir, r.runDir);
  for (const d of ["logs", "code", "submission"]) mkdirSync(join(root, d), { recursive: true });
  const lines = [`2026-01-01T00:00:00.000Z medalist started ${r.runId}`];
  for (let i = 0; i < (opts.logLines ?? 20); i++)
    lines.push(
      `2026-01-01T00:00:${String(i % 60).padStart(2, "0")}.000Z stdout epoch ${i} loss ${(1 / (i + 1)).toFixed(4)}`,
    );
  lines.push(`2026-01-01T00:01:00.000Z stderr warning: ${EVIL}`);
  writeFileSync(join(root, "run.log"), lines.join("\n") + "\n");
  writeFileSync(join(root, "code", "train.py"), opts.code);
  writeFileSync(join(root, "code", `${EVIL.slice(0, 0)}notes.md`), `# notes ${EVIL}\n`);
  writeFileSync(
    join(root, "submission", "submission.csv"),
    `id,churn\n1,0.3\n2,"${EVIL.replace(/"/g, '""')}"\n`,
  );
  copyFileSync(join(FIX, "metrics.jsonl"), join(root, "logs", "metrics.jsonl"));
  writeFileSync(join(root, "logs", "usage.json"), JSON.stringify({ tokens: 12345, dollars: 0.42 }));
  if (opts.aide) copyFileSync(join(FIX, "journal.json"), join(root, "logs", "journal.json"));
  if (opts.events) copyFileSync(join(FIX, "trajectory.json"), join(root, "logs", "trajectory.json"));
  symlinkSync("/etc/passwd", join(root, "logs", "passwd-link"));
}

/** Base and head suites of two toy competitions × 2 seeds, with run folders under `dir`/base, `dir`/head. */
export function buildSite(
  dir: string,
  logLines = 20,
): { base: SuiteResults; head: SuiteResults; baseDir: string; headDir: string } {
  const baseRuns = [
    run("toy-churn", 0, "none", 0.8),
    run("toy-churn", 1, "bronze", 0.845),
    run("toy-house-prices", 0, "none", 0.5),
    run("toy-house-prices", 1, "none", 0.4, {
      outcome: "failed",
      exitCode: 3,
      error: `agent crashed ${EVIL}`,
    }),
  ];
  const headRuns = [
    run("toy-churn", 0, "gold", 0.9),
    run("toy-churn", 1, "silver", 0.87, { gpus: ["0"], durationMs: 120_000 }),
    run("toy-house-prices", 0, "none", 0.45, { outcome: "timed_out", exitCode: null }),
    run("toy-house-prices", 1, "none", 0.5),
  ];
  const base = fakeSuite("base", baseRuns);
  const head = fakeSuite("head", headRuns);
  base.suite.name = head.suite.name = `toys ${EVIL}`;
  const baseDir = join(dir, "base");
  const headDir = join(dir, "head");
  const codeA = "import pandas as pd\nmodel = 'logreg'\nprint(model)\n";
  const codeB = "import pandas as pd\nmodel = 'gbm'\nprint(model)\nprint('tuned')\n";
  baseRuns.forEach((r) => writeRun(baseDir, r, { code: codeA }));
  headRuns.forEach((r, i) =>
    writeRun(headDir, r, { code: codeB, aide: i === 0, events: i === 1, logLines: i === 0 ? logLines : 20 }),
  );
  mkdirSync(headDir, { recursive: true });
  writeFileSync(join(baseDir, "results.json"), JSON.stringify(base));
  writeFileSync(join(headDir, "results.json"), JSON.stringify(head));
  return { base, head, baseDir, headDir };
}
