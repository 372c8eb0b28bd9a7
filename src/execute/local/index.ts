import { resolve } from "node:path";
import { runPolicy } from "../../config/schema.js";
import { UserError } from "../../errors.js";
import type { ExecutorBackend, OpenExecutor } from "../lifecycle.js";
import { LocalExecutor } from "./executor.js";

export { LocalExecutor, type LocalOptions } from "./executor.js";

/** The agent as a child process on this machine: no image, no GPUs pinned, `concurrency` at once. */
export const localBackend: ExecutorBackend = {
  name: "local",
  async open(ctx): Promise<OpenExecutor> {
    const { agent, config } = ctx;
    if (agent.command === undefined) throw new UserError("agent.command: the local executor needs a command");
    const executor = new LocalExecutor({
      command: agent.command,
      cwd: resolve(ctx.baseDir, agent.cwd ?? "."),
      graceSecs: runPolicy(config).stopGraceSecs,
    });
    return {
      name: "local",
      resources: { gpuIds: [], maxParallel: config.concurrency },
      perRun: { gpus: 0 },
      facts: { image: agent.image ?? null, imageDigest: null, gpuModel: null },
      execute: (spec, signal) => executor.execute(spec, signal),
      close: async () => {},
    };
  },
};
