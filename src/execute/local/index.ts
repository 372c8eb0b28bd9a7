import { runPolicy } from "../../config/run-policy.js";
import { UserError } from "../../errors.js";
import type { Backend } from "../backend.js";
import { LOCAL_CONFIG, LocalSchema, type LocalConfig } from "../../config/blocks/local.js";
import { LocalExecutor, type LocalOptions } from "./executor.js";
import { bwrapProblem, noSandboxWhy, resolveSandbox, sandboxProblem } from "./sandbox.js";
import { agentCwd } from "../../util/contained.js";
import { hiddenCommandPath } from "./visible.js";
import { localAgentCheck, localMachineCheck } from "./check.js";

/** The sandbox settings for the executor; a UserError when they cannot hold on this machine. */
function checkSandbox(local: LocalConfig | undefined, cwd: string): LocalOptions["sandbox"] {
  if (!local) return { mode: "auto" };
  const kind = resolveSandbox(local.sandbox);
  if (kind === null)
    throw new UserError(
      "local.sandbox: bwrap cannot start a sandbox on this machine (install bubblewrap and allow user namespaces, or set auto)",
    );
  const problem = kind === "bwrap" ? sandboxProblem(cwd) : null;
  if (problem) throw new UserError(`agent.cwd: ${problem}`);
  return { mode: local.sandbox, scratchBytes: local.scratch };
}

/** The agent as a child process on this machine (in bubblewrap where it runs), `concurrency` at once. */
export const localBackend: Backend<"local", typeof LocalSchema> = {
  ...LOCAL_CONFIG,
  // Even inside bubblewrap the agent shares the runner's kernel, network and user (docs/security.md).
  unsandboxed: () => "executor: local",
  // auto where bubblewrap cannot start: no sandbox at all, which the config did not ask for.
  noSandbox: (c) =>
    (c.block?.sandbox ?? "auto") === "auto" && bwrapProblem() !== null ? noSandboxWhy("auto") : null,
  // The sandbox is not part of a run's identity (it was not before it existed either).
  identityFacts: () => ({}),
  agentCheck: localAgentCheck,
  machineCheck: localMachineCheck,
  async open(ctx) {
    const { agent, config } = ctx;
    if (agent.command === undefined) throw new UserError("agent.command: the local executor needs a command");
    // The real folder, with no link on the way inside the repository: a committed `cwd -> /` would
    // otherwise mount the runner's whole file system into the sandbox.
    const cwd = agentCwd(agent.cwd, ctx.baseDir);
    const sandbox = checkSandbox(config.local as LocalConfig | undefined, cwd);
    // A file the command names that the sandbox will not show: one sentence now, not a failure per run.
    const hidden =
      resolveSandbox(sandbox?.mode ?? "auto") === "bwrap" ? hiddenCommandPath(agent.command, cwd) : null;
    if (hidden) throw new UserError(hidden);
    const executor = new LocalExecutor({
      command: agent.command,
      cwd,
      graceSecs: runPolicy(config).stopGraceSecs,
      sandbox,
    });
    // Said once for the suite (each run.log says it too) and kept in the results for the report.
    const mode = sandbox?.mode ?? "auto";
    const unsandboxed = resolveSandbox(mode) === "none" ? noSandboxWhy(mode) : undefined;
    if (unsandboxed)
      ctx.log(
        `the agent runs unsandboxed (${unsandboxed}): it runs as this runner's user and can read that user's files and, through /proc, the runner's environment`,
      );
    return {
      name: "local",
      resources: { gpuIds: [], maxParallel: config.concurrency },
      perRun: { gpus: 0 },
      facts: {
        image: agent.image ?? null,
        imageDigest: null,
        gpuModel: null,
        ...(unsandboxed ? { unsandboxed } : {}),
      },
      agentPaths: (spec) => executor.agentPaths(spec),
      driver: () => executor.driver(),
      close: async () => {},
    };
  },
  // Local runs are known only to the process that started them: a crashed runner's are not found.
  sweep: async () => [],
  // A child process of this runner: it runs wherever the runner does.
  selfTest: {
    unavailable: async () => null,
    // In bubblewrap where it starts here, and with no sandbox.
    variants: async () => (bwrapProblem() === null ? ["bwrap", "none"] : ["none"]),
    config: (agent, sandbox) => ({
      agent: { command: ["/bin/sh", "-c", agent.script] },
      local: { sandbox },
    }),
  },
};
