import { resolve } from "node:path";
import { runPolicy } from "../../config/run-policy.js";
import { UserError } from "../../errors.js";
import type { ExecutorDescriptor } from "../descriptor.js";
import { LocalExecutor } from "./executor.js";

export { LocalExecutor, type LocalOptions } from "./executor.js";

/** The agent as a child process on this machine: no image, no GPUs pinned, `concurrency` at once. */
export const localDescriptor: ExecutorDescriptor<"local"> = {
  name: "local",
  configSchema: null,
  configDefault: null,
  check: (c) =>
    c.agent.command === undefined
      ? [{ path: ["agent", "command"], message: "the local executor needs agent.command" }]
      : [],
  identityFacts: () => ({}),
  async open(ctx) {
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
      agentPaths: (spec) => executor.agentPaths(spec),
      driver: () => executor.driver(),
      close: async () => {},
    };
  },
  // Local runs are known only to the process that started them: a crashed runner's are not found.
  sweep: async () => [],
};
