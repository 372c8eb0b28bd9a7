import { loadConfig } from "../../config/load.js";
import { checkSuite, checkText } from "../../session/check.js";
import { parseCommandArgs, requireOption, type Command } from "../command.js";

export const checkCommand: Command = {
  name: "check",
  summary: "Check a config before running it: agent, data, executor, sandbox (nothing runs or is built)",
  usage: `Usage: medalist check --config FILE

Checks what the suite needs before its first run, one line each (✓ fine, ✗ a problem and what to
do): the config (competitions, seeds), the agent (its folder, start script, Dockerfile or command),
its image (present, or its Dockerfile's base images present: buildable without a registry), the
competitions' data (prepared in dataDir), the executor (the Docker daemon and docker.runtime, the
Slurm controller) and the sandbox (bubblewrap can start, for the local executor). Nothing is run,
built or downloaded. \`medalist plan\` runs the config and agent checks too.

Options:
  --config FILE   medalist.yml or .json (required)

Exit codes: 0 every check passed, 2 a problem (each ✗ line says which).`,
  async run(argv) {
    const { values } = parseCommandArgs(argv, { config: { type: "string" } });
    const loaded = loadConfig(requireOption(values.config, "--config"));
    const lines = await checkSuite(loaded, { machine: true });
    for (const l of lines) console.log(checkText(l));
    const bad = lines.filter((l) => !l.ok).length;
    console.log(
      bad === 0
        ? "medalist check: every check passed; exit code 0."
        : `medalist check: ${bad} problem${bad === 1 ? "" : "s"}; exit code 2.`,
    );
    return bad === 0 ? 0 : 2;
  },
};
