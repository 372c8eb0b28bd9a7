import { basename, resolve } from "node:path";
import type { RunResult } from "../results/schema.js";
import { lastErrorLines, parseAideJournal, parseEvents, parseMetrics, previewCsv } from "./parse.js";
import { LIMITS, listFiles, looksBinary, readInRun, type Bounded } from "./read.js";
import { slug } from "./escape.js";
import type { RunData } from "./model.js";

/**
 * Splits a log into pages of at most `maxLines` lines and about `maxChars` characters; a line longer
 * than `maxLine` is cut with a visible mark (line numbers stay the file's).
 */
export function logPages(
  text: string,
  maxLines = 2000,
  maxChars = 1024 * 1024,
  maxLine = 64 * 1024,
): { starts: number[]; pages: string[]; lines: number } {
  const body = text.endsWith("\n") ? text.slice(0, -1) : text;
  const starts: number[] = [];
  const pages: string[] = [];
  if (!body.length) return { starts, pages, lines: 0 };
  const lines = body.split("\n");
  let page: string[] = [];
  let size = 0;
  const flush = (next: number) => {
    starts.push(next - page.length);
    pages.push(page.join("\n"));
    page = [];
    size = 0;
  };
  lines.forEach((l, i) => {
    const shown =
      l.length > maxLine ? `${l.slice(0, maxLine)} … [line cut: ${l.length - maxLine} more characters]` : l;
    if (page.length && (page.length >= maxLines || size + shown.length > maxChars)) flush(i);
    page.push(shown);
    size += shown.length + 1;
  });
  flush(lines.length);
  return { starts, pages, lines: lines.length };
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

export interface LoadedRun {
  data: RunData;
  /** Log page texts to write under data.logDir as <i>.js. */
  logPages: string[];
}

/** Gathers one run's page data from its results entry and its folder (`resultsDir`/runDir). */
export function loadRun(side: "base" | "head", result: RunResult, resultsDir: string): LoadedRun {
  const root = resolve(resultsDir, result.runDir);
  const name = `${side}-${slug(result.runId)}`;
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

  const logFile = readInRun(root, "run.log", LIMITS.logBytes);
  let pages: string[] = [];
  let log: RunData["log"] = null;
  if (logFile) {
    const split = logPages(logFile.text);
    pages = split.pages;
    log = {
      bytes: logFile.bytes,
      truncated: logFile.truncated,
      lines: split.lines,
      starts: split.starts,
      tail: lastErrorLines(logFile.text.slice(-256 * 1024)),
    };
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
      page: `runs/${name}.html`,
      logDir: log ? `runs/${name}-log` : null,
      log,
      metrics: metricsFile ? parseMetrics(metricsFile.text) : null,
      files,
      filesMore: listed.some((l) => l.more),
      texts,
      submission,
      tree,
      events,
      missingFolder,
    },
    logPages: pages,
  };
}
