import { resolve } from "node:path";
import { parseCommandArgs, UserError, type Command } from "../command.js";
import { defaultLeaderboardsDir, leaderboardPath } from "../../registry/leaderboards.js";
import { loadRegistry, selectCompetitions } from "../../registry/registry.js";
import { fetchLeaderboards, MLEBENCH_LFS } from "../../registry/leaderboards-fetch.js";

const usage = `Usage: medalist leaderboards fetch [--dir DIR] [--base-url URL] [--split NAME] [--competition ID...]
       medalist leaderboards status [--dir DIR] [--split NAME]

Downloads upstream MLE-bench's leaderboard CSVs (needs network) and keeps each one only if its
SHA-256 matches the pin in competitions/<id>/competition.json. Where a verified leaderboard is
present, medal thresholds and percentiles come from it instead of the precomputed thresholds.
\`status\` lists, per competition, which source grading would use.

Options:
  --dir DIR           where to keep them (default: $MEDALIST_LEADERBOARDS_DIR or ~/.cache/medalist/leaderboards)
  --base-url URL      a mirror serving <URL>/<id>/leaderboard.csv (default: upstream's Git LFS,
                      ${MLEBENCH_LFS}, by object id)
  --lfs-url URL       another Git LFS endpoint
  --split NAME        only this split (default: all)
  --competition ID    only these competitions (repeatable)
  --registry DIR      competitions folder (default: the bundled one)`;

export const leaderboardsCommand: Command = {
  name: "leaderboards",
  summary: "Fetch upstream leaderboards and verify them against pinned SHA-256s",
  usage,
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub !== "fetch" && sub !== "status") {
      throw new UserError(
        sub
          ? `unknown subcommand "${sub}" (expected: fetch, status)`
          : "expected a subcommand: fetch or status (see --help)",
      );
    }
    const { values } = parseCommandArgs(rest, {
      dir: { type: "string" },
      "base-url": { type: "string" },
      "lfs-url": { type: "string" },
      split: { type: "string" },
      competition: { type: "string", multiple: true },
      registry: { type: "string" },
    });
    const registry = loadRegistry(values.registry);
    const ids =
      values.competition?.length && !values.split
        ? selectCompetitions(registry, { include: values.competition })
        : selectCompetitions(registry, { split: values.split ?? "all", include: values.competition ?? [] });
    const dir = resolve(values.dir ?? defaultLeaderboardsDir());
    if (sub === "status") {
      let withBoard = 0;
      for (const id of ids) {
        const entry = registry.get(id)!;
        const path = leaderboardPath(entry, dir);
        if (path) withBoard++;
        const source = path
          ? `leaderboard ${path}`
          : entry.competition.thresholds
            ? "precomputed thresholds"
            : "none";
        console.log(`${id.padEnd(50)} ${source}`);
      }
      console.log(
        `\n${withBoard} of ${ids.length} with a leaderboard file (fetched ones are verified, in ${dir})`,
      );
      return 0;
    }
    const r = await fetchLeaderboards(
      ids.map((id) => registry.get(id)!),
      { dir, baseUrl: values["base-url"], lfsUrl: values["lfs-url"], log: (l) => console.error(l) },
    );
    // One line per cause: a cause shared by many (the host unreachable) is said once, with its count.
    const byCause = new Map<string, string[]>();
    for (const f of r.failed) byCause.set(f.message, [...(byCause.get(f.message) ?? []), f.id]);
    for (const [message, failedIds] of byCause) {
      if (failedIds.length === 1) console.log(`FAILED  ${failedIds[0]}: ${message}`);
      else {
        const named = failedIds.slice(0, 3).join(", ");
        const more = failedIds.length > 3 ? ` and ${failedIds.length - 3} more` : "";
        console.log(`FAILED  ${failedIds.length} leaderboards (${named}${more}): ${message}`);
      }
    }
    console.log(
      `${r.fetched.length} fetched, ${r.present.length} already verified, ${r.failed.length} failed (in ${dir})`,
    );
    return r.failed.length > 0 ? 1 : 0;
  },
};
