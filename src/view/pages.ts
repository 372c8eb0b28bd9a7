import type { RunResult } from "../results/schema.js";
import { cellOf } from "../compare/compare.js";
import { duration, outcomeText, pct, score } from "../report/format.js";
import { IGNORED_REASON, usableAmount } from "../results/usage.js";
import { histogramSvg, type Marker } from "./charts.js";
import { esc } from "./escape.js";
import { lineText, PageBudget, preText } from "./budget.js";
import { LIMITS } from "./read.js";
import { page } from "./layout.js";
import { LOG_SCRIPT } from "./log-script.js";
import type { LeaderboardData, RunData, SiteData } from "./model.js";
import {
  codeSection,
  filesSection,
  logSection,
  metricsSection,
  submissionSection,
  trajectorySections,
} from "./run-sections.js";

/** The viewer's pages as HTML strings: pure functions of the gathered data. */

const num = (v: number | "NaN" | null | undefined): number | null =>
  v === "NaN" ? NaN : v === undefined ? null : v;

export function medalText(r: RunResult): string {
  const g = r.grade;
  if (!g) return "not graded";
  return g.gold_medal ? "gold" : g.silver_medal ? "silver" : g.bronze_medal ? "bronze" : "no medal";
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
      if (r.details.setup === "failed")
        return "Not run: the suite's setup failed before any run started (the cause above). Not the agent's result: this run counts on neither side, and the gate fails.";
      return `Infrastructure error, not the agent's: ${r.error ?? "unknown"}. This run counts on neither side.`;
  }
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

/** The run's headline: how it ended and the cause in the CLI's words, or its medal and score. */
export function causeText(r: RunResult, timeLimitSecs: number): { text: string; bad: boolean } {
  const c = cellOf(r);
  if (r.outcome !== "completed" || r.grade?.grader_error)
    return { text: c.error ? `${outcomeText(c)}: ${c.error}` : outcomeWhy(r, timeLimitSecs), bad: true };
  if (!c.valid) return { text: `${outcomeText(c)}: ${c.error ?? "no reason given"}`, bad: true };
  const m = medalText(r);
  return { text: `${m} · score ${score(c.score)} · percentile ${pct(c.percentile, 1)}`, bad: false };
}

/** Links to the index, the paired run, the code diff and the neighbouring runs. */
function runNavHtml(run: RunData): string {
  const n = run.nav;
  const other = run.side === "base" ? "head" : "base";
  const link = (id: string, href: string | null | undefined, text: string, none: string) =>
    href
      ? `<a id="${id}" href="../${esc(href)}">${text}</a>`
      : `<span id="${id}" class="muted">${none}</span>`;
  return (
    `<nav class="runnav"><a href="../index.html">all runs</a>` +
    link("nav-pair", n?.pair, `${other} run of this seed`, `no ${other} run of this seed`) +
    link("nav-diff", n?.diff, "code diff base → head", "no code diff") +
    link("nav-prev", n?.prev, `◀ previous ${run.side} run`, "first run") +
    link("nav-next", n?.next, `next ${run.side} run ▶`, "last run") +
    `</nav>`
  );
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
    `<div class="tablebox"><table><tr><th>this run</th><th>median</th><th>bronze</th><th>silver</th><th>gold</th><th>percentile</th></tr>` +
    `<tr>${[mine, t.median, t.bronze, t.silver, t.gold].map((v) => `<td class="num">${esc(score(v))}</td>`).join("")}<td class="num">${esc(pct(g.percentile, 1))}</td></tr></table></div>` +
    `<p class="muted">${g.is_lower_better ? "Lower is better." : "Higher is better."}</p>`;
  if (mine === null || Number.isNaN(mine))
    return `${table}<p class="muted">No valid score: nothing to place on the leaderboard, so no chart.</p>`;
  if (!lb || !lb.scores.length)
    return `${table}<p class="muted">No leaderboard file for this competition here: thresholds only (${esc(g.thresholds_source ?? "source unknown")}).</p>`;
  const markers: Marker[] = [
    { label: "median", value: t.median ?? NaN, color: "#59636e" },
    { label: "bronze", value: t.bronze ?? NaN, color: "#a0522d" },
    { label: "silver", value: t.silver ?? NaN, color: "#6e7781" },
    { label: "gold", value: t.gold ?? NaN, color: "#bf8700" },
  ];
  markers.push({ label: "this run", value: mine, color: "#0969da" });
  return (
    histogramSvg(
      lb.scores,
      markers,
      `Leaderboard: scores of ${lb.scores.length} Kaggle teams (${lb.source})`,
    ) + table
  );
}

/** A run's self-reported usage value, labelled as such; an unusable value is said to be ignored. */
function selfReported(r: RunResult, key: "tokens" | "dollars", show: (v: number) => string): string {
  const v = r.usage?.[key];
  if (usableAmount(v)) return `${show(v)} (self-reported)`;
  if (v !== undefined || r.usage?.ignored?.includes(key)) return `ignored: ${IGNORED_REASON}`;
  return "not reported";
}

/** A run's page: the cause first, its neighbours, the leaderboard, the code, then the details. */
export function renderRun(site: SiteData, run: RunData): string {
  const r = run.result;
  const budget = new PageBudget(LIMITS.pageBytes);
  const suite = run.side === "base" && site.base ? site.base : site.head;
  const parts: string[] = [];
  parts.push(runNavHtml(run));
  parts.push(`<h1>${esc(r.competitionId)} · seed ${esc(r.seed)} · ${esc(run.side)}</h1>`);
  const cause = causeText(r, suite.environment.timeLimitSecs);
  parts.push(
    `<p id="cause" class="cause ${cause.bad ? "bad" : "good"}">${lineText(cause.text, 4000, budget)}</p>` +
      `<p id="outcome" class="muted"><b>${esc(outcomeText(cellOf(r)))}</b> · ${lineText(outcomeWhy(r, suite.environment.timeLimitSecs), 4000, budget)}</p>`,
  );
  if (run.buildLog)
    parts.push(
      `<p id="build-log">The image's build output: <a href="../${esc(run.buildLog.page)}">${esc(run.buildLog.name)}</a></p>`,
    );
  // The agent's last stderr lines, as recorded with the cause (else the log's last error lines).
  const tail = r.failure?.stderrTail.length
    ? r.failure.stderrTail
    : r.outcome !== "completed"
      ? run.log?.tail
      : [];
  if (tail?.length)
    parts.push(
      `<p class="muted">Last lines the agent wrote to stderr:</p>${preText(tail.join("\n"), 20_000, budget)}`,
    );
  parts.push(
    `<p class="muted">agent: ${esc(suite.agent.description)} · run ${esc(r.runId)} · started ${esc(r.startedAt)}</p>`,
  );
  // A run the setup kept from starting has no folder to find.
  if (run.missingFolder && r.details.setup !== "failed")
    parts.push(
      `<p class="bad">The run folder ${esc(r.runDir)} was not found beside the results file: only the results are shown.</p>`,
    );
  parts.push(runCards(r));
  parts.push(
    `<h2>Leaderboard</h2><div id="leaderboard">${leaderboardSection(run, site.leaderboards[r.competitionId] ?? null)}</div>`,
  );
  parts.push(codeSection(run, budget));
  parts.push(submissionSection(run, budget));
  parts.push(metricsSection(run, budget));
  parts.push(trajectorySections(run, budget));
  parts.push(logSection(run));
  parts.push(filesSection(run, budget));
  return page(`${r.competitionId} · seed ${r.seed} · ${run.side}`, parts.join("\n"), {
    home: "../index.html",
    script: LOG_SCRIPT,
  });
}

function runCards(r: RunResult): string {
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
  return `<div class="cards">${cards.map(([k, v]) => `<div class="card"><span class="muted">${esc(k)}</span><b>${esc(v)}</b></div>`).join("")}</div>`;
}
