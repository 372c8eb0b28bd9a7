// Which OCI runtime the agent's containers run under. `docker.runtime: auto` (the default) takes a
// sandboxing runtime when the daemon has one registered: gVisor's runsc (its own kernel in user
// space between the agent and the runner's kernel), else sysbox-runc; else the plain runc.
import type Docker from "dockerode";
import { UserError } from "../../errors.js";
import { errorMessage } from "../../util/error-message.js";

/** The runtimes `auto` prefers, best first: each puts more than namespaces between agent and kernel. */
export const SANDBOX_RUNTIMES = ["runsc", "sysbox-runc"] as const;

/** What runs the agent's containers, and how it was chosen. */
export interface PickedRuntime {
  /** The runtime's name as registered with the daemon. */
  name: string;
  /** True for runsc and sysbox-runc. */
  sandboxed: boolean;
  /** "auto" when docker.runtime is auto (or unset), else "config". */
  how: "auto" | "config";
  /** The runtimes the daemon lists, sorted. */
  available: string[];
}

export const isSandboxRuntime = (name: string): boolean =>
  (SANDBOX_RUNTIMES as readonly string[]).includes(name);

/** True for gVisor's runtime (its own network stack: the agent's loopback is the sandbox's own). */
export const isGvisor = (name: string | undefined): boolean => /runsc|gvisor/i.test(name ?? "");

/** The runtimes the daemon lists and its default. */
export async function daemonRuntimes(docker: Docker): Promise<{ names: string[]; default: string }> {
  let info: { Runtimes?: Record<string, unknown>; DefaultRuntime?: string };
  try {
    info = (await docker.info()) as typeof info;
  } catch (e) {
    throw new UserError(
      `docker.runtime: cannot ask the Docker daemon for its runtimes (${errorMessage(e)})`,
      1,
    );
  }
  return { names: Object.keys(info.Runtimes ?? {}).sort(), default: info.DefaultRuntime || "runc" };
}

/** The runtime for `configured` (undefined or "auto": the best the daemon has), or a UserError. */
export function pickRuntime(
  configured: string | undefined,
  daemon: { names: string[]; default: string },
): PickedRuntime {
  const available = daemon.names;
  if (configured !== undefined && configured !== "auto") {
    if (!available.includes(configured))
      throw new UserError(
        `docker.runtime: ${configured} is not a runtime of this Docker daemon (it has ${available.join(", ") || "none listed"}); ` +
          `install ${configured} and register it under "runtimes" in /etc/docker/daemon.json, or leave docker.runtime out`,
        1,
      );
    return { name: configured, sandboxed: isSandboxRuntime(configured), how: "config", available };
  }
  const best = SANDBOX_RUNTIMES.find((r) => available.includes(r));
  if (best) return { name: best, sandboxed: true, how: "auto", available };
  const plain = available.includes("runc") ? "runc" : daemon.default;
  return { name: plain, sandboxed: isSandboxRuntime(plain), how: "auto", available };
}

/** The one line a suite log and each run's log say about the runtime. */
export function runtimeNote(r: PickedRuntime): string {
  const what =
    r.name === "runsc"
      ? "gVisor: the agent's system calls go to gVisor's kernel, not the runner's"
      : r.name === "sysbox-runc"
        ? "Sysbox: the agent's root is an unprivileged user on the runner"
        : "no sandbox beyond the container's namespaces: the agent's system calls reach the runner's kernel";
  const chosen =
    r.how === "auto"
      ? `chosen by docker.runtime: auto from the daemon's ${r.available.join(", ") || "none listed"}`
      : "set by docker.runtime";
  return `runtime: ${r.name} (${what}; ${chosen})`;
}
