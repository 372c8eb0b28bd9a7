import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { RunResult } from "../../src/results/schema.js";
import { compareRuns, type Comparison } from "../../src/compare/compare.js";
import { fakeRun, fakeSuite } from "./results.js";

const MEDALS = ["none", "none", "none", "bronze", "silver", "gold"];

/**
 * A base-vs-head comparison of `n` registry competitions × `seeds` seeds with deterministic
 * pseudo-random medals (about a fifth of the competitions change, their percentiles by 5–25 points;
 * a quarter move by a point or so without a medal change), a few failed runs, and a link
 * per run of a realistic artifact-URL length.
 */
export function bigComparison(n: number, seeds: number): { cmp: Comparison; links: Record<string, string> } {
  const ids = readdirSync(join(process.cwd(), "competitions"))
    .filter((d) => !d.startsWith("toy-"))
    .slice(0, n);
  let s = 42;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const base: RunResult[] = [];
  const head: RunResult[] = [];
  const links: Record<string, string> = {};
  ids.forEach((id, ci) => {
    const level = Math.floor(rnd() * MEDALS.length);
    const change = ci % 5 === 2 ? 1 : ci % 7 === 3 ? -1 : 0;
    // Percentile points the head moves by: 5–25 with the medals, a point or two now and then without.
    const shift = change ? change * (0.05 + 0.2 * rnd()) : ci % 4 === 1 ? 0.02 * (rnd() - 0.5) : 0;
    for (let seed = 0; seed < seeds; seed++) {
      const bm = MEDALS[level];
      const hm = MEDALS[Math.max(0, Math.min(MEDALS.length - 1, level + change * (seed === 0 ? 3 : 0)))];
      const p = 0.3 + rnd() * 0.6;
      base.push(
        fakeRun(id, seed, bm, { score: p, durationMs: 3_600_000 * rnd(), usage: { dollars: 2 * rnd() } }),
      );
      const failed = ci % 9 === 4 && seed === 1;
      const r = fakeRun(id, seed, failed ? "none" : hm, {
        score: Math.min(0.99, Math.max(0.01, p + shift)),
        durationMs: 3_600_000 * rnd(),
        usage: { dollars: 2 * rnd() },
        ...(failed
          ? { outcome: "timed_out" as const, exitCode: null, error: "time limit 3600s reached" }
          : {}),
      });
      head.push(r);
      links[r.runDir] =
        `https://github.com/acme-labs/agent-scaffold/actions/runs/12845671234/artifacts/${2345678901 + head.length}`;
    }
  });
  const cmp = compareRuns(
    fakeSuite("base", base),
    fakeSuite("head", head),
    { tolerance: 0.05, alpha: 0.05, failOn: "regression" },
    "cache (base commit 1a2b3c4)",
  );
  return { cmp, links };
}
