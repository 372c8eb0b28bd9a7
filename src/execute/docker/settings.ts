import path from "node:path";
import type { DockerSuiteConfig } from "./config.js";
import { runPolicy } from "../../config/run-policy.js";
import { defaultAgentUser } from "../contract.js";

/** What the Docker executor needs from the config, resolved (absolute paths, bytes, seconds). */
export interface DockerSettings {
  /** An existing image tag; used when no build is given. */
  image?: string;
  /** Build the image from a Dockerfile; the result is tagged `build.tag`. */
  build?: {
    context: string;
    dockerfile: string;
    target?: string;
    args: Record<string, string>;
    tag: string;
  };
  /** Pull `image` when it is not on the runner. Default true. */
  pull?: boolean;
  /** The container's command; undefined keeps the image's CMD/ENTRYPOINT. */
  command?: string[];
  limits: { cpus?: number; memory?: number; shmSize?: number; pids?: number };
  network: "bridge" | "none";
  /** Seconds between SIGTERM and SIGKILL at the time limit (config run.stopGraceSecs). */
  stopGraceSecs: number;
  /** Run docker-init as PID 1 (forwards signals, reaps zombies). Default true. */
  init?: boolean;
  /** Keep containers after a run (debugging). Default false. */
  keepContainers?: boolean;
  /** Most bytes of container output written to run.log. Default 256 MiB. */
  logMaxBytes?: number;
  /** Container user "uid[:gid]", or "image" for the image's USER. Default: defaultAgentUser(). */
  user?: string;
  /** Capabilities added back after dropping all. Default none. */
  capAdd?: string[];
  /** Milliseconds between disk-quota checks during a run. Default 1000. */
  quotaPollMs?: number;
  /**
   * Serve `localhost:5000/validate` and `/health` inside each run's network namespace (MLE-bench's
   * endpoint) from a sidecar container that shares it (validate-sidecar.ts). Default false.
   */
  serveLocalhost5000?: boolean;
}

/** The container user to set ("" keeps the image's USER). */
export function containerUser(settings: DockerSettings): string {
  const u = settings.user ?? defaultAgentUser();
  return u === "image" ? "" : u;
}

/** Image tag for built agents: `medalist-agent:<suite name>`. */
export function buildTag(name: string): string {
  const t = name
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, "-")
    .replace(/^[-.]+/, "")
    .slice(0, 100);
  return `medalist-agent:${t || "local"}`;
}

/** Settings from a parsed config; `baseDir` resolves the build context (the config's folder). */
export function dockerSettings(config: DockerSuiteConfig, baseDir: string): DockerSettings {
  const { agent, limits, docker } = config;
  const cmd = agent.command;
  return {
    image: agent.image,
    build: agent.build && {
      context: path.resolve(baseDir, agent.build.context),
      dockerfile: agent.build.dockerfile,
      target: agent.build.target,
      args: agent.build.args,
      tag: agent.image ?? buildTag(config.name),
    },
    command: cmd === undefined ? undefined : typeof cmd === "string" ? ["/bin/sh", "-c", cmd] : cmd,
    limits: { cpus: limits.cpus, memory: limits.memory, shmSize: limits.shmSize, pids: limits.pids },
    network: docker.network,
    stopGraceSecs: runPolicy(config).stopGraceSecs,
    user: docker.user,
    capAdd: docker.capAdd,
  };
}
