import type { Outcome } from "../execute/types.js";
import { OutcomeSchema } from "../results/schema.js";
import { UserError } from "../errors.js";
import { closest } from "../config/errors.js";
import { describeChange, type RunIdentity } from "./identity.js";

/** Which runs execute again: --fresh, --rerun OUTCOMES, --only COMPETITION[.sSEED]. */
export interface Selection {
  /** Ignore every finished run (of the selected ones). */
  fresh: boolean;
  /** Finished runs with these outcomes execute again. */
  rerun: Outcome[];
  /** Only these runs execute; null: all. */
  only: RunSelector[] | null;
}

export interface RunSelector {
  competitionId: string;
  /** null: every seed. */
  seed: number | null;
}

export const NO_SELECTION: Selection = { fresh: false, rerun: [], only: null };

/** "failed,timed_out" → outcomes; an unknown name is an error that lists the known ones. */
export function parseRerun(text: string): Outcome[] {
  const names = text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) throw new UserError(`--rerun: expected outcomes, e.g. failed,timed_out`);
  for (const n of names) {
    if (!OutcomeSchema.safeParse(n).success)
      throw new UserError(`--rerun: unknown outcome "${n}" (expected ${OutcomeSchema.options.join(", ")})`);
  }
  return [...new Set(names)] as Outcome[];
}

/** "toy-churn,toy-digits.s1" → selectors, checked against the suite's competitions and seeds. */
export function parseOnly(text: string, competitions: string[], seeds: number): RunSelector[] {
  const out: RunSelector[] = [];
  for (const item of text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^(.+)\.s(\d+)$/.exec(item);
    const sel =
      m && !competitions.includes(item)
        ? { competitionId: m[1], seed: Number(m[2]) }
        : { competitionId: item, seed: null };
    if (!competitions.includes(sel.competitionId)) {
      const near = closest(sel.competitionId, competitions);
      throw new UserError(
        `--only: "${sel.competitionId}" is not in this suite${near ? ` (did you mean "${near}"?)` : ""} (competitions: ${competitions.join(", ")})`,
      );
    }
    if (sel.seed !== null && sel.seed >= seeds)
      throw new UserError(`--only: ${item}: the suite has seeds 0..${seeds - 1}`);
    out.push(sel);
  }
  if (out.length === 0) throw new UserError("--only: expected COMPETITION or COMPETITION.sSEED");
  return out;
}

export function selected(run: { competitionId: string; seed: number }, sel: Selection): boolean {
  return (
    sel.only === null ||
    sel.only.some((o) => o.competitionId === run.competitionId && (o.seed === null || o.seed === run.seed))
  );
}

/** A finished run on disk, as far as reuse cares. */
export interface Finished {
  identity: RunIdentity | null;
  outcome: Outcome;
  /**
   * Why the record cannot be trusted (no valid seal from this runner's key, or it lies where the
   * pull request can write); null: the runner wrote it. An untrusted record is never reused.
   */
  untrusted?: string | null;
}

export type Decision =
  | { action: "reuse" }
  | { action: "run"; why: string }
  /** Not selected by --only and nothing matching on disk: left out of the results. */
  | { action: "skip"; why: string };

/** Whether a planned run executes, reuses its finished result, or is left out. */
export function decide(
  run: { competitionId: string; seed: number },
  finished: Finished | null,
  now: RunIdentity,
  sel: Selection,
): Decision {
  const untrusted = finished?.untrusted ?? null;
  const matches = finished !== null && untrusted === null && finished.identity?.hash === now.hash;
  if (!selected(run, sel)) {
    return matches
      ? { action: "reuse" }
      : { action: "skip", why: "not selected by --only and no finished run with the same identity" };
  }
  if (!finished) return { action: "run", why: "not run before" };
  if (sel.fresh) return { action: "run", why: "--fresh" };
  if (untrusted !== null) return { action: "run", why: `its record is not reused: ${untrusted}` };
  if (!matches) return { action: "run", why: describeChange(finished.identity, now) };
  if (sel.rerun.includes(finished.outcome)) return { action: "run", why: `--rerun ${finished.outcome}` };
  return { action: "reuse" };
}
