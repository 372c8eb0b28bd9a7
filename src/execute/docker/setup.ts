import { writeFileSync } from "node:fs";
import os from "node:os";
import type Docker from "dockerode";
import type { DockerSuiteConfig } from "./config.js";
import { UserError } from "../../errors.js";
import { detectGpus, type GpuDetection } from "../gpu.js";
import type { Resources } from "../scheduler.js";
import { startValidationServer, type ValidationServer } from "../validation-server.js";
import { startValidationServerForDocker } from "./gateway.js";
import { connectDocker, type ConnectOptions } from "./client.js";
import { errorMessage } from "../../util/error-message.js";
import { DockerExecutor } from "./executor.js";
import { writablePlaces } from "../container/writable.js";
import { AgentBuildError, ImageMissingError, type ImageInfo } from "../container/image.js";
import { dockerSettings } from "./settings.js";
import { DEFAULT_ROOT, limitsNote, memoryReserve, runLimits, sizeText } from "./limits.js";
import { folderFsProblem } from "./folder-fs.js";
import { sidecarRoot } from "../container/validate-sidecar.js";
import { UserLookupError } from "./image-user.js";
import { daemonRuntimes, isGvisor, pickRuntime, runtimeNote, type PickedRuntime } from "./runtime.js";

export interface DockerSetup {
  docker: Docker;
  executor: DockerExecutor;
  /** The OCI runtime the containers run under (docker.runtime, auto: the best the daemon has). */
  runtime: PickedRuntime;
  image: ImageInfo;
  gpus: GpuDetection;
  /** Format checks for agents; null with network "none" or when it could not start. */
  validation: ValidationServer | null;
  /** For schedule(): this runner's GPUs, runs at once, CPU budget. */
  resources: Resources;
  /** What each run reserves: pass as the SchedTask's gpus and cpus. */
  perRun: { gpus: number; cpus?: number };
  close(): Promise<void>;
}

export interface SetupOptions {
  /** The config file's folder: resolves agent.build.context. */
  baseDir: string;
  log?: (line: string) => void;
  connect?: ConnectOptions;
  /** Start the format-validation server (default true). */
  validation?: boolean;
  /** Host CPUs (default os.availableParallelism()). */
  hostCpus?: number;
  /** Where to keep the image build's output (agent.build), besides the suite log. */
  buildLogFile?: string;
  /** Give each run's folders their own filesystem where the runner can (default true). */
  folderFilesystems?: boolean;
  /** Host memory in bytes (default os.totalmem()). */
  hostMemory?: number;
}

/** Most bytes of build output kept in the build log file. */
const MAX_BUILD_LOG = 16 * 1024 ** 2;

/** How many runs fit at once: by GPUs when runs need them, else by CPUs, else `concurrency`. */
export function dockerResources(
  config: DockerSuiteConfig,
  gpuIds: string[],
  hostCpus: number,
): { resources: Resources; perRun: DockerSetup["perRun"] } {
  const { cpus } = config.limits;
  // "all": each run gets every GPU of this runner (so runs with GPUs never overlap).
  const gpus = config.limits.gpus === "all" ? gpuIds.length : config.limits.gpus;
  if (gpus > gpuIds.length) {
    throw new UserError(
      `each run needs ${gpus} GPU(s) (limits.gpus) but this runner has ${gpuIds.length}`,
      1,
    );
  }
  if (cpus !== undefined && cpus > hostCpus) {
    throw new UserError(`each run needs ${cpus} CPU(s) (limits.cpus) but this runner has ${hostCpus}`, 1);
  }
  let maxParallel = config.concurrency;
  if (gpus > 0) maxParallel = Math.floor(gpuIds.length / gpus);
  else if (cpus !== undefined) maxParallel = Math.max(1, Math.floor(hostCpus / cpus));
  return {
    resources: { gpuIds, maxParallel, cpus: cpus !== undefined ? hostCpus : undefined },
    perRun: { gpus, cpus },
  };
}

/** A UserError unless the daemon has the OCI runtime `name` registered. */
export async function checkRuntime(docker: Docker, name: string): Promise<void> {
  pickRuntime(name, await daemonRuntimes(docker));
}

/**
 * Everything the suite needs before its first Docker run, in order: a daemon that answers (ping
 * with backoff, one clear error), GPUs detected, the agent image found or built (digest
 * recorded), the validation server started. (Crashed suites' containers: the descriptor's sweep.)
 */
export async function setupDocker(config: DockerSuiteConfig, opts: SetupOptions): Promise<DockerSetup> {
  const log = opts.log ?? (() => {});
  const docker = await connectDocker(opts.connect);

  const gpus = await detectGpus({ gpuIds: config.docker.gpuIds });
  if (gpus.ids.length > 0)
    log(`GPUs: ${gpus.ids.join(", ")} (${gpus.model ?? "model unknown"}, from ${gpus.source})`);
  const hostCpus = opts.hostCpus ?? os.availableParallelism();
  const { resources, perRun } = dockerResources(config, gpus.ids, hostCpus);
  if (config.limits.gpus === "all")
    log(
      gpus.ids.length > 0
        ? `limits.gpus: all: each run gets all ${gpus.ids.length} GPU(s), so runs go one at a time`
        : "limits.gpus: all: this runner has no GPU, so the runs get none",
    );

  const runtime = pickRuntime(config.docker.runtime, await daemonRuntimes(docker));
  log(runtimeNote(runtime));
  const settings = dockerSettings(config, opts.baseDir);
  settings.runtime = runtime.name;
  settings.runtimeNote = runtimeNote(runtime);
  // Every container gets memory, CPU, pids and /tmp limits: the config's, else derived from the runner.
  const shape = {
    totalMem: opts.hostMemory ?? os.totalmem(),
    cpus: hostCpus,
    parallel: resources.maxParallel,
    mlebench: settings.mlebench,
  };
  const l = config.limits;
  const limits = runLimits(l, shape);
  settings.limits = limits;
  const set = { cpus: l.cpus, memory: l.memory, pids: l.pids, tmp: l.disk.tmp };
  log(limitsNote(limits, mapSet(set), shape));
  // One build at a time, before the runs: the runner less its reserve, its CPUs.
  settings.buildLimits = { memory: shape.totalMem - memoryReserve(shape.totalMem), cpus: hostCpus };
  // The build's output goes to the suite log and, with buildLogFile, to its own file (bounded).
  const built: string[] = [];
  let builtBytes = 0;
  const executor = new DockerExecutor(docker, settings, {
    log: (line) => {
      log(line);
      if (builtBytes < MAX_BUILD_LOG) {
        built.push(line);
        builtBytes += line.length + 1;
      }
    },
  });
  // Folder quotas the kernel enforces where the runner can mount a filesystem; else the poll, said once.
  const fsProblem = opts.folderFilesystems === false ? "turned off" : await folderFsProblem();
  executor.folderFilesystems = fsProblem === null;
  if (fsProblem !== null)
    log(
      `folder quotas (limits.disk) are polled, not enforced by the kernel (${fsProblem}): an agent that writes faster than one check a second can pass its quota by that much before it is stopped`,
    );
  let image: ImageInfo;
  const keepBuildLog = () => {
    if (!opts.buildLogFile || !settings.build) return;
    const cut = builtBytes >= MAX_BUILD_LOG ? [`(cut at ${MAX_BUILD_LOG} bytes)`] : [];
    try {
      writeFileSync(opts.buildLogFile, [...built, ...cut].join("\n") + "\n", { mode: 0o600 });
    } catch (e) {
      log(`could not keep the build log at ${opts.buildLogFile}: ${errorMessage(e)}`);
    }
  };
  try {
    image = await executor.prepareImage();
    keepBuildLog();
  } catch (e) {
    keepBuildLog();
    if (e instanceof AgentBuildError) throw e;
    // A missing image is the config's to fix: the suite stops before any run, exit code 2.
    if (e instanceof ImageMissingError) throw new UserError(e.message);
    throw new UserError(errorMessage(e), e instanceof UserLookupError ? 2 : 1);
  }
  log(`agent image ${image.ref} (${image.digest})`);
  const ro = executor.settings.readOnlyRoot;
  if (ro) {
    // A read-only root: its writable places share one filesystem per run, bounded where it can be mounted.
    log(
      `read-only root filesystem; writable: ${writablePlaces(ro.paths).join(", ")}` +
        (ro.paths.length === 0
          ? ""
          : fsProblem === null
            ? ` (${ro.paths.join(", ")} together limits.disk.root ${sizeText(ro.bytes)}, their own filesystem per run)`
            : `; ${ro.paths.join(", ")} are a plain folder per run on the runner's disk, not size-bounded (${fsProblem})`),
    );
  } else {
    // limits.disk.root: writable: the writable layer, bounded where the storage driver can; else said once.
    const rootProblem = await rootQuotaProblem(docker, image.id);
    if (rootProblem === null) executor.settings.limits.root = DEFAULT_ROOT;
    else
      log(
        `limits.disk.root: writable: the containers' root filesystems are writable and not size-bounded (the daemon says: ${rootProblem}); /tmp, /var/tmp and the run's folders are`,
      );
  }

  const local = executor.settings.serveLocalhost5000 === true;
  let validation: ValidationServer | null = null;
  if (opts.validation !== false && (config.docker.network !== "none" || local)) {
    try {
      // With network none only the sidecars' unix sockets are reached: loopback is enough.
      validation =
        config.docker.network === "none"
          ? await startValidationServer()
          : await startValidationServerForDocker(docker);
      log(`format checks for agents at ${validation.url}`);
    } catch (e) {
      log(`warning: no format-validation endpoint for agents (${errorMessage(e)})`);
    }
  }
  const sockets = local && validation ? sidecarRoot() : null;
  if (sockets && validation) {
    executor.localValidate = { server: validation, root: sockets.dir };
    log(
      "localhost:5000/validate and /health: Medalist's format check, " +
        (isGvisor(runtime.name)
          ? "from a relay Medalist starts in each run's gVisor sandbox "
          : "from a sidecar sharing each run's network ") +
        "(each run's log says whether it is served)" +
        (config.docker.network === "none" ? "; with network none the agent reaches nothing else" : ""),
    );
  }
  return {
    docker,
    executor,
    runtime,
    image,
    gpus,
    validation,
    resources,
    perRun,
    close: async () => {
      await validation?.close();
      sockets?.remove();
    },
  };
}

const mapSet = <K extends string>(o: Record<K, unknown>) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v !== undefined])) as Record<K, boolean>;

/** Null when the daemon can bound a container's writable layer (StorageOpt size), else its words why not. */
export async function rootQuotaProblem(docker: Docker, image: string): Promise<string | null> {
  try {
    const probe = await docker.createContainer({
      Image: image,
      Entrypoint: ["true"],
      Cmd: [],
      Labels: { "medalist.role": "storage-probe" },
      HostConfig: { StorageOpt: { size: "1G" }, NetworkMode: "none" },
    });
    await probe.remove({ force: true }).catch(() => {});
    return null;
  } catch (e) {
    return errorMessage(e)
      .split("\n")[0]
      .replace(/^\(HTTP code \d+\)[^-]*- /, "")
      .trim();
  }
}
