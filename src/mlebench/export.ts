import { createHash } from "node:crypto";
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { UserError } from "../errors.js";
import { COMPETITION_ID } from "../registry/schema.js";
import type { SuiteResults } from "../results/schema.js";
import { pythonJsonLine, upstreamTimestamp, type RunGroupMetadata, type SubmissionLine } from "./upstream.js";

/** make_submission.py's defaults for --rel-log-path and --rel-code-path. */
export const REL_LOG_PATH = "logs/agent.log";
export const REL_CODE_PATH = "code/train.py";

/** What each run folder gets from Medalist's run folder (regular files only; links are left out). */
const COPIED = ["submission", "logs", "code", "run.log"];

export interface ExportResult {
  runGroupDir: string;
  metadataPath: string;
  submissionPath: string;
  runs: number;
  /** Symbolic links and special files left out of the copy (the agent wrote them). */
  skipped: number;
}

/**
 * Upstream's run id for a Medalist run: "<competition>_<uuid-shaped hash>". make_submission.py
 * takes everything before the first "_" as the competition id, and run_agent.py names run folders
 * "<competition>_<uuid4>"; the hash keeps an export of the same results stable.
 */
export function upstreamRunId(competitionId: string, suiteHash: string, runId: string): string {
  const h = createHash("sha256").update(`${suiteHash}\0${runId}`).digest("hex");
  return `${competitionId}_${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

function copyRegular(src: string, dst: string): number {
  let skipped = 0;
  cpSync(src, dst, {
    recursive: true,
    filter: (from) => {
      const st = lstatSync(from);
      const keep = st.isFile() || st.isDirectory();
      if (!keep) skipped++;
      return keep;
    },
  });
  return skipped;
}

/**
 * Writes Medalist's results as an upstream run group in `dir`: metadata.json as run_agent.py writes
 * it, one "<competition>_<id>" folder per run (submission/, logs/, code/, run.log), and the
 * submission.jsonl that make_submission.py would write over it (absolute paths), ready for
 * `mlebench grade --submission <dir>/submission.jsonl --output-dir <dir>`.
 */
export function exportRunGroup(
  results: SuiteResults,
  resultsFile: string,
  dir: string,
  now = new Date(),
): ExportResult {
  const out = resolve(dir);
  if (existsSync(out) && readdirSync(out).length > 0)
    throw new UserError(`--mlebench: ${out} is not empty; name a new folder for the run group`);
  // The ids become folder names: each must be one path component (results read from disk are checked too).
  const hostile = results.runs.find(
    (r) => !COMPETITION_ID.test(r.competitionId) || r.competitionId.length > 128,
  );
  if (hostile)
    throw new UserError(
      `runs[${results.runs.indexOf(hostile)}].competitionId is not a competition id (letters, digits, _ . -, starting with a letter or digit); nothing was exported`,
    );
  const bad = results.runs.find((r) => r.competitionId.includes("_"));
  if (bad)
    throw new UserError(
      `${bad.competitionId}: upstream's make_submission.py reads a competition id up to the first "_" of its run folder, so a competition id with "_" cannot be exported`,
    );
  mkdirSync(out, { recursive: true });
  const resultsDir = dirname(resolve(resultsFile));
  const metadata: RunGroupMetadata = {
    run_group: basename(out),
    created_at: upstreamTimestamp(now),
    runs: {},
  };
  const lines: SubmissionLine[] = [];
  let skipped = 0;
  for (const r of results.runs) {
    const id = upstreamRunId(r.competitionId, results.suite.hash, r.runId);
    const from = resolve(resultsDir, r.runDir);
    const to = join(out, id);
    mkdirSync(to);
    for (const name of COPIED)
      if (existsSync(join(from, name)) && !lstatSync(join(from, name)).isSymbolicLink())
        skipped += copyRegular(join(from, name), join(to, name));
    // run_agent.py's "success": the harness ran the agent (its exceptions are Medalist's infra errors).
    metadata.runs[id] = { success: r.outcome !== "infra_error" };
    const has = (rel: string) => existsSync(join(to, rel));
    lines.push({
      competition_id: r.competitionId,
      submission_path: has("submission/submission.csv") ? join(to, "submission/submission.csv") : null,
      logs_path: has(REL_LOG_PATH) ? join(to, REL_LOG_PATH) : null,
      code_path: has(REL_CODE_PATH) ? join(to, REL_CODE_PATH) : null,
    });
  }
  const metadataPath = join(out, "metadata.json");
  writeFileSync(metadataPath, JSON.stringify(metadata, null, 4));
  const submissionPath = join(out, "submission.jsonl");
  writeFileSync(submissionPath, lines.map((l) => `${pythonJsonLine({ ...l })}\n`).join(""));
  return { runGroupDir: out, metadataPath, submissionPath, runs: results.runs.length, skipped };
}
