// The sentences that state a verdict and the statistics behind it. Each one must be literally
// true at the stated level; docs/statistics.md explains the rules they describe.
import type { Comparison, Dropped, ErrorCause } from "../compare/compare.js";
import type { MonitorRecord } from "../compare/compare.js";
import type { MetricAnalysis, Verdict } from "../stats/stats.js";
import { duration, points } from "./format.js";
import { inert } from "./inert.js";

export const VERDICT_TITLE: Record<Verdict, string> = {
  regressed: "❌ regressed",
  "no-regression": "✅ no regression",
  inconclusive: "🟡 inconclusive",
  error: "⛔ error",
};

/** What each verdict means, one plain sentence each (also in docs/statistics.md). */
export const VERDICT_MEANING: Record<Verdict, string> = {
  regressed:
    "regressed: the head's medal rate is lower than the base's by more than the tolerance, at the stated significance level.",
  "no-regression":
    "no regression: a drop larger than the tolerance is ruled out at the stated significance level.",
  inconclusive: "inconclusive: the runs neither show nor rule out a drop larger than the tolerance.",
  error:
    "error: the head could not be evaluated (or base and head are not comparable), so no verdict is given.",
};

const pts = (x: number) => `${(Math.abs(x) * 100).toFixed(1)} points`;
const signedPts = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x * 100).toFixed(1)} pts`;
/** A share with the digits it needs: 5%, 4.95%, 0.025%, 90%, 99.95% (never "100%" for 99.95%). */
export function levelText(x: number): string {
  const v = x * 100;
  return v > 50 ? `${+(100 - +(100 - v).toPrecision(3)).toFixed(4)}%` : `${+v.toPrecision(3)}%`;
}

/** "p = 0.012" or "p < 0.001". */
const pText = (p: number) => (p < 0.001 ? "p < 0.001" : `p = ${p.toFixed(3)}`);

const SUPERSCRIPT = "⁰¹²³⁴⁵⁶⁷⁸⁹";
/**
 * A probability with three significant digits, below 10⁻⁴ in powers of ten: 0.05, 0.0156,
 * 1.99 × 10⁻⁵. Rounding to significant digits keeps order, so x ≤ y still reads so.
 */
export function probabilityText(x: number): string {
  if (x >= 1e-4 || x === 0) return String(+x.toPrecision(3));
  const [mantissa, exponent] = x.toExponential(2).split("e");
  const power = [...String(-Number(exponent))].map((d) => SUPERSCRIPT[Number(d)]).join("");
  return `${+mantissa} × 10⁻${power}`;
}

/** "p = 1.2 × 10⁻⁹ ≤ 1.99 × 10⁻⁵": the p-value and the level it is at most, in the same units. */
function pAtMost(p: number, level: number): string {
  return `${p < 1e-300 ? "p < 10⁻³⁰⁰" : `p = ${probabilityText(p)}`} ≤ ${probabilityText(level)}`;
}

/** "90% interval −12.0 to +3.0 pts (each bound one-sided at 5%)". */
export function intervalText(m: MetricAnalysis): string {
  const b = m.interval;
  if (!b) return "";
  const each =
    b.lowerAlpha === b.upperAlpha
      ? `each bound one-sided at ${levelText(b.lowerAlpha)}`
      : `lower bound at ${levelText(b.lowerAlpha)}, upper at ${levelText(b.upperAlpha)}, one-sided`;
  return `${levelText(b.level)} interval ${signedPts(b.lower)} to ${signedPts(b.upper)} (${each})`;
}

/**
 * "The medal rate is 2.0 points higher, but the" / "… is the same on both sides, but the" / "… lower;
 * the": what the runs measured, not "better", which the open verdict does not show.
 */
function openStart(m: MetricAnalysis, unit: string): string {
  if (Math.abs(m.delta) < 1e-12) return `${unit} is the same on both sides, but the`;
  if (Math.abs(m.delta) < 5e-4) return `${unit} differs by less than 0.1 points, but the`;
  return m.delta > 0 ? `${unit} is ${pts(m.delta)} higher, but the` : `${unit} is ${pts(m.delta)} lower; the`;
}

/**
 * The drop each claim is judged against: the tolerance, or with covered competitions the drop the
 * run competitions must show (`regressed`) or rule out (`no-regression`) for the claim to hold for
 * the whole suite. Null: `no-regression` cannot be reached.
 */
function claimDrop(m: MetricAnalysis, claim: "regressed" | "noRegression"): string | null {
  const tol = `the ${pts(m.tolerance)} tolerance`;
  const c = m.claimTolerances;
  if (!c) return tol;
  const t = c[claim];
  if (t === null) return null;
  return claim === "regressed"
    ? `${pts(t)}, what the competitions the head ran must show for a suite drop beyond ${tol} with the covered ones counted as possible gains for the head`
    : `${pts(t)}, what the competitions the head ran must rule out for ${tol} with the covered ones counted against the head`;
}

/** Why a metric got its verdict, one sentence. */
export function metricReason(m: MetricAnalysis): string {
  const unit = m.metric === "medal" ? "The medal rate" : "The mean percentile";
  const tolR = claimDrop(m, "regressed");
  const tolN = claimDrop(m, "noRegression");
  const b = m.interval;
  switch (m.why) {
    case "drop-beyond-tolerance":
      return `${unit} dropped by ${pts(m.delta)}; the upper bound (${signedPts(b!.upper)}) shows a drop larger than ${tolR}, and the permutation test agrees (${pAtMost(m.pValue, m.levels.regressed)}, the one-sided level).`;
    case "drop-ruled-out":
      return `The lower bound (${signedPts(b!.lower)}) rules out a drop larger than ${tolN}.`;
    case "drop-within-tolerance":
      return `${unit} dropped significantly (${pText(m.pValue)}) by ${pts(m.delta)}, but the upper bound (${signedPts(b!.upper)}) does not show a drop larger than ${tolR}.`;
    case "open":
      return tolN === null
        ? `${openStart(m, unit)} covered competitions' bounds use the whole ${pts(m.tolerance)} tolerance, so no drop can be ruled out.`
        : `${openStart(m, unit)} lower bound (${signedPts(b!.lower)}) still allows a drop larger than ${tolN}: more seeds or competitions would settle it.`;
    case "too-few":
      return `One competition cannot bound the difference (${pText(m.pValue)}).`;
    case "no-data":
      return "No competition has comparable runs on both sides.";
  }
}

/**
 * What the design could detect: the MDE sentence, honest about drops that cannot happen. Empty
 * after `regressed`: those runs did flag the drop, and a chance of flagging one (computed at the
 * level the verdict used, which after an early stop is tiny) would only seem to contradict it.
 * `simulated`: false when the medal power was skipped (simulations: 0).
 */
export function powerSentence(m: MetricAnalysis, targetPower: number, simulated = true): string {
  if (m.verdict === "regressed") return "";
  if (!(m.maxDrop > 0))
    return m.metric === "medal"
      ? "The base won no medal in these runs, so no power or smallest detectable drop is claimed."
      : "The base's percentiles are all 0 in these runs, so no power or smallest detectable drop is claimed.";
  const target = Math.round(targetPower * 100);
  if (m.mde === null) {
    const computed = m.metric === "percentile" || simulated;
    if (!computed) return "Power was not computed.";
    const even = `even losing every medal (${pts(m.maxDrop)}) would be flagged \`regressed\` less than ${target}% of the time with these runs.`;
    // Every drop of the table larger than the base's own rate: its cells say n/a, not "not computed".
    return m.power.every((p) => p.drop > m.maxDrop + 1e-12)
      ? `Every drop in the power table is larger than the base's medal rate (${(m.maxDrop * 100).toFixed(1)}%), so none of them can happen; ${even}`
      : `E${even.slice(1)}`;
  }
  return `A drop of **${pts(m.mde)}** would be flagged \`regressed\` ${target}% of the time with these runs (larger drops more often).`;
}

function errorSentence(e: ErrorCause): string {
  switch (e.kind) {
    case "suite-mismatch":
      return `Base and head ran different suites, so they are not compared (set gate.allowSuiteMismatch to compare anyway): ${e.differences.map((d) => inert(d)).join("; ")}.`;
    case "not-comparable":
      return `The head has no comparable run in ${e.count} of ${e.total} competitions (${levelText(e.count / e.total)}), more than the ${levelText(e.limit)} allowed (gate.maxNotComparable).`;
    case "infra-errors":
      return `The head had significantly more infrastructure errors than the base: ${e.head} of ${e.headRuns} runs vs ${e.base} of ${e.baseRuns} (one-sided exact test, ${pText(e.pValue)}).`;
    case "no-data":
      return "No competition has a comparable run on both sides.";
  }
}

/** Lines that explain an `error` verdict (empty otherwise). */
export function errorLines(cmp: Comparison): string[] {
  return cmp.errors.map(errorSentence);
}

function droppedLine(d: Dropped): string {
  const side = (n: number, runs: number, name: string) =>
    runs === 0
      ? `no ${name} run`
      : `${n} of ${runs} ${name} runs not comparable (infrastructure or grader error)`;
  const parts =
    d.side === "both"
      ? [side(d.baseInfra, d.baseRuns, "base"), side(d.headInfra, d.headRuns, "head")]
      : d.side === "head"
        ? [side(d.headInfra, d.headRuns, "head")]
        : [side(d.baseInfra, d.baseRuns, "base")];
  return `\`${d.competitionId.replace(/`/g, "'")}\`: ${parts.join("; ")}`;
}

/** "Left out of the comparison: …" (empty when nothing was dropped). */
export function droppedText(cmp: Comparison): string {
  if (cmp.dropped.length === 0) return "";
  return `Left out of the comparison (${cmp.dropped.length}): ${cmp.dropped.map(droppedLine).join(" · ")}.`;
}

/** The gate's one line (action summary and logs). */
export function gateSentence(cmp: Comparison): string {
  if (cmp.gate.failOn === "never") return `**Gate: off** (fail-on: never); verdict ${cmp.verdict}.`;
  if (cmp.verdict === "error")
    return `**Gate: failed** — the head could not be evaluated: ${errorLines(cmp).join(" ")}`;
  if (cmp.verdict === "regressed") {
    const a = cmp.analysis;
    const m = a && [a.medal, a.percentile].find((x) => x?.verdict === "regressed");
    return `**Gate: failed** — regressed: ${m ? metricReason(m) : ""}`;
  }
  return `**Gate: passed** — verdict ${cmp.verdict}; fail-on: regression fails on \`regressed\` (a drop larger than the tolerance, shown at α = ${cmp.gate.alpha}) and on \`error\`.`;
}

/**
 * Different numbers of comparable runs per competition are valid for the paired design (each
 * competition's difference is unbiased whatever its runs), but the rates are then means over
 * competitions, not pooled counts: said in one sentence (null when every competition has the same).
 */
export function seedCountsSentence(cmp: Comparison): string | null {
  const rows = cmp.competitions.filter((r) => r.comparable);
  if (rows.length === 0) return null;
  const ok = (cells: { comparable?: boolean }[]) => cells.filter((c) => c.comparable !== false).length;
  const range = (ns: number[]) => {
    const lo = Math.min(...ns);
    const hi = Math.max(...ns);
    return lo === hi ? `${lo}` : `${lo}–${hi}`;
  };
  const b = rows.map((r) => ok(r.base));
  const h = rows.map((r) => ok(r.head));
  if (new Set(b).size === 1 && new Set(h).size === 1) return null;
  return `Comparable runs per competition differ (base ${range(b)}, head ${range(h)}): every competition weighs the same, so the medal rates and their change are means over competitions, not pooled counts.`;
}

const STOP_WHY: Record<MonitorRecord["decision"], string> = {
  regressed: "`regressed` was reached",
  "no-regression": "`no-regression` was reached",
  futility: "neither verdict could plausibly be reached any more (non-binding futility stop)",
  error: "the head could not be evaluated",
  final: "",
  continue: "",
};

/** When and why a monitored head stopped, and what that saved against running every planned run. */
export function monitorSentence(m: MonitorRecord): string {
  const level = `one-sided level ${levelText(m.level)} for each claim`;
  const st = m.stages;
  const how = st
    ? `Monitored after each stage (${st.ran} of ${st.planned} stages ran)`
    : "Monitored after every run";
  const fixed = m.fixedRuns;
  const alpha = m.alphaRuns !== undefined ? `the runs' α (${+m.alphaRuns.toPrecision(3)})` : "α";
  const planned = `${m.plannedRuns} planned head runs${fixed !== undefined ? ` (the history-informed plan's; the fixed design has ${fixed})` : ""}`;
  if (m.decision === "final" || m.decision === "continue")
    return `${how}: the verdict stayed open, so ${m.usedRuns > m.plannedRuns ? `all ${planned} ran, and ${m.usedRuns - m.plannedRuns} more replacing runs lost to infrastructure errors` : `${m.usedRuns} of ${planned} ran`}; the last look used the ${level} (${levelText(m.interimShare)} of ${alpha} was kept for the looks before it).`;
  const saved =
    m.savedHours >= 1
      ? `${m.savedHours.toFixed(1)} ${m.gpuHours ? "GPU-hours" : "hours of runner time"}`
      : `${duration(m.savedHours * 3_600_000)} of ${m.gpuHours ? "GPU time" : "runner time"}`;
  const n = m.afterStop.length;
  const late = !n
    ? ""
    : st
      ? ` ${n} run${n === 1 ? "" : "s"} of later stages ran after the stop: kept in the results, not used by the verdict.`
      : ` ${n} run${n === 1 ? "" : "s"} in flight at the stop finished after it: kept in the results, not used by the verdict.`;
  const k = m.stoppedInFlight?.length ?? 0;
  const halted = k
    ? ` ${k} run${k === 1 ? " was" : "s were"} in flight at the stop and ${k === 1 ? "was" : "were"} stopped there (seeds.inFlight: stop): no result, not used by the verdict; the GPU time ${k === 1 ? "it" : "they"} had left is saved too, not counted above.`
    : "";
  return (
    `${how}: stopped after ${st ? `stage ${st.ran} (${m.usedRuns} of ${planned})` : `${m.usedRuns} of ${planned}`} because ${STOP_WHY[m.decision]} at the ${level}. ` +
    `${m.notStarted}${fixed !== undefined ? ` of the fixed design's ${fixed}` : ""} run${m.notStarted === 1 ? " was" : "s were"} not started, saving about ${saved} against the fixed design (each competition's mean run time so far).${halted}${late}`
  );
}

/**
 * After a stop before the last look on a claim: the estimate is taken where it first crossed that
 * claim's boundary, so it tends to lie beyond it (overstating the drop after `regressed`, favouring
 * the head after `no-regression`). The looks' levels already allow for stopping; the estimate does
 * not. Null when the suite did not stop early on a claim.
 */
export function stopBiasSentence(cmp: Comparison): string | null {
  const m = cmp.monitor;
  const a = cmp.analysis;
  if (!m || !a || m.usedRuns >= m.plannedRuns) return null;
  if (m.decision !== "regressed" && m.decision !== "no-regression") return null;
  const shown = `the change shown (${points(a.medal.delta)})`;
  const tends =
    m.decision === "regressed"
      ? `${shown} tends to overstate the drop`
      : `${shown} tends to favour the head more than the true change does`;
  return `Stopped early: an estimate taken when it first crosses a boundary tends to lie beyond it, so ${tends}; the verdict's level already allows for stopping early.`;
}
