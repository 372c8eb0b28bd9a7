import { lineSvg } from "./charts.js";
import { esc, scriptJson } from "./escape.js";
import { cutNote, LIMIT_REACHED, lineText, PageBudget, preText, sizeText } from "./budget.js";
import { treeHtml } from "./tree.js";
import { LIMITS } from "./read.js";
import type { RunData } from "./model.js";

/** The sections of a run page below its headline (pages.ts puts them in order). */

/** Code files shown open at the top of "Final code"; the rest are collapsed. */
const OPEN_FILES = 3;

function fileView(path: string, run: RunData, budget: PageBudget): string {
  const t = run.texts[path];
  if (!t) return "";
  return preText(t.text, LIMITS.textChars, budget, t.bytes, t.truncated);
}

/** The final code: the first files open, each file's text bounded. */
export function codeSection(run: RunData, budget: PageBudget): string {
  const code = run.files.filter((f) => f.kind === "file" && f.path.startsWith("code/"));
  if (!code.length) return `<h2>Final code</h2><p class="muted">No files in code/.</p>`;
  const html: string[] = [];
  for (const [i, f] of code.entries()) {
    if (!budget.row()) {
      html.push(`<p class="muted">${code.length - i} more files not shown: ${esc(LIMIT_REACHED)}.</p>`);
      break;
    }
    const view = fileView(f.path, run, budget);
    html.push(
      `<details${i < OPEN_FILES && view ? " open" : ""}><summary class="mono">${lineText(f.path, 300, budget)} <span class="muted">${esc(sizeText(f.bytes))}</span></summary>${view || `<p class="muted">not shown (binary or past the size limit)</p>`}</details>`,
    );
  }
  return `<h2>Final code</h2><div id="code">${html.join("")}</div>`;
}

/** The submission's first rows, collapsed. */
export function submissionSection(run: RunData, budget: PageBudget): string {
  if (!run.submission) return `<h2>Submission</h2><p class="muted">No submission/submission.csv.</p>`;
  const p = run.submission.preview;
  const table = budget.html(
    `<div class="tablebox"><table id="submission"><tr>${p.header.map((h) => `<th>${esc(h)}</th>`).join("")}</tr>${p.rows.map((row) => `<tr>${row.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("")}</table></div>`,
    `<p class="muted">Preview not shown: ${esc(LIMIT_REACHED)}.</p>`,
  );
  return (
    `<h2>Submission</h2><details id="submission-preview"><summary>submission.csv: ${esc(sizeText(run.submission.bytes))}; preview of the first ${p.rows.length} rows${p.more || run.submission.truncated ? " (more not shown)" : ""}</summary>` +
    `${table}</details>`
  );
}

/** logs/metrics.jsonl as a line chart, up to six series. */
export function metricsSection(run: RunData, budget: PageBudget): string {
  const m = run.metrics;
  if (!m || !m.points.length)
    return `<h2>Validation metric over time</h2><p class="muted">No logs/metrics.jsonl.</p>`;
  const names = [...new Set(m.points.map((p) => p.name))].slice(0, 6);
  const colors = ["#0969da", "#cf222e", "#1a7f37", "#8250df", "#bf8700", "#59636e"];
  const chart = budget.html(
    `<div id="metrics">${lineSvg(
      names.map((n, i) => ({
        label: n,
        color: colors[i],
        points: m.points.filter((p) => p.name === n).map((p) => ({ x: p.x, y: p.value })),
      })),
      `logs/metrics.jsonl: ${m.points.length} points`,
      m.xLabel,
    )}</div>`,
    `<p class="muted">Chart not shown: ${esc(LIMIT_REACHED)}.</p>`,
  );
  return (
    `<h2>Validation metric over time</h2>${chart}` +
    (m.badLines ? `<p class="muted">${m.badLines} unreadable lines skipped.</p>` : "")
  );
}

/** The AIDE solution tree and the event trajectory, when the run left them. */
export function trajectorySections(run: RunData, budget: PageBudget): string {
  const parts: string[] = [];
  if (run.tree)
    parts.push(
      `<h2>AIDE solution tree <span class="muted">(${esc(run.tree.file)})</span></h2><div id="aide">${treeHtml(run.tree.nodes, budget)}</div>`,
    );
  if (run.events) {
    const events = run.events.events;
    const rows: string[] = [];
    for (const e of events) {
      if (!budget.row()) {
        rows.push(
          `<tr><td colspan="5" class="muted">${events.length - rows.length} more events not shown: ${esc(LIMIT_REACHED)}; the file is in the run's artifact.</td></tr>`,
        );
        break;
      }
      rows.push(
        `<tr><td class="num">${lineText(String(e.id), 40, budget)}</td><td class="mono">${lineText(e.time ?? "", 80, budget)}</td><td>${lineText(e.source, 200, budget)}</td><td>${lineText(e.kind, 200, budget)}</td><td>${lineText(e.text, 2000, budget)}${e.detail ? preText(e.detail, 20_000, budget) : ""}</td></tr>`,
      );
    }
    parts.push(
      `<h2>Event trajectory <span class="muted">(${esc(run.events.file)})</span></h2><div class="tablebox"><table id="events"><tr><th>#</th><th>time</th><th>source</th><th>event</th><th>content</th></tr>${rows.join("")}</table></div>`,
    );
  }
  return parts.join("\n");
}

/** The paged, searchable log (its pages are separate .js files, see log-script.ts). */
export function logSection(run: RunData): string {
  if (!run.log || !run.logDir) return `<h2>Agent log</h2><p class="muted">No run.log.</p>`;
  const log = run.log;
  const cut = log.truncated
    ? ` (cut: ${esc(log.shownBytes ? cutNote(log.shownBytes, log.bytes) : `only the beginning is shown, at most ${sizeText(LIMITS.logBytes)} of log pages per run; the full file is in the run's artifact`)})`
    : "";
  return (
    `<h2>Agent log</h2><p class="muted">run.log: ${esc(log.lines.toLocaleString("en-US"))} lines shown, ${esc(sizeText(log.bytes))}${cut}</p>` +
    `<p><input type="search" id="log-search" placeholder="search the whole log" aria-label="search the log"> <span id="log-status" class="muted"></span></p>` +
    `<ol id="log-results" class="mono"></ol>` +
    `<p><button id="log-prev">◀ previous</button> <span id="log-info"></span> <button id="log-next">next ▶</button></p>` +
    `<div class="log" id="log-view"></div>` +
    `<script type="application/json" id="log-meta">${scriptJson({ dir: `../${run.logDir}`, chunks: log.starts.length, starts: log.starts })}</script>`
  );
}

/** Every file under logs/, code/ and submission/ (code is shown once, under "Final code"). */
export function filesSection(run: RunData, budget: PageBudget): string {
  const listed = run.files.filter(
    (f) => f.path.startsWith("logs/") || f.path.startsWith("code/") || f.path.startsWith("submission/"),
  );
  let unlisted = 0;
  const rows = listed.map((f) => {
    if (!budget.row()) {
      unlisted++;
      return "";
    }
    const view = f.kind === "file" && !f.path.startsWith("code/") ? fileView(f.path, run, budget) : "";
    const kind =
      f.kind === "file"
        ? sizeText(f.bytes)
        : f.kind === "link"
          ? "link (not followed)"
          : f.kind === "dir"
            ? "folder"
            : "special file (not read)";
    const name = lineText(f.path, 300, budget);
    return `<tr><td class="mono">${view ? `<details><summary>${name}</summary>${view}</details>` : name}</td><td class="num">${esc(kind)}</td></tr>`;
  });
  return (
    `<h2>Files</h2><div class="tablebox"><table id="files"><tr><th>path</th><th>size</th></tr>${rows.join("")}</table></div>` +
    (run.filesMore ? `<p class="muted">More files not listed.</p>` : "") +
    (unlisted ? `<p class="muted">${unlisted} more files not listed: ${esc(LIMIT_REACHED)}.</p>` : "")
  );
}
