/**
 * External grader: runs a configured command (e.g. upstream's `mlebench grade-sample`) and
 * reads its JSON report. Placeholders in the command: {submission}, {competition}, {private_dir}.
 * The last JSON object printed on stdout (or stderr) is taken as the report.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import type { ScoreResult } from "./types.js";

const NumberOrNaN = z.union([z.number(), z.literal("NaN").transform(() => NaN), z.null()]);

/** The part of an MLE-bench grade report we rely on. */
export const ExternalReportSchema = z.looseObject({
  score: NumberOrNaN,
  valid_submission: z.boolean().optional(),
  submission_exists: z.boolean().optional(),
});

export interface ExternalContext {
  competition: string;
  submission: string;
  privateDir: string;
  /** The grader's working folder; default: this process's. */
  cwd?: string;
}

/** Finds the last parseable JSON object in text (Python's json may print NaN). */
export function lastJsonObject(text: string): unknown {
  const fixed = text.replace(/\bNaN\b/g, '"NaN"').replace(/-?\bInfinity\b/g, "null");
  for (let end = fixed.lastIndexOf("}"); end !== -1; end = fixed.lastIndexOf("}", end - 1)) {
    let depth = 0;
    for (let start = end; start >= 0; start--) {
      const ch = fixed[start];
      if (ch === "}") depth++;
      else if (ch === "{" && --depth === 0) {
        try {
          return JSON.parse(fixed.slice(start, end + 1));
        } catch {
          break;
        }
      }
    }
  }
  return undefined;
}

/** Variables the grader gets from the runner: none of its tokens, only where programs are and the locale. */
export const GRADER_ENV_KEEP = ["PATH", "LANG", "LC_ALL", "TZ"] as const;

/** The grader's environment: GRADER_ENV_KEEP from `from`, and `home` as HOME. */
export function graderEnv(home: string, from: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { HOME: home };
  for (const k of GRADER_ENV_KEEP) if (from[k] !== undefined) env[k] = from[k];
  return env;
}

export async function gradeExternal(
  command: string[],
  ctx: ExternalContext,
  timeoutMs = 30 * 60_000,
): Promise<ScoreResult> {
  if (command.length === 0) throw new Error("the external grader command is empty");
  const args = command.map((a) =>
    a
      .replaceAll("{submission}", ctx.submission)
      .replaceAll("{competition}", ctx.competition)
      .replaceAll("{private_dir}", ctx.privateDir),
  );
  // A fresh HOME: the runner's home holds its credentials (git, cloud, docker config).
  const home = mkdtempSync(join(tmpdir(), "medalist-grader-"));
  const { code, stdout, stderr, failure } = await new Promise<{
    code: number | null;
    stdout: string;
    stderr: string;
    failure?: string;
  }>((resolve) => {
    let out = "",
      err = "";
    let child;
    try {
      child = spawn(args[0], args.slice(1), {
        cwd: ctx.cwd,
        stdio: ["ignore", "pipe", "pipe"],
        env: graderEnv(home),
      });
    } catch (e) {
      resolve({ code: null, stdout: "", stderr: "", failure: (e as Error).message });
      return;
    }
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.stdout.on("data", (d: Buffer) => {
      if (out.length < 16e6) out += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      if (err.length < 16e6) err += d.toString();
    });
    child.on("error", (e) => {
      clearTimeout(timer);
      resolve({ code: null, stdout: out, stderr: err, failure: e.message });
    });
    child.on("close", (c, sig) => {
      clearTimeout(timer);
      resolve({ code: c, stdout: out, stderr: err, failure: sig ? `killed by ${sig}` : undefined });
    });
  }).finally(() => rmSync(home, { recursive: true, force: true }));
  const name = args[0];
  if (failure) throw new Error(`external grader ${name} failed: ${failure}`);
  if (code !== 0)
    throw new Error(`external grader ${name} exited with code ${code}: ${lastLine(stderr || stdout)}`);
  const raw = lastJsonObject(stdout) ?? lastJsonObject(stderr);
  if (raw === undefined) throw new Error(`external grader ${name} printed no JSON report`);
  const parsed = ExternalReportSchema.safeParse(raw);
  if (!parsed.success)
    throw new Error(
      `external grader ${name} printed an unexpected report: ${parsed.error.issues[0]?.message ?? "invalid"}`,
    );
  const r = parsed.data;
  const valid = r.valid_submission ?? r.score !== null;
  if (!valid || r.score === null)
    return { valid: false, score: null, error: "the external grader found the submission invalid" };
  return { valid: true, score: r.score, error: null };
}

function lastLine(s: string): string {
  const lines = s.trim().split("\n");
  return (lines[lines.length - 1] ?? "").slice(0, 300);
}
