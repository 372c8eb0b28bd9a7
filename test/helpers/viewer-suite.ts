import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Competition } from "../../src/registry/schema.js";
import type { Registry } from "../../src/registry/registry.js";
import type { RunResult, SuiteResults } from "../../src/results/schema.js";
import { fakeRun, fakeSuite } from "./results.js";

const MEDALS = ["none", "bronze", "silver", "gold"];

/** The cause the CLI printed for the out-of-memory run (the page must lead with it). */
export const OOM_CAUSE = "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (exit 1)";
/** A hostile cause: the agent controls its stderr. */
export const EVIL_CAUSE = `</p><script>window.__pwned=3</script><img src=x onerror="window.__pwned=4"> (exit 2)`;

export interface GeneratedSuite {
  base: SuiteResults;
  head: SuiteResults;
  baseDir: string;
  headDir: string;
  registry: Registry;
  ids: string[];
  /** Competition ids by the group the index must put them in. */
  groups: Record<"lost" | "gained" | "unchanged" | "not-comparable", string[]>;
}

/** Every run's thresholds are these, except the first competition's, which sit close together. */
function thresholds(r: RunResult, close: boolean): RunResult {
  if (r.grade)
    Object.assign(
      r.grade,
      close
        ? { median_threshold: 0.8, bronze_threshold: 0.801, silver_threshold: 0.802, gold_threshold: 0.803 }
        : { median_threshold: 0.76, bronze_threshold: 0.84, silver_threshold: 0.86, gold_threshold: 0.88 },
    );
  return r;
}

/** A run that did not complete has no valid submission, so no medal. */
function noMedal(r: RunResult): void {
  if (r.grade)
    Object.assign(r.grade, {
      valid_submission: false,
      score: null,
      percentile: null,
      any_medal: false,
      gold_medal: false,
      silver_medal: false,
      bronze_medal: false,
    });
}

function writeRun(dir: string, r: RunResult, code: string, stderr: string | null): void {
  const root = join(dir, r.runDir);
  for (const d of ["logs", "code", "submission"]) mkdirSync(join(root, d), { recursive: true });
  const lines = [`2026-01-01T00:00:00.000Z medalist started ${r.runId}`];
  for (let i = 0; i < 30; i++)
    lines.push(`2026-01-01T00:00:${String(i).padStart(2, "0")}.000Z stdout epoch ${i}`);
  if (stderr) lines.push(`2026-01-01T00:01:00.000Z stderr ${stderr}`);
  writeFileSync(join(root, "run.log"), lines.join("\n") + "\n");
  writeFileSync(join(root, "code", "train.py"), code);
  const rows = Array.from({ length: 60 }, (_, i) => `${i},${(i % 7) / 7}`);
  const evil = r.failure?.cause.includes("<script>") ? `60,"<script>window.__pwned=5</script>"\n` : "";
  writeFileSync(join(root, "submission", "submission.csv"), `id,target\n${evil}${rows.join("\n")}\n`);
}

/**
 * A generated base/head pair of 22 registry competitions × 3 seeds with run folders under `dir`:
 * medals lost in some competitions, gained in others, one competition not comparable (every head
 * run an infrastructure error), failed and timed-out runs with the CLI's causes, one hostile cause.
 * `registry` maps every id to a leaderboard (the toy churn one) so run pages draw their chart.
 */
export function buildSuite(dir: string, n = 22, seeds = 3): GeneratedSuite {
  const ids = readdirSync(join(process.cwd(), "competitions"))
    .filter((d) => !d.startsWith("toy-"))
    .sort()
    .slice(0, n);
  const groups: GeneratedSuite["groups"] = { lost: [], gained: [], unchanged: [], "not-comparable": [] };
  const base: RunResult[] = [];
  const head: RunResult[] = [];
  ids.forEach((id, i) => {
    const change = i === n - 2 ? 0 : i % 5 === 2 ? 1 : i % 7 === 3 ? -1 : 0;
    // Medals that can move: bronze → gold when gained, silver → none when lost.
    const level = change > 0 ? 1 : change < 0 ? 2 : 1 + (i % 3);
    const notComparable = i === n - 2;
    // A failed run has no medal: a head failure loses one, a base failure (i = 6) gains one.
    const headFails = i === 4 || i === 9 || i === 11;
    groups[
      notComparable
        ? "not-comparable"
        : change > 0 || i === 6
          ? "gained"
          : change < 0 || headFails
            ? "lost"
            : "unchanged"
    ].push(id);
    for (let seed = 0; seed < seeds; seed++) {
      const p = 0.55 + ((i * 7 + seed * 3) % 10) / 30;
      const b = thresholds(
        fakeRun(id, seed, MEDALS[level], { score: p, durationMs: 60_000 * (1 + seed) }),
        i === 0,
      );
      if (i === 6 && seed === 0)
        Object.assign(b, {
          outcome: "failed",
          exitCode: 127,
          failure: {
            cause: "/bin/sh: pythn3: not found (exit 127)",
            exitCode: 127,
            signal: null,
            stderrTail: ["/bin/sh: pythn3: not found"],
          },
        });
      if (b.outcome !== "completed") noMedal(b);
      base.push(b);
      const hm = seed === 0 ? MEDALS[Math.max(0, Math.min(3, level + change * 2))] : MEDALS[level];
      const h = thresholds(
        fakeRun(id, seed, hm, {
          // The first competition's head seed 0 scores between its close thresholds.
          score: i === 0 && seed === 0 ? 0.8015 : Math.min(0.99, p + change * 0.1),
          durationMs: 50_000 * (1 + seed),
        }),
        i === 0,
      );
      if (notComparable)
        Object.assign(h, {
          outcome: "infra_error",
          exitCode: null,
          grade: null,
          error: "docker daemon not reachable",
          failure: {
            cause: "infrastructure: docker daemon not reachable",
            exitCode: null,
            signal: null,
            stderrTail: [],
          },
        });
      else if (i === 4 && seed === 1)
        Object.assign(h, {
          outcome: "failed",
          exitCode: 1,
          failure: {
            cause: OOM_CAUSE,
            exitCode: 1,
            signal: null,
            stderrTail: ['  File "train.py", line 9', OOM_CAUSE.replace(/ \(exit 1\)$/, "")],
          },
        });
      else if (i === 9 && seed === 2)
        Object.assign(h, {
          outcome: "timed_out",
          exitCode: null,
          failure: { cause: "time limit 60s reached", exitCode: null, signal: "SIGKILL", stderrTail: [] },
        });
      else if (i === 11 && seed === 0)
        Object.assign(h, {
          outcome: "failed",
          exitCode: 2,
          failure: { cause: EVIL_CAUSE, exitCode: 2, signal: null, stderrTail: [EVIL_CAUSE] },
        });
      if (h.outcome !== "completed") noMedal(h);
      head.push(h);
    }
  });
  const baseSuite = fakeSuite("base", base);
  const headSuite = fakeSuite("head", head);
  baseSuite.suite.seeds = headSuite.suite.seeds = seeds;
  baseSuite.suite.name = headSuite.suite.name = "lite suite";
  const baseDir = join(dir, "base");
  const headDir = join(dir, "head");
  base.forEach((r) =>
    writeRun(baseDir, r, "import pandas as pd\nmodel = 'logreg'\n", r.failure?.stderrTail.at(-1) ?? null),
  );
  head.forEach((r) =>
    writeRun(
      headDir,
      r,
      "import pandas as pd\nmodel = 'gbm'\nprint('tuned')\n",
      r.failure?.stderrTail.at(-1) ?? null,
    ),
  );
  const lbDir = join(process.cwd(), "competitions", "toy-churn");
  const registry: Registry = new Map(
    ids.map((id) => [
      id,
      { dir: lbDir, competition: { id, leaderboard: "leaderboard.csv" } as unknown as Competition },
    ]),
  );
  return { base: baseSuite, head: headSuite, baseDir, headDir, registry, ids, groups };
}
