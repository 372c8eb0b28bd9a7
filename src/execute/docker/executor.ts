import type Docker from "dockerode";
import { createHash } from "node:crypto";
import { chmodSync, chownSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { runPaths, type RunSpec } from "../types.js";
import { type AgentHandle, type AttemptContext, type AttemptDriver, type ExitFacts } from "../attempt.js";
import { statusCode } from "./client.js";
import { errorMessage } from "../../util/error-message.js";
import { sleep } from "../../util/sleep.js";
import {
  CONTAINER_PATHS,
  containerName,
  containerOptions,
  LABEL,
  ownerLabel,
  VALIDATION_URL_VAR,
} from "./container.js";
import { mountFolder, scratchFs, type MountedFolder, type ScratchFs } from "./folder-fs.js";
import {
  checkLimits,
  foldersFull,
  pidsEventsFile,
  pidsHit,
  rootFull,
  type LimitHit,
  type LimitWatchInput,
} from "./kernel-limits.js";
import { DEFAULT_QUOTA } from "../quota.js";
import { AgentBuildError, ImageMissingError, prepareImage, type ImageInfo } from "../container/image.js";
import { demux } from "./demux.js";
import type { ValidationServer } from "../validation-server.js";
import { serveLocalhost5000 } from "../container/validate-sidecar.js";
import { startExecRelay, type ExecRelay } from "../container/validate-relay.js";
import { isGvisor } from "./runtime.js";
import { kernelLimitEvents } from "./kernel-log.js";
import { containerUser, entrypointNote, type DockerSettings } from "./settings.js";
import { withWritableHome } from "../container/home-layer.js";
import { reservedHome, TMP_DIRS, writablePlaces } from "../container/writable.js";
import { helperEngine, imageEngine } from "./engine.js";
import { imageHas, imageHome, imageUser, UserLookupError } from "./image-user.js";
import { sizeText } from "./limits.js";
import type { DaemonWatch } from "./daemon-watch.js";

/** The folder the agent sees for each of the run's writable folders. */
const CONTAINER_FOLDER: Record<string, string> = {
  submission: CONTAINER_PATHS.submission,
  logs: CONTAINER_PATHS.logs,
  code: CONTAINER_PATHS.code,
};

/** The writable places of a read-only root for one run: a volume each, on one filesystem. */
interface RootArea {
  fs: ScratchFs;
  volumes: string[];
  /** Whether `fs` is its own filesystem of limits.disk.root (else a plain folder). */
  bounded: boolean;
}

/** What the agent's command waits for under gVisor (/dev/shm: a tmpfs of the container's own, writable under a read-only root). */
const RELAY_MARK = "/dev/shm/.medalist-relay-listens";

/**
 * Under gVisor the relay starts after the container does: the agent's command first waits (at
 * most 30 s) for RELAY_MARK, which Medalist writes once the relay listens (or failed to start).
 */
const RELAY_WAIT = `i=0; while [ ! -e ${RELAY_MARK} ] && [ $i -lt 300 ]; do sleep 0.1 2>/dev/null || sleep 1; i=$((i+1)); done; exec "$@"`;

/**
 * Makes the container's command wait for the relay (changes `opts`); false, changing nothing, when
 * the command is the image's CMD (not known here).
 */
function waitForRelay(opts: Docker.ContainerCreateOptions, imageEntrypoint: string[] | null): boolean {
  if (!opts.Cmd || opts.Cmd.length === 0) return false;
  const entry = opts.Entrypoint === undefined ? (imageEntrypoint ?? []) : opts.Entrypoint;
  opts.Entrypoint = [
    "/bin/sh",
    "-c",
    RELAY_WAIT,
    "medalist-wait",
    ...(Array.isArray(entry) ? entry : [entry]),
  ];
  return true;
}

/** Lets the waiting agent command go on. */
async function releaseAgent(container: Docker.Container): Promise<void> {
  const exec = await container.exec({
    Cmd: ["/bin/sh", "-c", `: > ${RELAY_MARK}`],
    AttachStdout: false,
    AttachStderr: false,
  });
  await exec.start({ Detach: true });
}

/** The cause of a run the kernel stopped for memory: the limit and its value. */
export function oomCause(memory: number | undefined): string {
  return memory === undefined
    ? "oom: out of memory (no memory limit)"
    : `oom: memory limit ${sizeText(memory)}`;
}

/** How the kernel limits read under gVisor (measured on Debian's runsc, docs/docker.md). */
export const GVISOR_LIMITS =
  "under gVisor the limits hold but some read differently: limits.pids counts the sandbox's own processes and threads on " +
  "the runner (about 40 at rest, more with more mounts), not the agent's processes one for one, and the sandbox dies when " +
  "the kernel refuses it a fork; a sandbox killed at its memory limit or past limits.pids is named from the kernel's log, " +
  "where the runner can read it (root)";

/** A run's localhost:5000: a sidecar (runc) or a relay started in the agent's sandbox (gVisor). */
interface LocalEndpoint {
  /** Run once the agent's container started. */
  afterStart?(container: Docker.Container): Promise<void>;
  /** Never throws. */
  stop(): Promise<void>;
}

/** What an agent in MLE-bench mode posts to (validate-sidecar.ts serves it). */
export const LOCAL_VALIDATE_URL = "http://localhost:5000/validate";

export interface DockerExecutorOptions {
  /** Suite-level messages: image build output. Default: none. */
  log?: (line: string) => void;
  /** Owner label ("<host>:<pid>"); default this process. */
  owner?: string;
}

/**
 * Runs each (competition, seed) in its own container, following the agent contract. The driver
 * creates, starts, stops and removes the container; everything else an attempt does is
 * runAttempt's. An infrastructure error says whether it is worth another attempt.
 */
export class DockerExecutor {
  readonly name = "docker";
  private image: Promise<ImageInfo> | null = null;
  /** The container user as "uid:gid" once the image is known (names resolved in it); "" the image's. */
  private user: string | null = null;
  /** Under gVisor with localhost:5000 served: whether the image has /bin/sh (the agent's wait for the relay runs in it). */
  private shell = true;
  private readonly log: (line: string) => void;
  private readonly owner: string;
  /**
   * Each run's writable folders get their own filesystem of the quota's size (folder-fs.ts). Setup
   * turns it on where the runner can mount one; off, the poll is the only bound.
   */
  folderFilesystems = false;
  /** Set by setup with serveLocalhost5000: the format-check server and the suite's socket folder. */
  localValidate: { server: ValidationServer; root: string } | null = null;
  /**
   * Set by the backend: the suite's view of the daemon (its event stream), so a container the
   * daemon stopped is not the agent's failure and a lost daemon is waited for, within a bound.
   */
  daemon: DaemonWatch | null = null;
  /** Milliseconds between checks that a container the wait call still waits for is running. */
  alivePollMs = 5000;

  constructor(
    readonly docker: Docker,
    readonly settings: DockerSettings,
    opts: DockerExecutorOptions = {},
  ) {
    this.log = opts.log ?? (() => {});
    this.owner = opts.owner ?? ownerLabel();
  }

  /**
   * Builds or finds the agent image once (later calls share the result; a failure is retried),
   * with /home made writable for an MLE-bench agent, and resolves docker.user in it.
   */
  prepareImage(): Promise<ImageInfo> {
    this.image ??= this.prepare().catch((e) => {
      this.image = null;
      throw e;
    });
    return this.image;
  }

  private async prepare(): Promise<ImageInfo> {
    let image = await prepareImage(imageEngine(this.docker), this.settings, this.log);
    if (this.settings.mlebench)
      image = await withWritableHome(imageEngine(this.docker), image, this.log, this.settings.buildLimits);
    const user = containerUser(this.settings);
    try {
      this.user = await imageUser(this.docker, image.id, user);
    } catch (e) {
      // An image built from the agent's own Dockerfile without that user: the agent's failure.
      if (e instanceof UserLookupError && this.settings.build)
        throw new AgentBuildError(e.message, "the agent image cannot run");
      throw e;
    }
    if (this.user !== user) this.log(`container user ${user} is ${this.user} in the image`);
    if (isGvisor(this.settings.runtime) && this.settings.serveLocalhost5000)
      this.shell = await imageHas(this.docker, image.id, "/bin/sh").catch(() => true);
    // Under a read-only root the container user's HOME stays writable (pip, conda, ~/.cache).
    const ro = this.settings.readOnlyRoot;
    if (ro) {
      const home = await imageHome(this.docker, image.id, this.user).catch(() => null);
      if (home !== null && !ro.paths.includes(home) && !reservedHome(home)) ro.paths = [...ro.paths, home];
    }
    return image;
  }

  /** The settings a container is created with: the user resolved in the image. */
  private runSettings(): DockerSettings {
    return this.user === null ? this.settings : { ...this.settings, user: this.user };
  }

  driver(): AttemptDriver {
    return {
      graceSecs: this.settings.stopGraceSecs,
      lostAfterKillSecs: 25,
      quotaPollMs: this.settings.quotaPollMs,
      logMaxBytes: this.settings.logMaxBytes,
      agentUser: containerUser(this.runSettings()),
      start: (spec, ctx) => this.start(spec, ctx),
    };
  }

  private async start(spec: RunSpec, ctx: AttemptContext): Promise<AgentHandle | { ended: ExitFacts }> {
    const infra = (error: string, retryable = true) => ({
      ended: { code: null, infra: { error, retryable } },
    });
    // A call the daemon's socket did not answer: wait for it (within run.reconnectSecs) before the
    // attempt is given back, so that a daemon gone for good ends in the watch's one sentence.
    const failed = async (error: string, e: unknown, retryable = true) => {
      if (!this.daemon) return infra(error, retryable);
      // A daemon answering 5xx may be shutting down: if it no longer answers a ping, it is gone.
      const sign =
        (statusCode(e) ?? 0) >= 500
          ? await this.docker.ping().then(
              () => e,
              (p: unknown) => p,
            )
          : e;
      if (!this.daemon.unreachable(sign)) return infra(error, retryable);
      const gone = await this.daemon.ready();
      return gone ? infra(gone, false) : infra(error, true);
    };
    // A daemon that went away is waited for (up to run.reconnectSecs) before anything is asked of it.
    const gone = await this.daemon?.ready();
    if (gone) return infra(gone, false);
    let image: ImageInfo;
    try {
      image = await this.prepareImage();
    } catch (e) {
      return failed(errorMessage(e), e, !(e instanceof ImageMissingError || e instanceof UserLookupError));
    }
    const { details } = ctx;
    Object.assign(details, { image: image.ref, imageId: image.id, imageDigest: image.digest });
    const ro = this.settings.readOnlyRoot;
    const volumes = (ro?.paths ?? []).map((target, i) => ({
      name: `${containerName(spec.suiteId, spec.runId)}-w${i}`,
      target,
    }));
    const opts = containerOptions(spec, this.runSettings(), image.id, { owner: this.owner, volumes });
    const name = opts.name!;
    details.container = name;
    if (spec.gpus.length > 0) details.gpus = spec.gpus.join(",");
    ctx.note(`attempt ${ctx.attempt}: container ${name}, image ${image.ref} (${image.digest})`);
    if (this.settings.runtimeNote) ctx.note(this.settings.runtimeNote);
    if (isGvisor(this.settings.runtime)) ctx.note(GVISOR_LIMITS);
    details.runtime = this.settings.runtime ?? "the daemon's default";
    const entry = entrypointNote(image.entrypoint ?? null, this.settings);
    if (entry) ctx.note(entry);
    const folders = await this.mountFolders(spec, ctx);
    const unmount = () => this.unmountFolders(folders, ctx);
    let root: RootArea | null = null;
    try {
      root = await this.rootArea(ctx, volumes, opts.Labels ?? {});
    } catch (e) {
      await unmount();
      return failed(`creating the writable places of the read-only root failed: ${errorMessage(e)}`, e);
    }
    const dropRoot = () => this.dropRootArea(root, ctx);
    const sidecar = await this.sidecarFor(spec, ctx, opts, image);
    let container: Docker.Container;
    // Which daemon connection the container starts under: another one at its end is a restart.
    const epoch = this.daemon?.epoch ?? 0;
    try {
      await this.removeByName(name);
      container = await this.docker.createContainer(opts);
    } catch (e) {
      await sidecar?.stop();
      await unmount();
      await dropRoot();
      return failed(`creating the container failed: ${errorMessage(e)}`, e, statusCode(e) !== 400);
    }
    details.containerId = container.id;
    const watch: { timer?: NodeJS.Timeout } = {};
    const release = async () => {
      clearInterval(watch.timer);
      if (!this.settings.keepContainers) await container.remove({ force: true, v: true }).catch(() => {});
      await sidecar?.stop();
      await unmount();
      await dropRoot();
    };
    try {
      await container.start();
    } catch (e) {
      await release();
      ctx.note(`start failed: ${errorMessage(e)}`);
      // The image's or config's command does not exist or cannot run: the agent's failure (a shell's 127/126).
      const exec =
        /exec: "[^"]*": (executable file not found in \$PATH|no such file or directory|permission denied)/.exec(
          errorMessage(e),
        );
      if (exec)
        return {
          ended: {
            code: null,
            cannotStart: { code: exec[1] === "permission denied" ? 126 : 127, reason: exec[0] },
          },
        };
      // gVisor's sandbox needs host threads of its own (more with more mounts) before the agent runs.
      const pids = this.settings.limits.pids;
      if (isGvisor(this.settings.runtime) && pids !== undefined && kernelLimitEvents(container.id)?.pids)
        return infra(
          `starting the container failed: the kernel refused a fork to the gVisor sandbox at limits.pids ${pids}, before the agent ran (the sandbox's own threads count; raise limits.pids): ${errorMessage(e)}`,
          false,
        );
      return failed(`starting the container failed: ${errorMessage(e)}`, e);
    }
    await sidecar?.afterStart?.(container);
    const logsDone = container
      .logs({ follow: true, stdout: true, stderr: true, timestamps: true })
      .then((stream) => demux(stream, (s, text) => ctx.output(s, text)))
      .catch(() => {});
    // The kernel bounds processes, /tmp and the folders; its counters say when the agent hit one.
    const watched = await this.limitWatch(container, folders);
    if (root?.bounded && ro) watched.root = { paths: ro.paths, path: root.fs.dir, bytes: ro.bytes };
    let hit: LimitHit | null = null;
    watch.timer = setInterval(() => {
      if (hit) return;
      hit = checkLimits(watched);
      if (!hit) return;
      clearInterval(watch.timer);
      ctx.note(`${hit.cause}: stopping the agent`);
      this.daemon?.stopping(container.id);
      void container.kill().catch(() => {});
    }, this.settings.quotaPollMs ?? 1000);
    watch.timer.unref();
    return {
      stop: (grace) => {
        this.daemon?.stopping(container.id);
        void container.stop({ t: grace }).catch(() => {});
      },
      kill: () => {
        this.daemon?.stopping(container.id);
        void container.kill().catch(() => {});
      },
      wait: async () => {
        const facts = await this.waitFor(container, logsDone, epoch);
        clearInterval(watch.timer);
        // A folder filled just before the exit, or left with more apparent bytes than its quota.
        hit ??= foldersFull(watched.folders ?? []) ?? rootFull(watched.root);
        const back = await unmount();
        hit ??= back;
        if (!hit && !facts.infra && facts.oom === undefined && facts.code !== null && facts.code !== 0) {
          // Ended before the watch saw a counter (gVisor's sandbox dies at either limit; a shell
          // refused a fork exits): what the kernel logged for this container's cgroup says why.
          const k = kernelLimitEvents(container.id);
          if (k?.oom) {
            ctx.note(`the kernel log shows an OOM kill in this container's memory cgroup`);
            return { ...facts, oom: oomCause(this.settings.limits.memory) };
          }
          const pids = this.settings.limits.pids;
          if (k?.pids && pids !== undefined) {
            ctx.note(`the kernel log shows a fork refused in this container's pids cgroup`);
            hit = pidsHit(pids, isGvisor(this.settings.runtime));
          }
        }
        return hit && !facts.infra && facts.oom === undefined ? { ...facts, limit: hit } : facts;
      },
      release,
    };
  }

  /**
   * Under a read-only root: one filesystem of limits.disk.root (a plain folder where the runner
   * cannot mount one, said in the run's log) holding a named volume per writable place, which
   * Docker fills with the image's files at that path when the container is created. Null when the
   * root is writable. Says in the run's log what the agent can write.
   */
  private async rootArea(
    ctx: AttemptContext,
    volumes: { name: string; target: string }[],
    labels: Record<string, string>,
  ): Promise<RootArea | null> {
    const ro = this.settings.readOnlyRoot;
    if (!ro) return null;
    const size = `limits.disk.root ${sizeText(ro.bytes)}`;
    let fs: ScratchFs | null = null;
    let bounded = this.folderFilesystems;
    let why = "the runner cannot mount filesystems";
    if (volumes.length > 0 && bounded) {
      try {
        fs = await scratchFs(ro.bytes);
      } catch (e) {
        bounded = false;
        why = errorMessage(e);
      }
    }
    if (volumes.length > 0 && fs === null) fs = await scratchFs(ro.bytes, false);
    ctx.note(
      `read-only root filesystem: the agent can write only to ${writablePlaces(ro.paths).join(", ")}; a write elsewhere fails with "Read-only file system"` +
        (volumes.length === 0
          ? ""
          : bounded
            ? ` (${ro.paths.join(", ")}: their image content kept, ${size} together)`
            : ` (${ro.paths.join(", ")}: their image content kept, not size-bounded for this run: ${why})`) +
        " (limits.disk.writable adds folders; limits.disk.root: writable keeps the root writable)",
    );
    if (fs === null) return null;
    const area: RootArea = { fs, volumes: [], bounded };
    const user = containerUser(this.runSettings());
    const owner = /^(\d+)(?::(\d+))?$/.exec(user);
    try {
      for (const [i, v] of volumes.entries()) {
        // Where the image has no folder at the target this stays as made: the agent's user's.
        const dir = path.join(fs.dir, `w${i}`);
        mkdirSync(dir, { mode: owner ? 0o755 : 0o777 });
        if (owner && process.getuid?.() === 0) chownSync(dir, Number(owner[1]), Number(owner[2] ?? owner[1]));
        else chmodSync(dir, 0o777);
        await this.docker
          .getVolume(v.name)
          .remove({ force: true })
          .catch(() => {});
        await this.docker.createVolume({
          Name: v.name,
          Driver: "local",
          DriverOpts: { type: "none", o: "bind", device: dir },
          Labels: { ...labels, [LABEL.scratch]: fs.work },
        });
        area.volumes.push(v.name);
      }
    } catch (e) {
      await this.dropRootArea(area, ctx);
      throw e;
    }
    return area;
  }

  /** Removes the run's volumes and their filesystem (kept with docker.keepContainers). */
  private async dropRootArea(area: RootArea | null, ctx: AttemptContext): Promise<void> {
    if (!area) return;
    if (this.settings.keepContainers) {
      ctx.note(`kept (keepContainers): volumes ${area.volumes.join(", ")} at ${area.fs.dir}`);
      return;
    }
    for (const v of area.volumes)
      await this.docker
        .getVolume(v)
        .remove({ force: true })
        .catch(() => {});
    const stuck = await area.fs.remove();
    if (stuck) ctx.note(stuck);
  }

  /** The run's writable folders, each on its own filesystem of its quota's size; [] when off. */
  private async mountFolders(spec: RunSpec, ctx: AttemptContext): Promise<MountedFolder[]> {
    if (!this.folderFilesystems) return [];
    const quota = spec.quota ?? DEFAULT_QUOTA;
    const p = runPaths(spec.runDir);
    const out: MountedFolder[] = [];
    const user = containerUser(this.runSettings());
    try {
      for (const [key, dir] of [
        ["submission", p.submissionDir],
        ["logs", p.logsDir],
        ["code", p.codeDir],
      ] as const)
        out.push(await mountFolder(dir, quota[key], /^\d+(:\d+)?$/.test(user) ? user : ""));
      ctx.note(
        `folder quotas: ${out.map((m) => `${CONTAINER_FOLDER[path.basename(m.dir)]} ${sizeText(m.bytes)}`).join(", ")}, each its own filesystem`,
      );
    } catch (e) {
      await this.unmountFolders(out, ctx);
      ctx.note(`folder quotas are polled for this run: ${errorMessage(e)}`);
      return [];
    }
    return out;
  }

  /** Copies the folders back to the run folder; a limit hit when the copy left files out. */
  private async unmountFolders(folders: MountedFolder[], ctx: AttemptContext): Promise<LimitHit | null> {
    let hit: LimitHit | null = null;
    for (const m of folders) {
      const r = await m.unmount();
      const label = CONTAINER_FOLDER[path.basename(m.dir)];
      if (r.stuck) ctx.note(r.stuck);
      // In the words sanitizeRun uses for the folders of every executor.
      const sub = path.basename(m.dir);
      if (r.special.length > 0)
        ctx.note(
          `removed special files from ${sub}/: ${r.special.slice(0, 5).join(", ")}${r.special.length > 5 ? ", …" : ""}`,
        );
      if (r.overQuota > 0 && !hit)
        hit = {
          name: label,
          cause: `disk: ${label} quota ${sizeText(m.bytes)} reached (${r.overQuota} file(s) whose apparent size went past it were left out)`,
        };
    }
    return hit;
  }

  /** What the limit watch reads for this container: its pids counter, its /tmp, the run's folders. */
  private async limitWatch(container: Docker.Container, folders: MountedFolder[]): Promise<LimitWatchInput> {
    const { limits } = this.settings;
    const w: LimitWatchInput = {
      folders: folders.map((m) => ({
        label: CONTAINER_FOLDER[path.basename(m.dir)],
        path: m.dir,
        bytes: m.bytes,
      })),
    };
    const file = limits.pids !== undefined ? pidsEventsFile(container.id) : null;
    if (file && limits.pids !== undefined)
      w.pids = { file, limit: limits.pids, gvisor: isGvisor(this.settings.runtime) };
    if (limits.tmp !== undefined) {
      const info = await container.inspect().catch(() => null);
      const pid = info?.State?.Pid ?? 0;
      // Under gVisor a tmpfs the daemon mounted on the runner (a volume); under runc the container's own.
      const at = (d: string) =>
        isGvisor(this.settings.runtime)
          ? info?.Mounts?.find((m) => m.Destination === d && m.Type === "volume")?.Source
          : pid > 0
            ? `/proc/${pid}/root${d}`
            : undefined;
      w.tmp = TMP_DIRS.flatMap((d) => {
        const p = at(d);
        return p ? [{ label: d, path: p, bytes: limits.tmp! }] : [];
      });
    }
    return w;
  }

  /**
   * With serveLocalhost5000: the run's validation sidecar, started before the agent, whose network
   * namespace the agent joins (`opts` is changed to say so). Null, said in the run's log, when none.
   */
  private async sidecarFor(
    spec: RunSpec,
    ctx: AttemptContext,
    opts: Docker.ContainerCreateOptions,
    image: ImageInfo,
  ): Promise<LocalEndpoint | null> {
    const imageId = image.id;
    if (!this.settings.serveLocalhost5000) return null;
    const local = this.localValidate;
    if (!local || !spec.validationUrl) {
      ctx.note("localhost:5000 is not served: the format-check endpoint did not start for this suite");
      return null;
    }
    if (isGvisor(this.settings.runtime)) return this.relayFor(spec, ctx, opts, image.entrypoint ?? null);
    try {
      const sidecar = await serveLocalhost5000(helperEngine(this.docker), local.server, local.root, {
        image: imageId,
        network: this.settings.network,
        runtime: this.settings.runtime,
        runName: opts.name!,
        labels: opts.Labels ?? {},
        runKey: `${spec.suiteId}\0${spec.runId}\0${ctx.attempt}`,
        validateUrl: spec.validationUrl,
      });
      opts.HostConfig = { ...opts.HostConfig, NetworkMode: sidecar.networkMode };
      opts.Env = [
        ...(opts.Env ?? []).filter((e) => !e.startsWith(`${VALIDATION_URL_VAR}=`)),
        `${VALIDATION_URL_VAR}=${LOCAL_VALIDATE_URL}`,
      ];
      ctx.note(`${LOCAL_VALIDATE_URL} (and /health): Medalist's format check, via sidecar ${sidecar.name}`);
      return sidecar;
    } catch (e) {
      ctx.note(`localhost:5000 is not served: ${errorMessage(e)}`);
      return null;
    }
  }

  /**
   * Under gVisor: the run's socket on the format-check server now, and after the agent starts, a
   * relay in its own sandbox (validate-relay.ts). Null, said in the run's log, when none.
   */
  private async relayFor(
    spec: RunSpec,
    ctx: AttemptContext,
    opts: Docker.ContainerCreateOptions,
    imageEntrypoint: string[] | null,
  ): Promise<LocalEndpoint | null> {
    const local = this.localValidate!;
    const key = `${spec.suiteId}\0${spec.runId}\0${ctx.attempt}`;
    const dir = path.join(local.root, createHash("sha256").update(key).digest("hex").slice(0, 12));
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { mode: 0o700 });
    const socketPath = path.join(dir, "validate.sock");
    let closeSocket: () => Promise<void>;
    try {
      closeSocket = await local.server.listenSocket(spec.validationUrl!, socketPath);
    } catch (e) {
      rmSync(dir, { recursive: true, force: true });
      ctx.note(`localhost:5000 is not served: ${errorMessage(e)}`);
      return null;
    }
    opts.Env = [
      ...(opts.Env ?? []).filter((e) => !e.startsWith(`${VALIDATION_URL_VAR}=`)),
      `${VALIDATION_URL_VAR}=${LOCAL_VALIDATE_URL}`,
    ];
    let relay: ExecRelay | null = null;
    const waits = this.shell && waitForRelay(opts, imageEntrypoint);
    if (!waits)
      ctx.note(
        `${this.shell ? "the agent's command is the image's CMD" : "the image has no /bin/sh to wait in"}: it starts with the relay, and a request to localhost:5000 in its first second may be refused`,
      );
    return {
      afterStart: async (container) => {
        try {
          relay = await startExecRelay(container, { socketPath, note: (line) => ctx.note(line) });
          ctx.note(
            `${LOCAL_VALIDATE_URL} (and /health): Medalist's format check, through a relay Medalist started in the agent's own gVisor sandbox (docker exec, python3)` +
              (waits ? "; the agent's command started once it listened" : ""),
          );
        } catch (e) {
          ctx.note(`localhost:5000 is not served: ${errorMessage(e)}`);
        }
        // The agent's command waits for this file (RELAY_WAIT), also when the relay did not start.
        if (waits) await releaseAgent(container).catch(() => {});
      },
      stop: async () => {
        await relay?.stop();
        await closeSocket().catch(() => {});
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }

  /** The container's end: exit code, out of memory, or the runtime's own reason. */
  private async waitFor(
    container: Docker.Container,
    logsDone: Promise<void>,
    epoch: number,
  ): Promise<ExitFacts> {
    let waitCode: number | null;
    const polling = { done: false };
    try {
      // The wait call's connection can outlive a daemon killed mid-run without ever answering:
      // the poll reads the container's state from the daemon that answers now.
      const first = await Promise.race([
        container.wait().then((r) => ({ code: (r as { StatusCode?: number }).StatusCode ?? null })),
        this.pollEnd(container, polling),
      ]);
      if ("vanished" in first) return { code: null, infra: { error: first.vanished, retryable: true } };
      waitCode = first.code;
    } catch (e) {
      this.daemon?.unreachable(e);
      const error = `lost the container: the Docker daemon stopped answering while it ran (${errorMessage(e)})`;
      return { code: null, infra: { error, retryable: true } };
    } finally {
      polling.done = true;
    }
    // Not zero and not Medalist's stop: did the daemon (shutting down, restarted) or an operator stop it?
    if (waitCode !== 0 && this.daemon) {
      const end = await this.daemon.endOf(container.id);
      const exit = waitCode === null ? "" : `, exit ${waitCode}`;
      if (end.stoppedBy !== undefined)
        return {
          code: null,
          infra: {
            error: `the container was stopped from outside Medalist (signal ${end.stoppedBy}${exit}): the Docker daemon shutting down, or a docker stop/kill`,
            retryable: true,
          },
        };
      if (end.daemonLost || this.daemon.epoch !== epoch)
        return {
          code: null,
          infra: { error: `the Docker daemon went away while the container ran${exit}`, retryable: true },
        };
    }
    let state: {
      ExitCode?: number;
      OOMKilled?: boolean;
      Error?: string;
      StartedAt?: string;
      FinishedAt?: string;
    } = {};
    try {
      state = (await container.inspect()).State ?? {};
    } catch {
      // Gone already (removed by a cleanup): the wait status is all there is.
    }
    await Promise.race([logsDone, sleep(5000)]);
    const code = state.ExitCode ?? waitCode;
    // The daemon's own clock: how long the container ran, without the create and start calls.
    const ran = Date.parse(state.FinishedAt ?? "") - Date.parse(state.StartedAt ?? "");
    const timing = Number.isFinite(ran) && ran >= 0 ? { durationMs: ran } : {};
    if (state.OOMKilled === true) return { code, oom: oomCause(this.settings.limits.memory), ...timing };
    // The runtime's own reason when the command never ran (exec: "pythn3": executable file not found …).
    if (state.Error && code !== 0) return { code, cannotStart: { code, reason: state.Error }, ...timing };
    return { code, ...timing };
  }

  /**
   * Resolves once the daemon says the container is no longer running (two polls apart, so the wait
   * call answers first when it can) or no longer exists; never while `polling.done` is false and it runs.
   */
  private async pollEnd(
    container: Docker.Container,
    polling: { done: boolean },
  ): Promise<{ code: number | null } | { vanished: string }> {
    let stopped = 0;
    for (;;) {
      await sleep(this.alivePollMs);
      if (polling.done) return new Promise(() => {});
      try {
        const state = (await container.inspect()).State;
        stopped = state && !state.Running && !state.Restarting ? stopped + 1 : 0;
        if (stopped >= 2) return { code: state?.ExitCode ?? null };
      } catch (e) {
        if (statusCode(e) === 404)
          return {
            vanished:
              "the container vanished while it ran: removed outside Medalist, or lost by the Docker daemon",
          };
        // The daemon does not answer: the wait call or the watch's bound says what happened.
      }
    }
  }

  /** A container of the same name left by an earlier attempt or crash. */
  private async removeByName(name: string): Promise<void> {
    try {
      await this.docker.getContainer(name).remove({ force: true, v: true });
    } catch (e) {
      if (statusCode(e) !== 404) throw e;
    }
  }
}
