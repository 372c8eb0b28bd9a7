import type { RunResult, SuiteResults } from "../results/schema.js";
import { cellOf, summarize } from "../compare/compare.js";
import { costText, duration, outcomeText, pct, points, score } from "../report/format.js";
import { IGNORED_REASON, usableAmount } from "../results/usage.js";
import { histogramSvg, lineSvg, type Marker } from "./charts.js";
import { esc, scriptJson } from "./escape.js";
import { cutNote, LIMIT_REACHED, lineText, PageBudget, preText, sizeText } from "./budget.js";
import { treeHtml } from "./tree.js";
import { LIMITS } from "./read.js";
import { page } from "./layout.js";
import { LOG_SCRIPT } from "./log-script.js";
import { runKey, type LeaderboardData, type RunData, type SiteData } from "./model.js";

/** The viewer's pages as HTML strings: pure functions of the gathered data. */

const num = (v: number | "NaN" | null | undefined): number | null =>
  v === "NaN" ? NaN : v === undefined ? null : v;

export function medalText(r: RunResult): string {
  const g = r.grade;
  if (!g) return "not graded";
  return g.gold_medal ? "gold" : g.silver_medal ? "silver" : g.bronze_medal ? "bronze" : "no medal";
}

/** The medal with a coloured dot (no emoji: the page must not depend on an emoji font). */
function medalHtml(r: RunResult): string {
  const m = medalText(r);
  return ["gold", "silver", "bronze"].includes(m) ? `<span class="medal ${m}">●</span> ${m}` : esc(m);
}

/** One sentence on how the run ended and why. */
export function outcomeWhy(r: RunResult, timeLimitSecs: number): string {
  const g = r.grade;
  switch (r.outcome) {
    case "completed":
      if (!g) return "The agent exited with code 0; the run was not graded.";
      if (g.grader_error)
        return `The agent exited with code 0, but grading failed: ${g.error ?? "unknown error"}.`;
      if (!g.submission_exists) return "The agent exited with code 0 without writing submission.csv.";
      if (!g.valid_submission)
        return `The agent exited with code 0; the submission is invalid: ${g.error ?? "no reason given"}.`;
      return "The agent exited with code 0 and wrote a valid submission.";
    case "failed":
      return `The agent exited with code ${r.exitCode ?? "unknown"}${r.error ? ` (${r.error})` : ""}.`;
    case "timed_out":
      return `The agent was stopped at the time limit (${timeLimitSecs}s)${r.error ? `: ${r.error}` : ""}.`;
    case "oom":
      return `The agent was killed for running out of memory${r.exitCode !== null ? ` (exit code ${r.exitCode})` : ""}.`;
    case "infra_error":
      return `Infrastructure error, not the agent's: ${r.error ?? "unknown"}. This run counts on neither side.`;
  }
}

function runCellHtml(run: RunData | undefined, fromRoot: string): string {
  if (!run) return `<td colspan="4" class="muted">no run</td>`;
  const r = run.result;
  const c = cellOf(r);
  const cls = r.outcome === "completed" && c.valid ? "" : "bad";
  return (
    `<td><a href="${esc(fromRoot + run.page)}">${esc(outcomeText(c))}</a></td>` +
    `<td class="${cls}">${medalHtml(r)}</td><td class="num">${esc(score(c.score))}</td>` +
    `<td class="num">${esc(pct(c.percentile, 0))}</td>`
  );
}

/** better / worse / same for a pair of runs: medal rank first, then percentile. */
export function pairMark(base: RunResult | undefined, head: RunResult | undefined): string {
  if (!base || !head) return "";
  const rank = (r: RunResult) =>
    r.grade ? (r.grade.gold_medal ? 3 : r.grade.silver_medal ? 2 : r.grade.bronze_medal ? 1 : 0) : 0;
  const d = rank(head) - rank(base) || (head.grade?.percentile ?? 0) - (base.grade?.percentile ?? 0);
  return d > 0
    ? `<span class="good">▲ better</span>`
    : d < 0
      ? `<span class="bad">▼ worse</span>`
      : `<span class="muted">= same</span>`;
}

export function diffPageName(competitionId: string, seed: number): string {
  return `diffs/${slugPart(competitionId)}-s${seed}.html`;
}

const slugPart = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 120);

function summaryCards(s: SuiteResults): string {
  const sum = summarize(s);
  const gpuSecs = s.runs.reduce((a, r) => a + (r.gpus.length * r.durationMs) / 1000, 0);
  const tokens = s.runs.map((r) => r.usage?.tokens).filter(usableAmount);
  const cards: [string, string][] = [
    ["medal rate", `${pct(sum.medalRate)} (${sum.medals}/${sum.comparable})`],
    ["mean percentile", pct(sum.meanPercentile, 0)],
    ["valid submissions", pct(sum.validRate, 0)],
    ["agent time", duration(sum.durationMs)],
    ["cost", costText(sum)],
    [
      "tokens",
      tokens.length
        ? `${tokens.reduce((a, b) => a + b, 0).toLocaleString("en-US")} self-reported by ${tokens.length} of ${s.runs.length} runs`
        : "not reported",
    ],
    ["GPU-seconds", gpuSecs ? Math.round(gpuSecs).toString() : "0"],
  ];
  return `<div class="cards">${cards.map(([k, v]) => `<div class="card"><span class="muted">${esc(k)}</span><b>${esc(v)}</b></div>`).join("")}</div>`;
}

/** The suite page: summary of each side, history trend, every run with base beside head. */
export function renderIndex(site: SiteData): string {
  const { head, base } = site;
  const byKey = (side: "base" | "head") =>
    new Map(site.runs.filter((r) => r.side === side).map((r) => [runKey(r.result), r]));
  const heads = byKey("head");
  const bases = byKey("base");
  const keys = [...new Set([...bases.keys(), ...heads.keys()])].sort((a, b) => {
    const [ca, sa] = a.split("#");
    const [cb, sb] = b.split("#");
    return ca < cb ? -1 : ca > cb ? 1 : Number(sa) - Number(sb);
  });
  const parts: string[] = [];
  parts.push(`<h1>${esc(head.suite.name)}</h1>`);
  parts.push(
    `<p class="muted">${esc(head.suite.competitions.length)} competitions × ${esc(head.suite.seeds)} seeds · time limit ${esc(head.environment.timeLimitSecs)}s · executor ${esc(head.environment.executor)}${head.git.sha ? ` · head ${esc(head.git.sha.slice(0, 12))}` : ""}</p>`,
  );
  if (base) {
    const hb = summarize(head);
    const bb = summarize(base);
    const delta = hb.medalRate !== null && bb.medalRate !== null ? hb.medalRate - bb.medalRate : null;
    parts.push(`<h2>Base · ${esc(base.agent.description)}</h2>${summaryCards(base)}`);
    parts.push(`<h2>Head · ${esc(head.agent.description)}</h2>${summaryCards(head)}`);
    parts.push(
      `<p>Medal rate head − base: <b>${esc(points(delta))}</b> (unpaired difference of the two rates; the PR comment carries the paired statistics).</p>`,
    );
  } else {
    parts.push(`<h2>${esc(head.label)} · ${esc(head.agent.description)}</h2>${summaryCards(head)}`);
  }
  if (site.history.length > 1) {
    const pts = site.history;
    const chart = lineSvg(
      [
        {
          label: "medal rate",
          color: "#cf8a00",
          points: pts.map((p, i) => ({ x: i + 1, y: (p.medalRate ?? NaN) * 100 })),
        },
        {
          label: "mean percentile",
          color: "#0969da",
          points: pts.map((p, i) => ({ x: i + 1, y: (p.meanPercentile ?? NaN) * 100 })),
        },
      ],
      `Last ${pts.length - 1} default-branch results (%), then this run (point ${pts.length})`,
      "result",
    );
    parts.push(`<h2>History</h2>${chart}`);
  }
  parts.push(`<h2>Runs</h2>`);
  const rows = keys.map((k) => {
    const b = bases.get(k);
    const h = heads.get(k);
    const any = (h ?? b)!.result;
    const diff = b && h ? `<a href="${esc(diffPageName(any.competitionId, any.seed))}">code diff</a>` : "";
    return (
      `<tr data-competition="${esc(any.competitionId)}"><td>${esc(any.competitionId)}</td><td class="num">${esc(any.seed)}</td>` +
      (base ? runCellHtml(b, "") : "") +
      runCellHtml(h, "") +
      (base ? `<td>${pairMark(b?.result, h?.result)}</td><td>${diff}</td>` : "") +
      `</tr>`
    );
  });
  const side = (name: string) =>
    `<th>${name} outcome</th><th>${name} medal</th><th>${name} score</th><th>${name} percentile</th>`;
  parts.push(
    `<table id="runs"><thead><tr><th>Competition</th><th>Seed</th>${base ? side("Base") : ""}${side(base ? "Head" : "")}${base ? "<th>Head vs base</th><th>Code</th>" : ""}</tr></thead><tbody>${rows.join("")}</tbody></table>`,
  );
  return page(`${head.suite.name} · runs`, parts.join("\n"));
}

function leaderboardSection(run: RunData, lb: LeaderboardData | null): string {
  const g = run.result.grade;
  if (!g) return `<p class="muted">Not graded: no score to place on the leaderboard.</p>`;
  const t = {
    median: num(g.median_threshold),
    bronze: num(g.bronze_threshold),
    silver: num(g.silver_threshold),
    gold: num(g.gold_threshold),
  };
  const mine = g.valid_submission ? num(g.score) : null;
  const table =
    `<table><tr><th>this run</th><th>median</th><th>bronze</th><th>silver</th><th>gold</th><th>percentile</th></tr>` +
    `<tr>${[mine, t.median, t.bronze, t.silver, t.gold].map((v) => `<td class="num">${esc(score(v))}</td>`).join("")}<td class="num">${esc(pct(g.percentile, 1))}</td></tr></table>` +
    `<p class="muted">${g.is_lower_better ? "Lower is better." : "Higher is better."}</p>`;
  if (!lb || !lb.scores.length)
    return `${table}<p class="muted">No leaderboard file for this competition here: thresholds only (${esc(g.thresholds_source ?? "source unknown")}).</p>`;
  const markers: Marker[] = [
    { label: "median", value: t.median ?? NaN, color: "#59636e" },
    { label: "bronze", value: t.bronze ?? NaN, color: "#a0522d" },
    { label: "silver", value: t.silver ?? NaN, color: "#6e7781" },
    { label: "gold", value: t.gold ?? NaN, color: "#bf8700" },
  ];
  if (mine !== null) markers.push({ label: "this run", value: mine, color: "#0969da" });
  return (
    histogramSvg(
      lb.scores,
      markers,
      `Leaderboard: scores of ${lb.scores.length} Kaggle teams (${lb.source})`,
    ) + table
  );
}

function fileView(path: string, run: RunData, budget: PageBudget): string {
  const t = run.texts[path];
  if (!t) return "";
  return preText(t.text, LIMITS.textChars, budget, t.bytes, t.truncated);
}

/** A run's self-reported usage value, labelled as such; an unusable value is said to be ignored. */
function selfReported(r: RunResult, key: "tokens" | "dollars", show: (v: number) => string): string {
  const v = r.usage?.[key];
  if (usableAmount(v)) return `${show(v)} (self-reported)`;
  if (v !== undefined || r.usage?.ignored?.includes(key)) return `ignored: ${IGNORED_REASON}`;
  return "not reported";
}

/** A run's page: outcome and why, score on the leaderboard, metric, cost, trajectory, log, code. */
export function renderRun(site: SiteData, run: RunData): string {
  const r = run.result;
  const budget = new PageBudget(LIMITS.pageBytes);
  const suite = run.side === "base" && site.base ? site.base : site.head;
  const up = "../";
  const parts: string[] = [];
  parts.push(`<h1>${esc(r.competitionId)} · seed ${esc(r.seed)} · ${esc(run.side)}</h1>`);
  parts.push(
    `<p class="muted">agent: ${esc(suite.agent.description)} · run ${esc(r.runId)} · started ${esc(r.startedAt)}</p>`,
  );
  if (run.missingFolder)
    parts.push(
      `<p class="bad">The run folder ${esc(r.runDir)} was not found beside the results file: only the results are shown.</p>`,
    );

  parts.push(
    `<h2>Outcome</h2><p id="outcome"><b>${esc(outcomeText(cellOf(r)))}</b> · ${lineText(outcomeWhy(r, suite.environment.timeLimitSecs), 4000, budget)}</p>`,
  );
  if (r.outcome !== "completed" && run.log?.tail.length)
    parts.push(
      `<p class="muted">Last lines of the log:</p>${preText(run.log.tail.join("\n"), 20_000, budget)}`,
    );

  const gpuSecs = (r.gpus.length * r.durationMs) / 1000;
  const cards: [string, string][] = [
    ["medal", medalText(r)],
    ["score", r.grade?.valid_submission ? score(num(r.grade.score)) : "—"],
    ["percentile", pct(r.grade?.percentile ?? null, 1)],
    ["wall time", duration(r.durationMs)],
    ["GPU-seconds", r.gpus.length ? `${Math.round(gpuSecs)} (GPU ${r.gpus.join(",")})` : "0 (no GPU)"],
    ["tokens", selfReported(r, "tokens", (v) => v.toLocaleString("en-US"))],
    ["dollars", selfReported(r, "dollars", (v) => `$${v.toFixed(2)}`)],
    ["attempts", String(r.attempts)],
  ];
  parts.push(
    `<div class="cards">${cards.map(([k, v]) => `<div class="card"><span class="muted">${esc(k)}</span><b>${esc(v)}</b></div>`).join("")}</div>`,
  );

  parts.push(
    `<h2>Leaderboard</h2><div id="leaderboard">${leaderboardSection(run, site.leaderboards[r.competitionId] ?? null)}</div>`,
  );

  parts.push(`<h2>Validation metric over time</h2>`);
  if (run.metrics && run.metrics.points.length) {
    const names = [...new Set(run.metrics.points.map((p) => p.name))].slice(0, 6);
    const colors = ["#0969da", "#cf222e", "#1a7f37", "#8250df", "#bf8700", "#59636e"];
    const chart = budget.html(
      `<div id="metrics">${lineSvg(
        names.map((n, i) => ({
          label: n,
          color: colors[i],
          points: run.metrics!.points.filter((p) => p.name === n).map((p) => ({ x: p.x, y: p.value })),
        })),
        `logs/metrics.jsonl: ${run.metrics.points.length} points`,
        run.metrics.xLabel,
      )}</div>`,
      `<p class="muted">Chart not shown: ${esc(LIMIT_REACHED)}.</p>`,
    );
    parts.push(
      chart +
        (run.metrics.badLines
          ? `<p class="muted">${run.metrics.badLines} unreadable lines skipped.</p>`
          : ""),
    );
  } else parts.push(`<p class="muted">No logs/metrics.jsonl.</p>`);

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
      `<h2>Event trajectory <span class="muted">(${esc(run.events.file)})</span></h2><table id="events"><tr><th>#</th><th>time</th><th>source</th><th>event</th><th>content</th></tr>${rows.join("")}</table>`,
    );
  }

  parts.push(`<h2>Agent log</h2>`);
  if (run.log && run.logDir) {
    parts.push(
      `<p class="muted">run.log: ${esc(run.log.lines.toLocaleString("en-US"))} lines shown, ${esc(sizeText(run.log.bytes))}${run.log.truncated ? ` (cut: ${esc(run.log.shownBytes ? cutNote(run.log.shownBytes, run.log.bytes) : `only the beginning is shown, at most ${sizeText(LIMITS.logBytes)} of log pages per run; the full file is in the run's artifact`)})` : ""}</p>` +
        `<p><input type="search" id="log-search" placeholder="search the whole log" aria-label="search the log"> <span id="log-status" class="muted"></span></p>` +
        `<ol id="log-results" class="mono"></ol>` +
        `<p><button id="log-prev">◀ previous</button> <span id="log-info"></span> <button id="log-next">next ▶</button></p>` +
        `<div class="log" id="log-view"></div>` +
        `<script type="application/json" id="log-meta">${scriptJson({ dir: up + run.logDir, chunks: run.log.starts.length, starts: run.log.starts })}</script>`,
    );
  } else parts.push(`<p class="muted">No run.log.</p>`);

  const code = run.files.filter((f) => f.kind === "file" && f.path.startsWith("code/"));
  parts.push(`<h2>Final code</h2>`);
  const codeHtml: string[] = [];
  for (const f of code) {
    if (!budget.row()) {
      codeHtml.push(
        `<p class="muted">${code.length - codeHtml.length} more files not shown: ${esc(LIMIT_REACHED)}.</p>`,
      );
      break;
    }
    codeHtml.push(
      `<details><summary class="mono">${lineText(f.path, 300, budget)} <span class="muted">${esc(sizeText(f.bytes))}</span></summary>${fileView(f.path, run, budget) || `<p class="muted">not shown (binary or past the size limit)</p>`}</details>`,
    );
  }
  parts.push(
    code.length ? `<div id="code">${codeHtml.join("")}</div>` : `<p class="muted">No files in code/.</p>`,
  );

  parts.push(`<h2>Submission</h2>`);
  if (run.submission) {
    const p = run.submission.preview;
    parts.push(
      `<p class="muted">submission.csv: ${esc(sizeText(run.submission.bytes))}; first ${p.rows.length} rows${p.more || run.submission.truncated ? " (more not shown)" : ""}</p>` +
        budget.html(
          `<table id="submission"><tr>${p.header.map((h) => `<th>${esc(h)}</th>`).join("")}</tr>${p.rows.map((row) => `<tr>${row.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("")}</table>`,
          `<p class="muted">Preview not shown: ${esc(LIMIT_REACHED)}.</p>`,
        ),
    );
  } else parts.push(`<p class="muted">No submission/submission.csv.</p>`);

  parts.push(`<h2>Files</h2>`);
  const listed = run.files.filter(
    (f) => f.path.startsWith("logs/") || f.path.startsWith("code/") || f.path.startsWith("submission/"),
  );
  let unlisted = 0;
  parts.push(
    `<table id="files"><tr><th>path</th><th>size</th></tr>${listed
      .map((f) => {
        if (!budget.row()) {
          unlisted++;
          return "";
        }
        // Code is shown once, under "Final code".
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
      })
      .join(
        "",
      )}</table>${run.filesMore ? `<p class="muted">More files not listed.</p>` : ""}${unlisted ? `<p class="muted">${unlisted} more files not listed: ${esc(LIMIT_REACHED)}.</p>` : ""}`,
  );
  return page(`${r.competitionId} · seed ${r.seed} · ${run.side}`, parts.join("\n"), {
    home: "../index.html",
    script: LOG_SCRIPT,
  });
}
