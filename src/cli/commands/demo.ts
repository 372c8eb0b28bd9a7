import { dirname, join } from "node:path";
import { loadConfig } from "../../config/load.js";
import { defaultRegistryDir } from "../../registry/registry.js";
import { parseCommandArgs, type Command } from "../command.js";
import { runFromConfig } from "./run-suite.js";

export const demoCommand: Command = {
  name: "demo",
  summary: "The embedded default: weak example agent (base) vs better one (head) on the toy suite",
  usage: `Usage: medalist demo [--out DIR]

Evaluates examples/agents/weak (as base) and examples/agents/strong (as head) on the bundled toy
competitions, 2 seeds each, with the local executor (no Docker, GitHub or Kaggle), prints the
comparison and writes DIR/report.md and the results JSON (default DIR: .medalist/demo).`,
  async run(argv) {
    const { values } = parseCommandArgs(argv, { out: { type: "string" } });
    const demo = join(dirname(defaultRegistryDir()), "examples", "demo.yml");
    return runFromConfig(loadConfig(demo), values.out ?? ".medalist/demo");
  },
};
