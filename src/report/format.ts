import type { Medal } from "../grade/types.js";
import type { RunCell, SideSummary } from "../compare/compare.js";
import { IGNORED_REASON } from "../results/usage.js";
import { inert } from "./inert.js";
import { OUTCOME_WORDS } from "../results/outcome-words.js";

/** One mark per run; "➖" (no medal) is never used as a separator, "·" is only ever one. */
export const MEDAL_ICON: Record<Medal, string> = { gold: "🥇", silver: "🥈", bronze: "🥉", none: "➖" };
/** A run that is not comparable (infrastructure or grader error): no medal either way. */
export const NOT_COMPARABLE_ICON = "⚠";

/** Zero-width space and joiners, and the text-presentation selector: no column of their own. */
const ZERO_WIDTH = new Set(["\u200b", "\u200c", "\u200d", "\ufe0e"]);

/**
 * How many terminal columns a table cell takes (markdown-table pads raw rows by it): emoji shown
 * as pictures (🥇 ➖ 🟢) take two, as does a text glyph made a picture by U+FE0F (⚠️); joiners
 * take none; anything else one.
 */
export function cellWidth(text: string): number {
  let n = 0;
  for (const ch of text) n += /\p{Emoji_Presentation}/u.test(ch) ? 2 : ZERO_WIDTH.has(ch) ? 0 : 1;
  return n;
}

/** The longest competition name the comment's tables and chart show (MLE-bench ids reach 49). */
export const NAME_MAX = 32;

/**
 * The one rule for cutting a competition id, shared by the comment's tables and chart: at most
 * `max` characters, the middle replaced by "…" so that both the start and the distinguishing end
 * (…-2019, …-fgvc8) stay. The viewer and the links carry the full id.
 */
export function shortName(id: string, max = NAME_MAX): string {
  const chars = Array.from(id);
  if (chars.length <= max) return id;
  const tail = Math.floor((max - 1) / 3);
  return `${chars.slice(0, max - 1 - tail).join("")}…${chars.slice(chars.length - tail).join("")}`;
}

export function pct(x: number | null, digits = 1): string {
  return x === null || Number.isNaN(x) ? "—" : `${(x * 100).toFixed(digits)}%`;
}

/** Signed difference in percentage points. */
export function points(x: number | null, digits = 1): string {
  if (x === null || Number.isNaN(x)) return "—";
  const v = x * 100;
  return `${v > 0 ? "+" : v < 0 ? "−" : "±"}${Math.abs(v).toFixed(digits)} pts`;
}

export function score(x: number | null): string {
  if (x === null) return "—";
  if (Number.isNaN(x)) return "NaN";
  return Number(x.toPrecision(6)).toString();
}

export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m ${s % 60}s` : `${Math.floor(m / 60)}h ${m % 60}m`;
}

/** The progress lines' words, with "ok" for a completed run in the report's short cells. */
const OUTCOME: Record<RunCell["outcome"], string> = { ...OUTCOME_WORDS, completed: "ok" };

/** One word for how a run went, counting an invalid or missing submission as the agent's outcome. */
export function outcomeText(c: RunCell): string {
  if (c.outcome === "completed" && !c.valid) return "invalid submission";
  return OUTCOME[c.outcome];
}

/** Medal icons for a competition's runs, e.g. "🥉➖" for two seeds. */
export function medals(cells: RunCell[]): string {
  return cells.length
    ? cells
        .map((c) =>
          c.outcome === "infra_error" || c.comparable === false ? NOT_COMPARABLE_ICON : MEDAL_ICON[c.medal],
        )
        .join("")
    : "—";
}

/** Text for a table cell or a line of the comment: made inert (src/report/inert.ts). */
export function cell(text: string): string {
  return inert(text);
}

/**
 * A side's cost as the agent reported it: "$1.20 self-reported by 1 of 3 runs", with the runs whose
 * value was ignored (NaN, infinite, negative, absurd), or "not reported".
 */
export function costText(
  side: Pick<SideSummary, "dollars" | "dollarsRuns" | "dollarsIgnored" | "runs">,
): string {
  const shown =
    side.dollars === null
      ? "not reported"
      : `$${side.dollars.toFixed(2)} self-reported by ${side.dollarsRuns} of ${side.runs} run${side.runs === 1 ? "" : "s"}`;
  const ignored = side.dollarsIgnored
    ? `; ${side.dollarsIgnored} run${side.dollarsIgnored === 1 ? "'s value" : "s' values"} ignored: ${IGNORED_REASON}`
    : "";
  return shown + ignored;
}
