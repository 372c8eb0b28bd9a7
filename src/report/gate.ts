// The gate: whether an evaluation fails the check, and the one sentence that says so. Both doors
// (the CLI's exit code, the action's failed step and summary) use this decision as it is.
import { gateFails, type Comparison } from "../compare/compare.js";
import type { Config } from "../config/schema.js";
import { gateSentence } from "./verdict.js";
import type { SuiteResults } from "../results/schema.js";
import { notRun } from "../results/not-run.js";
import { inert } from "./inert.js";

type GateConfig = Pick<Config["gate"], "failOn" | "missingBaseline">;

export interface GateDecision {
  fails: boolean;
  /** Why: the gate is off, runs are missing, the verdict, no baseline, or it passed. */
  reason: "off" | "incomplete" | "regressed" | "error" | "no-baseline" | "passed";
  /** One Markdown sentence ("**Gate: failed** — …") for the summary, the logs and the exit line. */
  sentence: string;
  /** The sentence as plain text, when it holds text the agent controls (made inert in `sentence`). */
  text?: string;
}

/** Why the evaluation is incomplete (runs of lost shards, or cancelled), or null. */
export function incompleteNote(head: SuiteResults, base: SuiteResults | null): string | null {
  const parts: string[] = [];
  const runs = (n: number, label: string) => `${n} ${label} run${n > 1 ? "s" : ""}`;
  for (const side of [base, head]) {
    if (!side) continue;
    const lost = notRun(side);
    // A cancellation stops started runs too: those did run, but not to the end.
    const stopped = lost.filter((r) => r.details.cancelled === "started");
    const never = lost.filter((r) => r.details.cancelled !== "started");
    if (stopped.length) parts.push(`${runs(stopped.length, side.label)} cancelled before the end`);
    const setup = never.filter((r) => r.details.setup === "failed");
    if (setup.length === never.length && never.length > 0)
      parts.push(
        `${runs(never.length, side.label)} never ran because the suite's ${never[0].error?.replace(/^not run: /, "")}`,
      );
    else if (never.length)
      parts.push(
        `${runs(never.length, side.label)} never ran (${never[0].error?.replace(/^not run: /, "")})`,
      );
  }
  return parts.length
    ? `Incomplete: ${parts.join("; ")}. They count as not comparable and the gate does not pass.`
    : null;
}

/**
 * The gate's decision. Off with fail-on: never; else it fails closed on runs of lost shards on
 * either side whatever the verdict of the rest, then on `regressed` or `error`; without a
 * baseline nothing was compared and gate.missingBaseline decides (default pass).
 */
export function decideGate(
  comparison: Comparison | null,
  gate: GateConfig,
  sides: { head: SuiteResults; base: SuiteResults | null },
): GateDecision {
  const incomplete = incompleteNote(sides.head, sides.base);
  if (incomplete && gate.failOn !== "never")
    return {
      fails: true,
      reason: "incomplete",
      // A setup failure's cause quotes the agent's build output: inert in Markdown, as it is in plain text.
      sentence: `**Gate: failed** — ${inert(incomplete, 4000)}`,
      text: `Gate: failed — ${incomplete}`,
    };
  if (!comparison) {
    const nothing = nothingWorked(sides.head);
    if (nothing && gate.failOn !== "never")
      return { fails: true, reason: "error", sentence: `**Gate: failed** — ${nothing}` };
    if (gate.failOn === "never")
      return {
        fails: false,
        reason: "off",
        sentence: "**Gate: off** (fail-on: never); no baseline to compare with.",
      };
    return gate.missingBaseline === "fail"
      ? {
          fails: true,
          reason: "no-baseline",
          sentence: "**Gate: failed** — no baseline to compare with, and gate.missingBaseline is fail.",
        }
      : {
          fails: false,
          reason: "passed",
          sentence: "**Gate: passed** — no baseline to compare with (gate.missingBaseline: pass).",
        };
  }
  const cmp = { ...comparison, gate: { ...comparison.gate, failOn: gate.failOn } };
  const fails = gateFails(cmp);
  const reason = gate.failOn === "never" ? "off" : fails ? (cmp.verdict as "regressed" | "error") : "passed";
  return { fails, reason, sentence: gateSentence(cmp) };
}

/** The gate's sentence as plain text (logs, annotations, stderr). */
export const plainSentence = (d: GateDecision) => d.text ?? d.sentence.replace(/\*\*/g, "");

/**
 * Why nothing of the head worked (every one of its runs ended without completing), or null: with
 * no baseline to compare with, such a suite fails the gate instead of passing.
 */
export function nothingWorked(head: SuiteResults): string | null {
  const runs = head.runs;
  if (runs.length === 0 || runs.some((r) => r.outcome === "completed")) return null;
  const outcomes = [...new Set(runs.map((r) => r.outcome.replace(/_/g, " ")))].join(", ");
  return runs.length === 1
    ? `the head's only run did not complete (${outcomes}): nothing worked.`
    : `none of the head's ${runs.length} runs completed (${outcomes}): nothing worked.`;
}

/** What the gate does without a baseline, for the first line of such a report. */
export function noBaselineRule(gate: GateConfig, incomplete = false, head?: SuiteResults): string {
  const nothing = head ? nothingWorked(head) : null;
  if (gate.failOn === "never") return "The gate is off (fail-on: never).";
  if (incomplete) return "The gate fails: runs are missing (below).";
  if (nothing) return `The gate fails: ${nothing}`;
  return gate.missingBaseline === "fail"
    ? "The gate fails (gate.missingBaseline: fail)."
    : "Nothing was compared, so the gate passes (gate.missingBaseline: pass).";
}
