import { parseCommandArgs, type Command } from "../command.js";
import { loadRegistry, selectCompetitions } from "../../registry/registry.js";
import { toCliJson } from "../../util/json.js";

const usage = `Usage: medalist competitions [--split NAME] [--json] [--registry DIR]

Lists the competitions Medalist knows: id, metric, direction, category, grading mode
(native: graded by Medalist; external: by a configured grader command) and flags
(known upstream problems, e.g. leaked-test-labels, crowded-leaderboard).

Options:
  --split NAME      only this split: lite (= low), medium, high, all (MLE-bench's 75), dev, toy, …
  --json            print JSON instead of a table
  --registry DIR    competitions folder (default: the bundled one)`;

export const competitionsCommand: Command = {
  name: "competitions",
  summary: "List competitions (metric, direction, category, grading mode, flags)",
  usage,
  async run(argv) {
    const { values } = parseCommandArgs(argv, {
      split: { type: "string" },
      json: { type: "boolean" },
      registry: { type: "string" },
    });
    const registry = loadRegistry(values.registry);
    const ids = values.split ? selectCompetitions(registry, { split: values.split }) : [...registry.keys()];
    const rows = ids.map((id) => {
      const c = registry.get(id)!.competition;
      return {
        id,
        metric: c.metric,
        direction: c.isLowerBetter ? "lower" : "higher",
        category: c.category,
        grading: c.grading,
        splits: c.splits,
        flags: c.flags,
      };
    });
    if (values.json) {
      console.log(toCliJson(rows));
      return 0;
    }
    const table = [
      ["id", "metric", "better", "category", "grading", "flags"],
      ...rows.map((r) => [r.id, r.metric, r.direction, r.category, r.grading, r.flags.join(",") || "-"]),
    ];
    const widths = table[0].map((_, k) => Math.max(...table.map((r) => r[k].length)));
    for (const r of table)
      console.log(r.map((v, k) => (k === r.length - 1 ? v : v.padEnd(widths[k]))).join("  "));
    console.log(`\n${rows.length} competition(s)${values.split ? ` in split ${values.split}` : ""}`);
    return 0;
  },
};
