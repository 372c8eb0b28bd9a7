import type { RunResult } from "../results/schema.js";
import type { StoredRun } from "./store.js";

/** What a stored run must match to be reused instead of run again. */
export interface RunFingerprint {
  suiteHash: string;
  agent: string;
}

export function fingerprintOf(suiteHash: string, agent: string): RunFingerprint {
  return { suiteHash, agent };
}

/** The stored result when it may stand for this run; null when the run must run again. */
export function reusableResult(stored: StoredRun | null, fp: RunFingerprint): RunResult | null {
  if (!stored) return null;
  return stored.suiteHash === fp.suiteHash && stored.agent === fp.agent ? stored.result : null;
}
