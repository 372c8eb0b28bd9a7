// The rules every door applies, written once: when the head stops early, what stages need, and how
// a stage number and a target wall time read. The doors keep only how they name their inputs.
import { parseDuration } from "../config/parts.js";
import type { Config } from "../config/schema.js";
import { UserError } from "../errors.js";
import { MAX_STAGES } from "../plan/stages.js";

/** The config asks for adaptive seeds: the head may stop once the verdict is reached. */
export const adaptive = (config: Pick<Config, "adaptiveSeeds" | "seeds">): boolean =>
  config.adaptiveSeeds && config.seeds > 1;

/**
 * Whether the head stops early: with adaptive seeds, and in the action only on a pull request (the
 * default branch's results become later baselines). `pr` is undefined where there is no event (the CLI).
 */
export const stopsEarly = (config: Pick<Config, "adaptiveSeeds" | "seeds">, pr?: boolean): boolean =>
  pr !== false && adaptive(config);

/** Why every stage runs (null when the head stops early): the decide step's sentence. */
export function everyStageRuns(config: Pick<Config, "adaptiveSeeds" | "seeds">, pr?: boolean): string | null {
  if (stopsEarly(config, pr)) return null;
  return pr === false
    ? "Not a pull request: every stage runs, so the results saved as later baselines are whole."
    : "The config's seeds are fixed (seeds: N; the default, { max: 3, adaptive: true }, stops early): every stage runs.";
}

/** How a door names the baseline settings in the stage rule's sentence. */
const BASELINE_WORDS = {
  action: { from: "the cache or a file", run: "baseline run" },
  cli: { from: "a file (medalist decide --baseline FILE)", run: "baseline.source: run" },
} as const;

/**
 * Stages need a baseline that is not `run`: the base would stop with the head. `field` names the
 * input as the door shows it (`input "stages"`, `--stage`).
 */
export function refuseStagesWithRunBaseline(
  stages: number | undefined,
  baselineSource: string | undefined,
  field: string,
  door: keyof typeof BASELINE_WORDS,
): void {
  if (stages === undefined || baselineSource !== "run") return;
  const words = BASELINE_WORDS[door];
  throw new UserError(
    `${field}: stages need a baseline from ${words.from}; with ${words.run} the base would be cut short too`,
  );
}

/** A whole number from min to max, or null. */
export function wholeNumberIn(text: string, min: number, max: number): number | null {
  const n = Number(text);
  return text.trim() !== "" && Number.isInteger(n) && n >= min && n <= max ? n : null;
}

/** A stage number of the staged workflow (1..MAX_STAGES), or null. */
export const stageNumber = (text: string): number | null => wholeNumberIn(text, 1, MAX_STAGES);

/** A target wall time (6h, 90m) in seconds, above 0; null when it is not one. */
export function targetWallSecs(text: string): number | null {
  const t = parseDuration(text);
  return t !== null && t > 0 ? t : null;
}
