// Verdict counts and GPU-hours of simulated suites, shared by the adaptive benches.
import type { Verdict } from "../src/stats/stats.js";

export interface Tally {
  n: number;
  v: Record<Verdict, number>;
  hours: number[];
  decisive: number[];
}

export const tally = (): Tally => ({
  n: 0,
  v: { regressed: 0, "no-regression": 0, inconclusive: 0, error: 0 },
  hours: [],
  decisive: [],
});

export function add(t: Tally, r: { verdict: Verdict; hours: number }) {
  t.n++;
  t.v[r.verdict]++;
  t.hours.push(r.hours);
  t.decisive.push(r.verdict === "regressed" || r.verdict === "no-regression" ? 1 : 0);
}
