// On a pull request the Docker executor runs the agent under a sandboxing runtime (gVisor's runsc
// or sysbox-runc), unless the workflow sets `allow-runc: true`. Checked before any run, with the
// runtime the executor will pick from the same daemon (docker.runtime, auto by default).
import type Docker from "dockerode";
import type { Config } from "../config/schema.js";
import { UserError } from "../errors.js";
import { connectDocker } from "../execute/docker/client.js";
import { daemonRuntimes, pickRuntime, SANDBOX_RUNTIMES } from "../execute/docker/runtime.js";
import { Inputs } from "./constants.js";
import type { EventInfo } from "./event.js";
import type { Settings } from "./inputs.js";

/** How to get gVisor on a Debian/Ubuntu runner, in one clause. */
export const GET_RUNSC =
  'install gVisor (`apt-get install runsc`) and register it in /etc/docker/daemon.json as `"runtimes": {"runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--network=none"]}}`, then reload dockerd';

/** Why this pull request's agent may not run under the runtime the daemon would give it, or null. */
export function runtimeRefusal(
  config: Pick<Config, "executor">,
  event: Pick<EventInfo, "pr">,
  settings: Pick<Settings, "allowRunc">,
  daemon: { names: string[]; default: string },
): string | null {
  if (!event.pr || config.executor !== "docker" || settings.allowRunc) return null;
  const configured = (config as { docker?: { runtime?: string } }).docker?.runtime;
  const r = pickRuntime(configured, daemon);
  if (r.sandboxed) return null;
  return (
    `refusing to run pull request #${event.pr.number}'s agent under ${r.name}, which is no sandbox ` +
    `(the Docker daemon has ${r.available.join(", ") || "no runtimes listed"}; Medalist needs ${SANDBOX_RUNTIMES.join(" or ")}): ` +
    `${GET_RUNSC}, or set \`${Inputs.AllowRunc}: true\` to accept it`
  );
}

/** Throws the refusal (a UserError) for a pull request whose agent would run under runc. */
export async function checkRuntimeGate(
  config: Pick<Config, "executor">,
  event: Pick<EventInfo, "pr">,
  settings: Pick<Settings, "allowRunc">,
  docker?: Docker,
): Promise<void> {
  if (!event.pr || config.executor !== "docker" || settings.allowRunc) return;
  const d = docker ?? (await connectDocker({ attempts: 3 }));
  const refusal = runtimeRefusal(config, event, settings, await daemonRuntimes(d));
  if (refusal) throw new UserError(refusal);
}
