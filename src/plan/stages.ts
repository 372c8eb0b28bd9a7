// Stages of a sharded suite (the staged workflow): stage k runs a block of seeds of every
// competition, split over the shards; the decide step looks once after each stage.

/** Most stages: one per seed at most, and a workflow names each stage's jobs by hand. */
export const MAX_STAGES = 16;

/** The seeds of stage k (1-based) of `stages` over `seeds` seeds: contiguous blocks, earlier blocks never larger. */
export function stageSeeds(seeds: number, stages: number, k: number): number[] {
  const from = Math.floor(((k - 1) * seeds) / stages);
  const to = Math.floor((k * seeds) / stages);
  return Array.from({ length: to - from }, (_, i) => from + i);
}

/** The stage (1-based) that runs `seed`. */
export function stageOfSeed(seeds: number, stages: number, seed: number): number {
  for (let k = 1; k <= stages; k++) if (stageSeeds(seeds, stages, k).includes(seed)) return k;
  throw new RangeError(`seed ${seed} is not in any of ${stages} stages over ${seeds} seeds`);
}
