// Regenerates competitions/toy-*/leaderboard.csv from each toy competition's parameters.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadRegistry } from "../src/registry/registry.js";
import { generateLeaderboard, toyParams } from "../src/prepare/toy.js";

for (const { competition, dir } of loadRegistry().values()) {
  if (competition.source !== "toy" || !competition.leaderboard) continue;
  writeFileSync(join(dir, competition.leaderboard), generateLeaderboard(toyParams(competition).leaderboard));
  console.log(`wrote ${join(dir, competition.leaderboard)}`);
}
