import path from "node:path";
import type { DockerSuiteConfig } from "./config.js";
import { runPolicy } from "../../config/run-policy.js";
import { defaultAgentUser } from "../contract.js";
import { MLEBENCH_SHM_BYTES, MLEBENCH_USER } from "../mlebench-container.js";
import { DEFAULT_ROOT } from "./limits.js";
import { configuredWritable } from "../container/writable.js";
import type { ImageSettings } from "../container/settings.js";

/** What the Docker executor needs from the config, resolved (absolute paths, bytes, seconds). */
export interface DockerSettings extends ImageSettings {
  /** The container's command; undefined keeps the image's CMD/ENTRYPOINT. */
  command?: string[];
  /**
   * The image's ENTRYPOINT: "image" keeps it (the command becomes its arguments; the default),
   * "none" bypasses it (the command runs directly), a list replaces it.
   */
  entrypoint?: "image" | "none" | string[];
  /** The OCI runtime the daemon starts the containers with (runsc, sysbox-runc); default the daemon's. */
  runtime?: string;
  /** The run log's line on the runtime (setup sets it: which one and how it was chosen). */
  runtimeNote?: string;
  /** The agent is an MLE-bench agent folder (agent.mlebench): /home is made writable as upstream's entrypoint does. */
  mlebench?: boolean;
  /**
   * A read-only root filesystem (the default): `paths` (absolute, in the container; the agent's
   * HOME is added once the image is known) stay writable with the image's content, together on
   * one filesystem of `bytes`. Undefined: the root stays writable (limits.disk.root: writable).
   */
  readOnlyRoot?: { bytes: number; paths: string[] };
  /** The container's limits; setup fills the unset ones from the runner (limits.ts). */
  limits: { cpus?: number; memory?: number; shmSize?: number; pids?: number; tmp?: number; root?: number };
  /** Seconds between SIGTERM and SIGKILL at the time limit (config run.stopGraceSecs). */
  stopGraceSecs: number;
  /** Run docker-init as PID 1 (forwards signals, reaps zombies). Default true. */
  init?: boolean;
  /** Keep containers after a run (debugging). Default false. */
  keepContainers?: boolean;
  /** Most bytes of container output written to run.log. Default 256 MiB. */
  logMaxBytes?: number;
  /**
   * Container user "uid[:gid]" or a name in the image ("nonroot", "nonroot:group"), or "image" for
   * the image's USER. Default: defaultAgentUser(), or "nonroot" for an MLE-bench agent.
   */
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

/**
 * One line for the run's log when the image has an ENTRYPOINT: whether it runs, is bypassed or
 * replaced. Null for an image without one.
 */
export function entrypointNote(entrypoint: string[] | null, settings: DockerSettings): string | null {
  if (!entrypoint || entrypoint.length === 0) return null;
  const ep = JSON.stringify(entrypoint);
  const mode = settings.entrypoint ?? "image";
  const cmd = settings.command ? settings.command.join(" ") : "the image's CMD";
  if (mode === "image")
    return settings.command
      ? `the image's ENTRYPOINT ${ep} runs, with the command as its arguments (docker.entrypoint: none runs the command directly)`
      : `the image's ENTRYPOINT ${ep} runs`;
  if (mode === "none") {
    const why = settings.mlebench
      ? " (MLE-bench's entrypoint starts a grading server that needs the answers, which never enter the container)"
      : "";
    return `the image's ENTRYPOINT ${ep} does not run${why}; docker.entrypoint: none runs ${cmd} directly`;
  }
  return `the image's ENTRYPOINT ${ep} is replaced by ${JSON.stringify(mode)} (docker.entrypoint)`;
}

/** The create options' Entrypoint: undefined keeps the image's, [] bypasses it. */
export function entrypointOption(settings: DockerSettings): string[] | undefined {
  const mode = settings.entrypoint ?? "image";
  if (mode === "image") return undefined;
  return mode === "none" ? [] : [...mode];
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
  const mlebench = agent.mlebench !== undefined;
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
    limits: {
      cpus: limits.cpus,
      memory: limits.memory,
      shmSize: limits.shmSize ?? (mlebench ? MLEBENCH_SHM_BYTES : undefined),
      pids: limits.pids,
      tmp: limits.disk.tmp,
    },
    readOnlyRoot:
      limits.disk.root === "writable"
        ? undefined
        : {
            bytes: limits.disk.root ?? DEFAULT_ROOT,
            paths: configuredWritable(limits.disk.writable, mlebench),
          },
    network: docker.network,
    buildNetwork: docker.buildNetwork,
    stopGraceSecs: runPolicy(config).stopGraceSecs,
    user: docker.user ?? (mlebench ? MLEBENCH_USER : undefined),
    capAdd: docker.capAdd,
    entrypoint: docker.entrypoint ?? (mlebench ? "none" : undefined),
    runtime: docker.runtime === "auto" ? undefined : docker.runtime,
    mlebench,
    serveLocalhost5000: mlebench,
  };
}
