import { countOf } from "../util/count.js";
import type { Comparison, CompetitionRow, RunCell } from "../compare/compare.js";
import { cellOf, summarize } from "../compare/compare.js";
import type { RunResult, SuiteResults } from "../results/schema.js";
import { costText, duration, outcomeText, pct, points } from "../report/format.js";
import {
  comparedTimes,
  unknownTimes,
  medalChange,
  onPaired,
  runsNote,
  significanceMark,
  verdictSection,
} from "../report/markdown.js";
import { VERDICT_TITLE, intervalText } from "../report/verdict.js";
import { usableAmount } from "../results/usage.js";
import { lineSvg } from "./charts.js";
import { esc } from "./escape.js";
import { INDEX_SCRIPT } from "./index-script.js";
import { page } from "./layout.js";
import { runPage } from "./load.js";
import { mdInline } from "./md-inline.js";
import { runKey, type SiteData } from "./model.js";
import { byCompetitionAndSeed, diffPageName } from "./nav.js";

/** The suite page: the verdict and what changed, competition by competition. */

export type Group = "lost" | "gained" | "unchanged" | "not-comparable" | "covered";

/** The index's groups, in the order they are shown, with their headings. */
export const GROUPS: [Group, string][] = [
  ["lost", "Medals lost"],
  ["gained", "Medals gained"],
  ["unchanged", "Medals unchanged"],
  ["not-comparable", "Not comparable"],
  ["covered", "Covered by a history bound (not run)"],
];

/** The groups shown: "covered" only when the history-informed plan covered some. */
const shownGroups = (counts: Map<Group, number>) =>
  GROUPS.filter(([g]) => g !== "covered" || counts.has("covered"));

/** How many competitions each group holds (groups with none are absent). */
function groupCounts(cmp: Comparison | null): Map<Group, number> {
  const counts = new Map<Group, number>();
  for (const row of cmp?.competitions ?? []) counts.set(groupOf(row), (counts.get(groupOf(row)) ?? 0) + 1);
  return counts;
}

/** A competition's group: by how its medals moved (the comment's rule, report/markdown.ts). */
export function groupOf(row: CompetitionRow): Group {
  if (row.covered) return "covered";
  if (!row.comparable) return "not-comparable";
  const m = medalChange(row);
  return m < 0 ? "lost" : m > 0 ? "gained" : "unchanged";
}

/** The verdict's words without its glyph (the page must not depend on an emoji font). */
export const verdictWords = (v: Comparison["verdict"]) => VERDICT_TITLE[v].replace(/^[^\p{L}]+/u, "");

const changeMark = (d: number | null, higherIsBetter = true) =>
  d === null || Number.isNaN(d)
    ? ""
    : Math.abs(d) < 1e-9
      ? ` <span class="muted">same</span>`
      : d > 0 === higherIsBetter
        ? ` <span class="good">better</span>`
        : ` <span class="bad">worse</span>`;

/** The change between two shown durations, from the values as shown (the comment's rule). */
function timeChange(fromMs: number, toMs: number): string {
  const ms = Math.round(toMs / 1000) * 1000 - Math.round(fromMs / 1000) * 1000;
  return `${ms > 0 ? "+" : ms < 0 ? "−" : "±"}${esc(duration(Math.abs(ms)))}${changeMark(ms, false)}`;
}

/** The comment's interval-based mark of an analysed change (significanceMark), in words. */
const SIGNIFICANCE: Record<string, string> = {
  "🟢 better": ` <span class="good">better</span>`,
  "🔴 worse": ` <span class="bad">worse</span>`,
  "⚪ same": ` <span class="muted">same</span>`,
  "not significant": ` <span class="muted">not significant</span>`,
  "": "",
};

/** The headline numbers, base → head: the ones the comment's headline shows. */
function headlineTable(cmp: Comparison): string {
  const a = cmp.analysis;
  const b = cmp.base;
  const h = cmp.head;
  const diff = (x: number | null, y: number | null) => (x !== null && y !== null ? y - x : null);
  const rate = a
    ? [a.medal.base, a.medal.head, a.medal.delta]
    : [b.medalRate, h.medalRate, diff(b.medalRate, h.medalRate)];
  const pctl = a?.percentile
    ? [a.percentile.base, a.percentile.head, a.percentile.delta]
    : [b.meanPercentile, h.meanPercentile, diff(b.meanPercentile, h.meanPercentile)];
  // As in the comment: a rate is marked by its interval, and not at all without an analysis.
  const rateMark = a ? SIGNIFICANCE[significanceMark(a.medal)] : "";
  const pctlMark = a?.percentile ? SIGNIFICANCE[significanceMark(a.percentile)] : "";
  // Agent time over the runs both sides ran when they ran different runs (an early stop).
  const t = comparedTimes(cmp);
  const unknown = b.untimed || h.untimed ? unknownTimes(cmp) : null;
  const time = unknown
    ? esc(unknown.change)
    : t.all
      ? timeChange(t.baseMs, t.headMs)
      : t.runs
        ? `${timeChange(t.baseMs, t.headMs)}${esc(onPaired(t.runs))}`
        : "not compared (no run on both sides)";
  const rows: [string, string, string, string][] = [
    ["Medal rate", pct(rate[0]), pct(rate[1]), `<b>${esc(points(rate[2]))}</b>${rateMark}`],
    ["Mean percentile", pct(pctl[0]), pct(pctl[1]), `${esc(points(pctl[2]))}${pctlMark}`],
    [
      "Agent time",
      unknown ? unknown.base : `${duration(b.durationMs)}${runsNote(t.all, b.runs)}`,
      unknown ? unknown.head : `${duration(h.durationMs)}${runsNote(t.all, h.runs)}`,
      time,
    ],
    ["Cost (self-reported)", costText(b), costText(h), "never marked better or worse"],
  ];
  return (
    `<table id="headline"><thead><tr><th></th><th>Base</th><th>Head</th><th>Change</th></tr></thead><tbody>` +
    rows
      .map(
        ([k, x, y, c]) =>
          `<tr><th>${esc(k)}</th><td class="num">${esc(x)}</td><td class="num">${esc(y)}</td><td>${c}</td></tr>`,
      )
      .join("") +
    `</tbody></table>`
  );
}

/** The verdict, its meaning, the headline numbers and the sentences behind the verdict. */
function verdictHtml(cmp: Comparison, note: string | null): string {
  const [meaning, ...rest] = verdictSection(cmp).filter((l) => l.trim() !== "");
  const interval = cmp.analysis?.medal.interval
    ? `<p class="muted">Medal rate: ${esc(intervalText(cmp.analysis.medal))}.</p>`
    : "";
  return (
    `<section id="verdict" class="verdict v-${esc(cmp.verdict)}">` +
    `<p class="verdict-line">Verdict: <b id="verdict-word">${esc(verdictWords(cmp.verdict))}</b> <span class="muted">· baseline: ${esc(cmp.baselineSource)}</span></p>` +
    `<p>${mdInline(meaning)}</p>` +
    headlineTable(cmp) +
    `<div id="why">${rest.map((l) => `<p>${mdInline(l)}</p>`).join("")}${interval}</div>` +
    (note ? `<p class="muted">${esc(note)}</p>` : "") +
    `</section>`
  );
}

/** A medal or, for a run that failed or whose submission is invalid, its outcome: the words of the CLI and the comment. */
function runWord(c: RunCell): string {
  if (c.outcome !== "completed" || !c.valid) return outcomeText(c);
  return c.medal === "none" ? "no medal" : c.medal;
}

/** One chip per seed, each a link to its run page. */
function chips(side: "base" | "head", cells: RunCell[], runs: Map<string, RunResult>, id: string): string {
  if (!cells.length) return `<span class="muted">no run</span>`;
  return cells
    .map((c) => {
      const r = runs.get(runKey({ competitionId: id, seed: c.seed }));
      const word = runWord(c);
      const cls = c.outcome !== "completed" || !c.valid ? "failed" : c.medal;
      const label = `${c.seed}: ${word}`;
      const title = `${side} seed ${c.seed}: ${word}`;
      return r
        ? `<a class="chip ${cls}" href="${esc(runPage(side, r.runId))}" title="${esc(title)}">${esc(label)}</a>`
        : `<span class="chip ${cls}">${esc(label)}</span>`;
    })
    .join(" ");
}

/** Why runs failed or were invalid: "head seed 1 timed out: time limit 3600s reached" (the CLI's cause). */
function causes(row: CompetitionRow): string {
  const lines: string[] = [];
  for (const [side, cells] of [
    ["base", row.base],
    ["head", row.head],
  ] as const)
    for (const c of cells)
      if (c.outcome !== "completed" || !c.valid)
        lines.push(
          `<li><span class="muted">${side} seed ${c.seed}</span> ${esc(outcomeText(c))}${c.error ? `: ${esc(c.error.length > 300 ? `${c.error.slice(0, 299)}…` : c.error)}` : ""}</li>`,
        );
  return lines.length ? `<ul class="causes">${lines.join("")}</ul>` : "";
}

const pctNum = (x: number | null) => (x === null ? "—" : (x * 100).toFixed(0));

function competitionRow(
  row: CompetitionRow,
  group: Group,
  base: Map<string, RunResult>,
  head: Map<string, RunResult>,
): string {
  const change =
    row.basePercentile !== null && row.headMeanPercentile !== null
      ? row.headMeanPercentile - row.basePercentile
      : null;
  const failed = [...row.base, ...row.head].some((c) => c.outcome !== "completed" || !c.valid);
  const seeds = [...new Set([...row.base, ...row.head].map((c) => c.seed))].sort((x, y) => x - y);
  const diffs = seeds
    .filter(
      (s) =>
        base.has(runKey({ competitionId: row.competitionId, seed: s })) &&
        head.has(runKey({ competitionId: row.competitionId, seed: s })),
    )
    .map(
      (s) =>
        `<a href="${esc(diffPageName(row.competitionId, s))}" title="code diff, seed ${s}">seed ${s}</a>`,
    );
  return (
    `<tr data-competition="${esc(row.competitionId)}" data-group="${group}" data-change="${change === null ? "" : change.toFixed(6)}" data-failed="${failed ? 1 : 0}">` +
    `<td class="name">${esc(row.competitionId)}</td>` +
    `<td>${chips("base", row.base, base, row.competitionId)}</td>` +
    `<td>${chips("head", row.head, head, row.competitionId)}</td>` +
    `<td class="num">${esc(pctNum(row.basePercentile))} → ${esc(pctNum(row.headMeanPercentile))}<br><span class="${change === null ? "muted" : change > 0 ? "good" : change < 0 ? "bad" : "muted"}">${esc(points(change))}</span></td>` +
    `<td>${causes(row)}</td>` +
    `<td>${diffs.join(" ") || `<span class="muted">—</span>`}</td></tr>`
  );
}

const byKey = (s: SuiteResults | null | undefined) => new Map((s?.runs ?? []).map((r) => [runKey(r), r]));

/** The competitions of a comparison, grouped lost, gained, unchanged, not comparable. */
function groupedTables(site: SiteData, cmp: Comparison): string {
  const base = byKey(site.base);
  const head = byKey(site.head);
  const grouped = new Map<Group, CompetitionRow[]>(GROUPS.map(([g]) => [g, []]));
  for (const row of cmp.competitions) grouped.get(groupOf(row))!.push(row);
  const head6 =
    `<thead><tr><th class="c-name">Competition</th><th class="c-side">Base, per seed</th><th class="c-side">Head, per seed</th>` +
    `<th class="c-pct" title="mean leaderboard percentile, base → head, and its change">Percentile</th><th class="c-why">Failed or invalid runs: why</th><th class="c-diff">Code diff</th></tr></thead>`;
  return shownGroups(groupCounts(cmp))
    .map(([g, title]) => {
      const rows = grouped.get(g)!;
      const n = rows.length;
      return (
        `<section class="group" data-group="${g}"><h3>${esc(title)} <span class="muted">(${n} competition${n === 1 ? "" : "s"})</span></h3>` +
        (n
          ? `<div class="tablebox"><table class="competitions">${head6}<tbody>${rows.map((r) => competitionRow(r, g, base, head)).join("")}</tbody></table></div><p class="none muted" hidden>No competition here matches the filters.</p>`
          : `<p class="muted">None.</p>`) +
        `</section>`
      );
    })
    .join("");
}

/** Head runs only (no baseline): one table, competitions A→Z. */
function headOnlyTable(site: SiteData): string {
  const ids = [...new Set(site.head.runs.map((r) => r.competitionId))].sort();
  const head = byKey(site.head);
  const rows = ids.map((id) => {
    const runs = site.head.runs.filter((r) => r.competitionId === id).sort(byCompetitionAndSeed);
    const cells = runs.map(cellOf);
    const ps = cells.map((c) => c.percentile).filter((p): p is number => p !== null);
    const mean = ps.length ? ps.reduce((a, b) => a + b, 0) / ps.length : null;
    const failed = cells.some((c) => c.outcome !== "completed" || !c.valid);
    const row: CompetitionRow = {
      competitionId: id,
      isLowerBetter: null,
      base: [],
      head: cells,
      baseMedalRate: null,
      headMedalRate: null,
      baseMeanScore: null,
      headMeanScore: null,
      deltaScore: null,
      headMeanPercentile: mean,
      basePercentile: null,
      comparable: false,
    };
    return (
      `<tr data-competition="${esc(id)}" data-group="runs" data-change="${mean === null ? "" : mean.toFixed(6)}" data-failed="${failed ? 1 : 0}">` +
      `<td class="name">${esc(id)}</td><td>${chips("head", cells, head, id)}</td><td class="num">${esc(pctNum(mean))}</td><td>${causes(row)}</td></tr>`
    );
  });
  return (
    `<section class="group" data-group="runs"><div class="tablebox"><table class="competitions single"><thead><tr><th class="c-name">Competition</th><th class="c-side">Runs, per seed</th><th class="c-pct">Mean percentile</th><th class="c-why">Failed or invalid runs: why</th></tr></thead>` +
    `<tbody>${rows.join("")}</tbody></table></div><p class="none muted" hidden>No competition matches the filters.</p></section>`
  );
}

/** Filters and sorting (shown only when the script runs; without it the grouped tables stand). */
function controls(comparing: boolean, counts: Map<Group, number>): string {
  const groups = comparing
    ? `<fieldset><legend>Show</legend>${shownGroups(counts)
        .map(
          ([g, t]) =>
            `<label><input type="checkbox" name="group" value="${g}" checked> ${esc(t.toLowerCase())} (${counts.get(g) ?? 0})</label>`,
        )
        .join(" ")}</fieldset>`
    : "";
  return (
    `<form id="controls" hidden onsubmit="return false">${groups}` +
    `<label>Runs <select id="filter-runs"><option value="all">all</option><option value="failed">with a failed or invalid run</option><option value="ok">every run valid</option></select></label> ` +
    `<label>${comparing ? "Percentile change" : "Percentile"} <select id="filter-change"><option value="all">any</option>` +
    (comparing
      ? `<option value="down">down</option><option value="up">up</option><option value="same">no change</option>`
      : `<option value="some">known</option>`) +
    `</select></label> ` +
    `<label>Competition <input type="search" id="filter-name" placeholder="part of the name"></label> ` +
    `<label>Sort <select id="sort"><option value="name">competition A→Z</option><option value="change-asc">${comparing ? "largest percentile drop first" : "lowest percentile first"}</option><option value="change-desc">${comparing ? "largest percentile gain first" : "highest percentile first"}</option></select></label> ` +
    `<span id="shown" class="muted"></span></form>`
  );
}

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

function historyChart(site: SiteData): string {
  const pts = site.history;
  if (pts.length < 2) return "";
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
  return `<h2>History</h2>${chart}`;
}

/** The suite page: verdict and headline first, then the competitions grouped by what changed. */
export function renderIndex(site: SiteData): string {
  const { head, base } = site;
  const cmp = base ? (site.comparison ?? null) : null;
  const parts: string[] = [];
  parts.push(`<h1>${esc(head.suite.name)}</h1>`);
  parts.push(
    `<p class="muted">${esc(countOf(head.suite.competitions.length, "competition"))} × ${esc(countOf(head.suite.seeds, "seed"))} · time limit ${esc(head.environment.timeLimitSecs)}s · executor ${esc(head.environment.executor)}${head.git.sha ? ` · head ${esc(head.git.sha.slice(0, 12))}` : ""}</p>`,
  );
  if (cmp) parts.push(verdictHtml(cmp, site.comparisonNote ?? null));
  else
    parts.push(
      `<section id="verdict" class="verdict v-none"><p class="verdict-line"><b id="verdict-word">No comparison</b></p><p>${esc(
        base
          ? (site.comparisonNote ?? "Base and head could not be compared.")
          : "No baseline: this page shows the head's runs only, so there is no verdict and nothing is marked better or worse.",
      )}</p></section>`,
    );
  parts.push(`<h2>Competitions</h2>`, controls(cmp !== null, groupCounts(cmp)));
  parts.push(cmp ? groupedTables(site, cmp) : headOnlyTable(site));
  if (base)
    parts.push(
      `<h2>Both sides in numbers</h2><h3>Base · ${esc(base.agent.description)}</h3>${summaryCards(base)}<h3>Head · ${esc(head.agent.description)}</h3>${summaryCards(head)}`,
    );
  else parts.push(`<h2>${esc(head.label)} · ${esc(head.agent.description)}</h2>${summaryCards(head)}`);
  parts.push(historyChart(site));
  return page(`${head.suite.name} · runs`, parts.join("\n"), { script: INDEX_SCRIPT });
}
