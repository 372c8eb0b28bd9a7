import os from "node:os";
import type Docker from "dockerode";
import { errorMessage } from "../../util/error-message.js";
import { LABEL } from "./container.js";
import { pidAlive } from "../../util/process.js";
import path from "node:path";
import { removeScratch, SCRATCH_PREFIX } from "./folder-fs.js";

/** Stops (with `graceSecs`) and removes containers; resolves the names removed. */
async function removeAll(docker: Docker, list: Docker.ContainerInfo[], graceSecs: number): Promise<string[]> {
  const removed: string[] = [];
  await Promise.all(
    list.map(async (c) => {
      const container = docker.getContainer(c.Id);
      if (c.State === "running" && graceSecs > 0) await container.stop({ t: graceSecs }).catch(() => {});
      try {
        await container.remove({ force: true, v: true });
        removed.push(c.Names[0]?.replace(/^\//, "") ?? c.Id);
      } catch (e) {
        // 404: gone already (the executor removed it); 409: removal already in progress.
        const code = (e as { statusCode?: number }).statusCode;
        if (code !== 404 && code !== 409)
          throw new Error(`removing container ${c.Id.slice(0, 12)} failed: ${errorMessage(e)}`);
      }
    }),
  );
  return removed;
}

/**
 * Removes volumes (the writable places of read-only roots) and unmounts the filesystems that held
 * them: only a folder named as scratchFs names them, in this runner's temporary folder.
 */
async function removeVolumes(docker: Docker, volumes: Docker.VolumeInspectInfo[]): Promise<void> {
  const works = new Set<string>();
  for (const v of volumes) {
    await docker
      .getVolume(v.Name)
      .remove({ force: true })
      .catch(() => {});
    const work = v.Labels?.[LABEL.scratch] ?? "";
    if (
      path.isAbsolute(work) &&
      path.dirname(work) === os.tmpdir() &&
      path.basename(work).startsWith(SCRATCH_PREFIX)
    )
      works.add(work);
  }
  // A filesystem whose volumes all went (another run's volume may share none of them: one per run).
  for (const w of works) await removeScratch(w).catch(() => {});
}

/** Medalist's volumes matching `label` filters. */
async function listVolumes(docker: Docker, label: string): Promise<Docker.VolumeInspectInfo[]> {
  const r = await docker.listVolumes({ filters: { label: [label] } }).catch(() => null);
  return r?.Volumes ?? [];
}

/** Every container of this suite: stopped with a short grace, then removed. */
export async function cleanupSuite(
  docker: Docker,
  suiteId: string,
  opts: { graceSecs?: number } = {},
): Promise<string[]> {
  const list = await docker.listContainers({ all: true, filters: { label: [`${LABEL.suite}=${suiteId}`] } });
  const removed = await removeAll(docker, list, opts.graceSecs ?? 5);
  await removeVolumes(docker, await listVolumes(docker, `${LABEL.suite}=${suiteId}`));
  return removed;
}

export interface SweepOptions {
  /** This machine's name; default os.hostname(). */
  hostname?: string;
  /** Whether a local process id is alive; default signal 0. */
  isAlive?: (pid: number) => boolean;
  now?: number;
}

/**
 * Removes containers left by earlier Medalist processes that died without cleaning up: those
 * whose owner process on this machine is gone, and any past its deadline (its owner would have
 * killed it by then, wherever that owner ran). Resolves the names removed.
 */
export async function sweepStale(docker: Docker, opts: SweepOptions = {}): Promise<string[]> {
  const host = opts.hostname ?? os.hostname();
  const isAlive = opts.isAlive ?? pidAlive;
  const now = opts.now ?? Date.now();
  const list = await docker.listContainers({ all: true, filters: { label: [LABEL.suite] } });
  const isStale = (labels: Record<string, string>) => {
    const owner = labels[LABEL.owner] ?? "";
    const sep = owner.lastIndexOf(":");
    const pid = Number(owner.slice(sep + 1));
    if (sep > 0 && owner.slice(0, sep) === host && Number.isInteger(pid)) {
      if (pid === process.pid) return false;
      if (!isAlive(pid)) return true;
    }
    const deadline = Number(labels[LABEL.deadline]);
    return Number.isFinite(deadline) && now > deadline;
  };
  const removed = await removeAll(
    docker,
    list.filter((c) => isStale(c.Labels)),
    0,
  );
  const volumes = await listVolumes(docker, LABEL.scratch);
  await removeVolumes(
    docker,
    volumes.filter((v) => isStale(v.Labels ?? {})),
  );
  return removed;
}

export interface ShutdownOptions {
  docker: Docker;
  suiteId: string;
  /** Aborted on the first signal: the scheduler stops starting runs, running ones stop. */
  controller: AbortController;
  log?: (line: string) => void;
  /** Called once this suite's containers are gone (results of finished runs are the caller's). */
  onCleaned?: (removed: string[]) => void;
}

/**
 * On SIGINT/SIGTERM: abort the suite and remove all its containers (stop grace 5 s, so well within
 * 15 s). A second signal removes them at once and exits with 130. Returns a function that
 * uninstalls the handlers.
 */
export function onShutdown(opts: ShutdownOptions): () => void {
  const log = opts.log ?? ((l: string) => console.error(l));
  let signals = 0;
  const handler = (sig: NodeJS.Signals) => {
    signals++;
    if (signals === 1) {
      log(`${sig}: cancelling suite ${opts.suiteId}, removing its containers`);
      opts.controller.abort(new Error(`cancelled by ${sig}`));
      cleanupSuite(opts.docker, opts.suiteId, { graceSecs: 5 })
        .then((removed) => opts.onCleaned?.(removed))
        .catch((e) => log(`cleanup failed: ${errorMessage(e)}`));
    } else {
      log(`${sig} again: removing containers now`);
      cleanupSuite(opts.docker, opts.suiteId, { graceSecs: 0 })
        .catch(() => {})
        .finally(() => process.exit(130));
    }
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
  return () => {
    process.off("SIGINT", handler);
    process.off("SIGTERM", handler);
  };
}
