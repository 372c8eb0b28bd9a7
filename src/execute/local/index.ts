import { resolve } from "node:path";
import { runPolicy, type Config } from "../../config/schema.js";
import { UserError } from "../../errors.js";
import type { ExecutorBackend, OpenExecutor } from "../lifecycle.js";
import { LocalExecutor, type LocalOptions } from "./executor.js";
import { resolveSandbox, sandboxProblem } from "./sandbox.js";

export { LocalExecutor, type LocalOptions } from "./executor.js";

/** The sandbox settings for the executor; a UserError when they cannot hold on this machine. */
function checkSandbox(local: Config["local"] | undefined, cwd: string): LocalOptions["sandbox"] {
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

/** The agent as a child process on this machine: no image, no GPUs pinned, `concurrency` at once. */
export const localBackend: ExecutorBackend = {
  name: "local",
  async open(ctx): Promise<OpenExecutor> {
    const { agent, config } = ctx;
    if (agent.command === undefined) throw new UserError("agent.command: the local executor needs a command");
    const cwd = resolve(ctx.baseDir, agent.cwd ?? ".");
    const sandbox = checkSandbox(config.local, cwd);
    const executor = new LocalExecutor({
      command: agent.command,
      cwd,
      graceSecs: runPolicy(config).stopGraceSecs,
      sandbox,
    });
    return {
      name: "local",
      resources: { gpuIds: [], maxParallel: config.concurrency },
      perRun: { gpus: 0 },
      facts: { image: agent.image ?? null, imageDigest: null, gpuModel: null },
      agentPaths: (spec) => executor.agentPaths(spec),
      execute: (spec, signal) => executor.execute(spec, signal),
      close: async () => {},
    };
  },
};
