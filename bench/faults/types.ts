// One row of `npm run bench -- faults`: a fault kind injected `trials` times on one backend, then resumed.
export interface FaultRow {
  fault: string;
  backend: string;
  trials: number;
  lost: number;
  doubleCounted: number;
  differentVerdicts: number;
  extraRuns: number;
}

export interface FaultOptions {
  /** Injections per fault kind (MEDALIST_FAULT_TRIALS, default 20). */
  trials: number;
  /** Seed for the injection points. */
  seed: number;
}
