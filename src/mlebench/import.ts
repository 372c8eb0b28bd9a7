import { createHash } from "node:crypto";
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { UserError } from "../errors.js";
import { COMPETITION_ID } from "../registry/schema.js";
import {
  RESULTS_SCHEMA_VERSION,
  type GradeReportJson,
  type RunResult,
  type SuiteResults,
} from "../results/schema.js";
import { VERSION } from "../version.js";
import {
  GradingReportSchema,
  maxUpstreamBytes,
  readBounded,
  readUpstream,
  RunGroupMetadataSchema,
  type CompetitionReport,
  type RunGroupMetadata,
} from "./upstream.js";

/** `mlebench grade` names its report "<timestamp>_grading_report.json". */
const REPORT_NAME = /grading_report\.json$/;

export interface ImportOptions {
  /** The agent's time limit in seconds (upstream's report does not record it). */
  timeLimitSecs: number;
  /** The results' label (default "base": imported numbers are usually the baseline). */
  label?: string;
  /** Where the results document will be written: run folders are recorded relative to it. */
  outFile: string;
}

/** The grading reports of `path`: the file itself, or the *grading_report.json files in the folder (name order). */
export function findReports(path: string): string[] {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new UserError(`not found: ${path}`);
  }
  if (!st.isDirectory()) return [path];
  const found = readdirSync(path)
    .filter((n) => REPORT_NAME.test(n))
    .sort()
    .map((n) => join(path, n));
  if (found.length === 0)
    throw new UserError(
      `${path} holds no *_grading_report.json; grade the run group first (mlebench grade --submission submission.jsonl --output-dir ${path})`,
    );
  return found;
}

/** The upstream run id in a submission path ".../<run group>/<run id>/submission/submission.csv". */
function runIdOf(submissionPath: string): string | null {
  const parts = submissionPath.split(/[\\/]/);
  const id = parts.length >= 3 && parts.at(-2) === "submission" ? parts.at(-3)! : null;
  // A run folder's name: one path component ("..", "/" and NUL never make one).
  return id !== null && COMPETITION_ID.test(id) ? id : null;
}

function gradeOf(c: CompetitionReport): GradeReportJson {
  return {
    competition_id: c.competition_id,
    score: c.score,
    gold_threshold: c.gold_threshold,
    silver_threshold: c.silver_threshold,
    bronze_threshold: c.bronze_threshold,
    median_threshold: c.median_threshold,
    any_medal: c.any_medal,
    gold_medal: c.gold_medal,
    silver_medal: c.silver_medal,
    bronze_medal: c.bronze_medal,
    above_median: c.above_median,
    submission_exists: c.submission_exists,
    valid_submission: c.valid_submission,
    is_lower_better: c.is_lower_better,
    created_at: c.created_at,
    submission_path: c.submission_path,
    // Upstream's report has no leaderboard percentile.
    percentile: null,
    error: null,
  };
}

/**
 * Reads an upstream run group's grading report(s) (and its metadata.json, when next to them) into a
 * Medalist results document. A submission graded in several reports counts once (the last report by
 * name, i.e. the newest). Each competition's runs become seeds 0, 1, … in report order.
 */
export function importRunGroup(path: string, opts: ImportOptions): SuiteResults {
  const reportFiles = findReports(path);
  const folder = statSync(path).isDirectory() ? path : dirname(path);
  const metaFile = join(folder, "metadata.json");
  const metadata: RunGroupMetadata | null = existsSync(metaFile)
    ? readUpstream(metaFile, RunGroupMetadataSchema, "run_agent.py's metadata.json")
    : null;
  const bySubmission = new Map<string, { report: CompetitionReport; file: string }>();
  const hash = createHash("sha256");
  for (const file of reportFiles) {
    const report = readUpstream(file, GradingReportSchema, "an MLE-bench grading report");
    hash.update(readBounded(file, maxUpstreamBytes()));
    for (const c of report.competition_reports) {
      bySubmission.delete(c.submission_path); // re-inserted last: keeps report order, newest wins
      bySubmission.set(c.submission_path, { report: c, file });
    }
  }
  const outDir = dirname(resolve(opts.outFile));
  const seeds = new Map<string, number>();
  const runs: RunResult[] = [];
  for (const { report: c, file } of bySubmission.values()) {
    const seed = seeds.get(c.competition_id) ?? 0;
    seeds.set(c.competition_id, seed + 1);
    const upstreamId = runIdOf(c.submission_path);
    const success = upstreamId ? metadata?.runs[upstreamId]?.success : undefined;
    runs.push({
      runId: `${c.competition_id}.s${seed}`,
      competitionId: c.competition_id,
      seed,
      // Graded by upstream either way; run_agent.py's success: false (its harness failed) is "failed".
      outcome: success === false ? "failed" : "completed",
      exitCode: null,
      startedAt: c.created_at,
      durationMs: 0, // not in upstream's report: the agent description says so
      attempts: 1,
      runDir: upstreamId ? relative(outDir, resolve(folder, upstreamId)) : "",
      error: success === false ? "MLE-bench's run_agent.py recorded success: false for this run" : null,
      grade: gradeOf(c),
      usage: null,
      gpus: [],
      details: {
        source: "mlebench",
        report: basename(file),
        ...(upstreamId ? { upstreamRunId: upstreamId } : {}),
      },
    });
  }
  if (runs.length === 0)
    throw new UserError(`${reportFiles[0]}: competition_reports is empty; nothing to import`);
  const competitions = [...seeds.keys()].sort();
  const times = runs.map((r) => r.startedAt).sort();
  return {
    schemaVersion: RESULTS_SCHEMA_VERSION,
    medalistVersion: VERSION,
    label: opts.label ?? "base",
    suite: {
      name: `mlebench ${metadata?.run_group ?? basename(resolve(folder))}`,
      // The reports' own hash: an imported suite never claims to be the same suite as a Medalist run.
      hash: `mlebench-${hash.digest("hex").slice(0, 16)}`,
      competitions,
      seeds: Math.max(...seeds.values()),
    },
    agent: {
      description: `MLE-bench run group ${metadata?.run_group ?? basename(resolve(folder))} (imported; upstream records no run times)`,
      image: null,
      imageDigest: null,
    },
    git: { sha: null, ref: null },
    environment: {
      executor: "mlebench",
      timeLimitSecs: opts.timeLimitSecs,
      gpuModel: null,
      node: "none (imported from MLE-bench)",
      platform: "unknown",
    },
    startedAt: times[0],
    finishedAt: times.at(-1)!,
    runs,
  };
}
