import { basename, resolve } from "node:path";
import type { RunResult } from "../results/schema.js";
import { parseAideJournal, parseEvents, parseMetrics, previewCsv } from "./parse.js";
import { LogPaginator } from "./log-pages.js";
import { LIMITS, listFiles, looksBinary, readInRun, type Bounded } from "./read.js";
import { slug } from "./escape.js";
import type { RunData } from "./model.js";

/** A whole log split into pages (see LogPaginator; the writer streams the file instead). */
export function logPages(
  text: string,
  maxLines = 2000,
  maxChars = 1024 * 1024,
  maxLine = 64 * 1024,
): { starts: number[]; pages: string[]; lines: number } {
  const pages: string[] = [];
  const pager = new LogPaginator((_, page) => pages.push(page) > 0, maxLines, maxChars, maxLine);
  pager.push(text.endsWith("\n") ? text.slice(0, -1) : text);
  pager.end();
  return { starts: pager.starts, pages, lines: pager.lines };
}

function readJson(root: string, rel: string): unknown {
  const f = readInRun(root, rel, LIMITS.jsonBytes);
  if (!f || f.truncated) return undefined;
  try {
    return JSON.parse(f.text);
  } catch {
    return undefined;
  }
}

/** A run page's path without ".html", relative to the site root's runs/ folder. */
export const runPageStem = (side: "base" | "head", runId: string) => `${side}-${slug(runId)}`;

/** A run page's path relative to the site root. */
export const runPage = (side: "base" | "head", runId: string) => `runs/${runPageStem(side, runId)}.html`;

export interface LoadedRun {
  data: RunData;
  /** The run folder (its run.log is streamed by the writer, see log-pages.ts). */
  root: string;
}

/** Gathers one run's page data from its results entry and its folder (`resultsDir`/runDir). */
export function loadRun(side: "base" | "head", result: RunResult, resultsDir: string): LoadedRun {
  const root = resolve(resultsDir, result.runDir);
  const name = runPageStem(side, result.runId);
  const listed = ["logs", "code", "submission"].map((d) => listFiles(root, d));
  const files = listed.flatMap((l) => l.files).map((f) => ({ ...f, path: f.path.replace(/^\//, "") }));
  const missingFolder =
    files.length === 0 && readInRun(root, "run.log", 1) === null && readInRun(root, "run.json", 1) === null;

  const texts: Record<string, Bounded> = {};
  let budget = LIMITS.previewBytes;
  for (const f of files) {
    if (f.kind !== "file" || budget <= 0 || !/^(code|logs)\//.test(f.path)) continue;
    const t = readInRun(root, f.path, Math.min(LIMITS.fileBytes, budget));
    if (!t || looksBinary(t.text)) continue;
    texts[f.path] = t;
    budget -= t.text.length;
  }

  const metricsFile = readInRun(root, "logs/metrics.jsonl", LIMITS.metricsBytes);
  const subFile = readInRun(root, "submission/submission.csv", LIMITS.submissionBytes);
  let submission: RunData["submission"] = null;
  if (subFile) {
    const text = subFile.truncated ? subFile.text.slice(0, subFile.text.lastIndexOf("\n") + 1) : subFile.text;
    submission = { preview: previewCsv(text), bytes: subFile.bytes, truncated: subFile.truncated };
  }

  let tree: RunData["tree"] = null;
  let events: RunData["events"] = null;
  for (const f of files) {
    if (f.kind !== "file" || !f.path.startsWith("logs/") || !f.path.endsWith(".json")) continue;
    const base = basename(f.path).toLowerCase();
    if (!tree && base === "journal.json") {
      const nodes = parseAideJournal(readJson(root, f.path));
      if (nodes) tree = { file: f.path, nodes };
    } else if (!events && /^(trajectory|events|history)/.test(base)) {
      const ev = parseEvents(readJson(root, f.path));
      if (ev) events = { file: f.path, events: ev };
    }
  }

  return {
    data: {
      side,
      result,
      page: runPage(side, result.runId),
      logDir: `runs/${name}-log`,
      log: null,
      metrics: metricsFile ? parseMetrics(metricsFile.text) : null,
      files,
      filesMore: listed.some((l) => l.more),
      texts,
      submission,
      tree,
      events,
      missingFolder,
    },
    root,
  };
}
