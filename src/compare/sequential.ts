// Adaptive seeds: a group-sequential design over the head's seeds. Look k analyses the head's
// seeds 0..k−1 (every competition) against the base's full runs.
//  - α spending: each claim (`regressed`, `no-regression`) spends a small share at every interim
//    look and the rest at the last; by the union bound the claim is wrong at most α overall.
//  - futility (non-binding): at an interim look where the head is not behind the base, stop. It
//    only ever removes `regressed` verdicts, so it cannot raise the false-alarm rate.
import type { SuiteResults } from "../results/schema.js";
import { compareRuns, type Comparison, type GateInput, type LookRecord } from "./compare.js";
import type { Levels, Verdict } from "./stats.js";

export interface SequentialDesign {
  /** Looks = the most head seeds. */
  looks: number;
  /** One-sided levels per look (index 0 = look 1). */
  levels: Levels[];
  /** Stop for futility at an interim look when delta ≥ −futilityMargin. */
  futilityMargin: number;
}

/** Share of α each interim look spends (Haybittle–Peto style: interim looks only stop on strong evidence). */
export const INTERIM_SHARE = 0.005;

export function sequentialDesign(maxSeeds: number, alpha: number, futilityMargin = 0): SequentialDesign {
  const interim = alpha * INTERIM_SHARE;
  const final = alpha - (maxSeeds - 1) * interim;
  const levels = Array.from({ length: maxSeeds }, (_, i) => {
    const a = i === maxSeeds - 1 ? final : interim;
    return { regressed: a, noRegression: a };
  });
  return { looks: maxSeeds, levels, futilityMargin };
}

/** What to do after look `look` (1-based) given its verdict (at that look's levels) and delta. */
export function lookDecision(
  design: SequentialDesign,
  look: number,
  verdict: Verdict,
  delta: number | null,
): LookRecord["decision"] {
  if (verdict === "error") return "error";
  if (verdict === "regressed") return "regressed";
  if (verdict === "no-regression") return "no-regression";
  if (look >= design.looks) return "final";
  if (delta !== null && delta >= -design.futilityMargin) return "futility";
  return "continue";
}

function merge(parts: SuiteResults[]): SuiteResults {
  const first = parts[0];
  return {
    ...first,
    finishedAt: parts[parts.length - 1].finishedAt,
    runs: parts.flatMap((p) => p.runs),
  };
}

export interface AdaptiveResult {
  /** All head runs, every look merged. */
  head: SuiteResults;
  /** The final comparison (at the stopping look's levels), with `looks` set. */
  comparison: Comparison;
  looks: LookRecord[];
}

/**
 * Runs the head look by look: seed 0 for every competition, then one more seed per look while
 * the verdict is open. `runSeeds` runs the given seeds for every competition and returns their
 * results (each call's runs are new). Power and MDE are computed at the last look only.
 */
export async function runAdaptive(opts: {
  base: SuiteResults;
  maxSeeds: number;
  gate: GateInput;
  baselineSource?: string;
  runSeeds: (seeds: number[]) => Promise<SuiteResults>;
  /** Called after every look (progress logs). */
  onLook?: (look: LookRecord) => void;
}): Promise<AdaptiveResult> {
  const design = sequentialDesign(opts.maxSeeds, opts.gate.alpha);
  const parts: SuiteResults[] = [];
  const looks: LookRecord[] = [];
  for (let k = 1; ; k++) {
    parts.push(await opts.runSeeds([k - 1]));
    const head = merge(parts);
    const levels = design.levels[k - 1];
    const quick = compareRuns(opts.base, head, opts.gate, opts.baselineSource, { levels, simulations: 0 });
    const decision = lookDecision(design, k, quick.verdict, quick.delta);
    const record: LookRecord = {
      look: k,
      headSeeds: k,
      headRuns: head.runs.length,
      delta: quick.delta,
      levels,
      verdict: quick.verdict,
      decision,
    };
    looks.push(record);
    opts.onLook?.(record);
    if (decision !== "continue") {
      const comparison = compareRuns(opts.base, head, opts.gate, opts.baselineSource, { levels });
      return { head, comparison: { ...comparison, looks }, looks };
    }
  }
}
