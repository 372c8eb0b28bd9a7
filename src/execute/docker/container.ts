import os from "node:os";
import type Docker from "dockerode";
import { runPaths, type RunSpec } from "../types.js";
import { containerUser, entrypointOption, type DockerSettings } from "./settings.js";
import { CONTAINER_PATHS, contractEnv, runName } from "../contract.js";
import { isGvisor } from "./runtime.js";
import { TMP_DIRS } from "../container/writable.js";

export { CONTAINER_PATHS };

/** Labels on every container Medalist starts; cleanup finds containers by these. */
export const LABEL = {
  suite: "medalist.suite",
  run: "medalist.run",
  competition: "medalist.competition",
  seed: "medalist.seed",
  /** "<hostname>:<pid>" of the process that owns the container. */
  owner: "medalist.owner",
  /** Epoch ms after which the owner would have killed it: a later sweep may remove it. */
  deadline: "medalist.deadline",
  /** On a run's volumes: the runner folder holding their filesystem (folder-fs.ts scratchFs). */
  scratch: "medalist.scratch",
} as const;

export const VALIDATION_URL_VAR = "MEDALIST_VALIDATION_URL";

export function ownerLabel(): string {
  return `${os.hostname()}:${process.pid}`;
}

/** A valid, unique Docker name for a run (the same name a Slurm job gets). */
export const containerName = runName;

/** The container's whole environment: the contract's variables and spec.env, nothing else. */
export function containerEnv(spec: RunSpec, network: DockerSettings["network"]): string[] {
  const env: Record<string, string> = {
    ...spec.env,
    ...contractEnv(spec, CONTAINER_PATHS),
  };
  // With no network the endpoint cannot be reached: don't advertise it.
  if (spec.validationUrl && network !== "none") env[VALIDATION_URL_VAR] = spec.validationUrl;
  else delete env[VALIDATION_URL_VAR];
  return Object.entries(env).map(([k, v]) => `${k}=${v}`);
}

/** Create options for one run's container (pure: no Docker calls). */
export function containerOptions(
  spec: RunSpec,
  settings: DockerSettings,
  image: string,
  opts: {
    owner?: string;
    now?: number;
    /** Named volumes (the writable places of a read-only root), each mounted at its target. */
    volumes?: { name: string; target: string }[];
  } = {},
): Docker.ContainerCreateOptions {
  const p = runPaths(spec.runDir);
  const { limits } = settings;
  const now = opts.now ?? Date.now();
  const deadline = now + (spec.timeLimitSecs + settings.stopGraceSecs + 300) * 1000;
  const bind = (Source: string, Target: string, ReadOnly: boolean) => ({
    Type: "bind" as const,
    Source,
    Target,
    ReadOnly,
  });
  const hostConfig: Docker.HostConfig = {
    Mounts: [
      bind(spec.publicDir, CONTAINER_PATHS.data, true),
      bind(p.submissionDir, CONTAINER_PATHS.submission, false),
      bind(p.logsDir, CONTAINER_PATHS.logs, false),
      bind(p.codeDir, CONTAINER_PATHS.code, false),
      bind(p.instructionsFile, CONTAINER_PATHS.instructions, true),
      // Docker copies the image's files at the target into an empty volume before the start.
      ...(opts.volumes ?? []).map((v) => ({
        Type: "volume" as const,
        Source: v.name,
        Target: v.target,
        ReadOnly: false,
      })),
    ],
    // Writes go to the mounts above, /tmp, /var/tmp and /dev/shm; elsewhere they fail (EROFS).
    ReadonlyRootfs: settings.readOnlyRoot !== undefined,
    NetworkMode: settings.network,
    Privileged: false,
    // The agent is hostile: no capabilities (no mknod, setuid, chown, raw sockets, …) unless added
    // back by name, and no privilege gained through setuid files or file capabilities.
    CapDrop: ["ALL"],
    CapAdd: settings.capAdd && settings.capAdd.length > 0 ? [...settings.capAdd] : undefined,
    SecurityOpt: ["no-new-privileges:true"],
    Init: settings.init ?? true,
    AutoRemove: false,
    // Container output is also streamed to run.log; keep the daemon's copy bounded.
    LogConfig: { Type: "json-file", Config: { "max-size": "50m", "max-file": "2" } },
  };
  if (limits.cpus !== undefined) hostConfig.NanoCpus = Math.round(limits.cpus * 1e9);
  if (limits.memory !== undefined) {
    hostConfig.Memory = limits.memory;
    hostConfig.MemorySwap = limits.memory; // no swap: past the limit is out of memory
  }
  if (limits.shmSize !== undefined) hostConfig.ShmSize = limits.shmSize;
  if (limits.pids !== undefined) hostConfig.PidsLimit = limits.pids;
  // The agent's scratch folders are in-memory and sized: a writer gets "no space left" at the size.
  if (limits.tmp !== undefined) {
    const tmpfs = `rw,nosuid,nodev,size=${limits.tmp},mode=1777`;
    if (isGvisor(settings.runtime))
      // gVisor keeps a container tmpfs inside its sandbox, out of the runner's sight: a tmpfs the
      // daemon mounts on the runner instead (an anonymous volume, removed with the container), so
      // the limit watch can see it fill. Still in memory, and counted in the container's memory.
      hostConfig.Mounts!.push(
        ...TMP_DIRS.map((Target) => ({
          Type: "volume" as const,
          Source: "", // anonymous
          Target,
          ReadOnly: false,
          VolumeOptions: {
            NoCopy: true,
            Labels: {},
            DriverConfig: {
              Name: "local",
              Options: { type: "tmpfs", device: "tmpfs", o: `size=${limits.tmp},mode=1777,nosuid,nodev` },
            },
          },
        })),
      );
    else hostConfig.Tmpfs = { [TMP_DIRS[0]]: tmpfs, [TMP_DIRS[1]]: tmpfs };
  }
  // The writable layer, where the storage driver can bound it (setup checks; else unset, said once).
  if (limits.root !== undefined && !settings.readOnlyRoot)
    hostConfig.StorageOpt = { size: String(limits.root) };
  if (settings.runtime !== undefined) hostConfig.Runtime = settings.runtime;
  if (spec.gpus.length > 0) {
    hostConfig.DeviceRequests = [{ Driver: "nvidia", DeviceIDs: [...spec.gpus], Capabilities: [["gpu"]] }];
  }
  return {
    name: containerName(spec.suiteId, spec.runId),
    Image: image,
    User: containerUser(settings) || undefined,
    Entrypoint: entrypointOption(settings),
    Cmd: settings.command,
    Env: containerEnv(spec, settings.network),
    Labels: {
      [LABEL.suite]: spec.suiteId,
      [LABEL.run]: spec.runId,
      [LABEL.competition]: spec.competitionId,
      [LABEL.seed]: String(spec.seed),
      [LABEL.owner]: opts.owner ?? ownerLabel(),
      [LABEL.deadline]: String(deadline),
    },
    Tty: false,
    OpenStdin: false,
    AttachStdin: false,
    AttachStdout: false,
    AttachStderr: false,
    StopTimeout: settings.stopGraceSecs,
    HostConfig: hostConfig,
  };
}
