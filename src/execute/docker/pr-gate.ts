// On a pull request the docker executor runs the agent under a sandboxing runtime (gVisor's runsc
// or sysbox-runc): the runtime it would pick from the daemon (docker.runtime, auto by default),
// when that is no sandbox, is why the action refuses the run (unless the workflow accepts it).
import type Docker from "dockerode";
import type { DockerConfig } from "../../config/blocks/docker.js";
import { connectDocker } from "./client.js";
import { daemonRuntimes, pickRuntime, SANDBOX_RUNTIMES } from "./runtime.js";

/** How to get gVisor on a Debian/Ubuntu runner, in one clause. */
export const GET_RUNSC =
  'install gVisor (`apt-get install runsc`) and register it in /etc/docker/daemon.json as `"runtimes": {"runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--network=none"]}}`, then reload dockerd';

/**
 * "under runc, which is no sandbox (…): install gVisor …" where the runtime picked from the
 * daemon's is no sandbox, or null.
 */
export function weakRuntime(
  configured: string | undefined,
  daemon: { names: string[]; default: string },
): string | null {
  const r = pickRuntime(configured, daemon);
  if (r.sandboxed) return null;
  return (
    `under ${r.name}, which is no sandbox ` +
    `(the Docker daemon has ${r.available.join(", ") || "no runtimes listed"}; Medalist needs ${SANDBOX_RUNTIMES.join(" or ")}): ` +
    GET_RUNSC
  );
}

/** weakRuntime with the runtimes of the daemon (default: DOCKER_HOST or the local socket). */
export async function weakRuntimeOf(
  block: DockerConfig | undefined,
  docker?: Docker,
): Promise<string | null> {
  const d = docker ?? (await connectDocker({ attempts: 3 }));
  return weakRuntime(block?.runtime, await daemonRuntimes(d));
}
