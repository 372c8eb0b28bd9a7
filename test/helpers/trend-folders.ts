// Earlier `medalist run` folders for `medalist trend`: one suite of 22 competitions × 3 seeds run on
// `points` commits a week apart, the medal rate drifting, plus two runs of another suite (a smaller
// set of competitions) in between. Deterministic (seeded).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { makeRng } from "../../src/stats/distributions.js";
import { writeResults } from "../../src/suite/store.js";
import { competitionIds, fakeRun, fakeSuite } from "./results.js";

export function trendFolders(root: string, points = 10, name = "run"): string[] {
  const rng = makeRng(7);
  const out: string[] = [];
  const all = competitionIds(22);
  for (let i = 0; i < points + 2; i++) {
    // Points 4 and 7 ran another suite: 8 of the competitions, 2 seeds.
    const other = i === 4 || i === 7;
    const ids = other ? all.slice(0, 8) : all;
    const seeds = other ? 2 : 3;
    const rate = 0.25 + 0.02 * i;
    const runs = ids.flatMap((id) =>
      Array.from({ length: seeds }, (_, seed) => {
        const medal = rng() < rate;
        const r = fakeRun(id, seed, medal ? (rng() < 0.3 ? "gold" : "bronze") : "none", {
          durationMs: Math.round((20 + 20 * rng()) * 60_000),
          gpus: ["0"],
          usage: { dollars: Number((0.4 + rng()).toFixed(2)) },
        });
        r.grade!.percentile = medal ? 0.9 + 0.1 * rng() : 0.3 + 0.5 * rng();
        return r;
      }),
    );
    const s = fakeSuite("head", runs, other ? "lite-subset-2f91" : "suite-22x3-8c1e");
    s.suite.name = other ? "lite subset" : "nightly";
    s.suite.seeds = seeds;
    const day = new Date(Date.UTC(2026, 0, 5 + 7 * i, 3, 0));
    s.finishedAt = day.toISOString();
    s.startedAt = new Date(day.getTime() - 3_600_000).toISOString();
    s.git = { sha: hexOf(rng), ref: "main" };
    const dir = join(root, `${name}-${String(i + 1).padStart(2, "0")}`);
    mkdirSync(join(dir, "head"), { recursive: true });
    writeResults(join(dir, "head", "results.json"), s);
    out.push(dir);
  }
  return out;
}

function hexOf(rng: () => number): string {
  return Array.from({ length: 40 }, () => Math.floor(rng() * 16).toString(16)).join("");
}
