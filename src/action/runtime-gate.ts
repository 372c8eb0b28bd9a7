// On a pull request the agent runs under a sandbox its executor deems strong enough (docker: gVisor's
// runsc or sysbox-runc, not runc), unless the workflow sets `allow-runc: true`. Checked before any
// run; what is too weak, and why, is the backend's (Backend.weakSandbox: execute/docker/pr-gate.ts).
import type { Config } from "../config/schema.js";
import { configView } from "../config/executors.js";
import { UserError } from "../errors.js";
import { backendOf } from "../execute/backends.js";
import { Inputs } from "./constants.js";
import type { EventInfo } from "./event.js";
import type { Settings } from "./inputs.js";

/** The refusal of this pull request's agent, given why its sandbox is too weak (null: none), or null. */
export function runtimeRefusal(
  event: Pick<EventInfo, "pr">,
  settings: Pick<Settings, "allowRunc">,
  weak: string | null,
): string | null {
  if (!event.pr || settings.allowRunc || weak === null) return null;
  return `refusing to run pull request #${event.pr.number}'s agent ${weak}, or set \`${Inputs.AllowRunc}: true\` to accept it`;
}

/** Throws the refusal (a UserError) for a pull request whose agent would run under a weak sandbox (runc). */
export async function checkRuntimeGate(
  config: Pick<Config, "executor" | "agent">,
  event: Pick<EventInfo, "pr">,
  settings: Pick<Settings, "allowRunc">,
): Promise<void> {
  if (!event.pr || settings.allowRunc) return;
  const weak = backendOf(config.executor).weakSandbox;
  const refusal = runtimeRefusal(
    event,
    settings,
    weak ? await weak(configView(config.executor, config)) : null,
  );
  if (refusal) throw new UserError(refusal);
}
