// Cost and tokens are self-reported by the agent (logs/usage.json): never verified, so only
// plausible numbers are taken at their word, and the report says who reported them.

/** The largest self-reported amount (dollars or tokens) per run taken at its word. */
export const MAX_SELF_REPORTED = 1e12;

/** A self-reported amount counts only when it is a finite number, not negative, not absurd. */
export const usableAmount = (v: unknown): v is number =>
  typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= MAX_SELF_REPORTED;

/** Why a self-reported value was left out, as the report and the viewer say it. */
export const IGNORED_REASON = `not a finite non-negative number up to ${MAX_SELF_REPORTED.toExponential()}`;
