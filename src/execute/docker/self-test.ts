import type { SelfTest } from "../backend.js";
import { connectDocker } from "./client.js";
import { errorMessage } from "../../util/error-message.js";
import { LABEL } from "./container.js";
import { daemonRuntimes } from "./runtime.js";

/** The OCI runtimes the conformance suite runs the agent under, where the daemon has them. */
const RUNTIMES = ["runc", "runsc"];

/** The conformance suite on Docker: the agent in the shell image, under each runtime the daemon has. */
export const dockerSelfTest: SelfTest = {
  async unavailable() {
    try {
      await (await connectDocker({ attempts: 1 })).ping();
      return null;
    } catch (e) {
      return `no Docker daemon reachable (${errorMessage(e)})`;
    }
  },
  async variants() {
    const { names } = await daemonRuntimes(await connectDocker({ attempts: 1 }));
    return RUNTIMES.filter((r) => names.includes(r));
  },
  config: (agent, runtime) => ({
    agent: { image: agent.image, command: ["/bin/sh", "-c", agent.script] },
    docker: { runtime, network: "none" },
  }),
  async running(suiteId) {
    const docker = await connectDocker({ attempts: 1 });
    const list = await docker.listContainers({
      all: true,
      filters: { label: [`${LABEL.suite}=${suiteId}`] },
    });
    return list.map((c) => c.Names[0] ?? c.Id);
  },
};
