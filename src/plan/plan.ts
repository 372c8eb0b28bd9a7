import { createHash } from "node:crypto";
import { type Config } from "../config/schema.js";
import { plannedGpus } from "../config/parts.js";
import type { Registry } from "../registry/registry.js";
import { selectCompetitions } from "../registry/registry.js";

export interface PlannedRun {
  runId: string;
  competitionId: string;
  seed: number;
  expectedSecs: number;
  gpus: number;
}

export interface Plan {
  competitions: string[];
  seeds: number;
  runs: PlannedRun[];
  /** What makes two suite runs comparable: competitions, seeds, limits, grading inputs. */
  suiteHash: string;
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}

/** Short stable hash over what must match for base and head to be comparable. */
export function suiteHash(config: Config, competitions: string[], registry: Registry): string {
  const grading = competitions.map((id) => {
    const c = registry.get(id)!.competition;
    return {
      id,
      metric: c.metric,
      answers: c.answers,
      thresholds: c.thresholds ?? null,
      leaderboard: c.leaderboard ?? null,
      toy: c.toy ?? null,
    };
  });
  const key = {
    v: 1,
    competitions,
    seeds: config.seeds,
    time: config.limits.time,
    gpus: config.limits.gpus,
    grading,
  };
  return createHash("sha256").update(canonical(key)).digest("hex").slice(0, 16);
}

/** A run's id: stable across re-runs and shards. */
export const runIdOf = (competitionId: string, seed: number) => `${competitionId}.s${seed}`;

/** Competitions × seeds → runs, with ids that are stable across re-runs. */
export function plan(config: Config, registry: Registry): Plan {
  const competitions = selectCompetitions(registry, config.competitions);
  const runs: PlannedRun[] = [];
  for (const id of competitions) {
    const expected = registry.get(id)!.competition.expectedDurationSecs ?? config.limits.time;
    for (let seed = 0; seed < config.seeds; seed++) {
      runs.push({
        runId: runIdOf(id, seed),
        competitionId: id,
        seed,
        expectedSecs: Math.min(expected, config.limits.time),
        gpus: plannedGpus(config.limits.gpus),
      });
    }
  }
  return { competitions, seeds: config.seeds, runs, suiteHash: suiteHash(config, competitions, registry) };
}
