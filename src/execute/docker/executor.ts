import { chmod, mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type Docker from "dockerode";
import { runPaths, type ExecResult, type Executor, type RunSpec } from "../types.js";
import { errorMessage, sleep, statusCode } from "./client.js";
import { containerOptions, ownerLabel } from "./container.js";
import { ImageMissingError, prepareImage, type ImageInfo } from "./image.js";
import { demux, RunLog } from "./run-log.js";
import type { DockerSettings } from "./settings.js";

export interface DockerExecutorOptions {
  /** Suite-level messages: image build output. Default: none. */
  log?: (line: string) => void;
  /** Owner label ("<host>:<pid>"); default this process. */
  owner?: string;
}

type Attempt = ExecResult & { retryable: boolean };

/** Stop grace when the suite is cancelled: everything must be gone within 15 s. */
const CANCEL_GRACE_SECS = 5;

/**
 * Runs each (competition, seed) in its own container, following the agent contract.
 * Never grades, never retries: an infrastructure error says whether it is worth another attempt.
 */
export class DockerExecutor implements Executor {
  readonly name = "docker";
  private image: Promise<ImageInfo> | null = null;
  private readonly log: (line: string) => void;
  private readonly owner: string;

  constructor(
    readonly docker: Docker,
    readonly settings: DockerSettings,
    opts: DockerExecutorOptions = {},
  ) {
    this.log = opts.log ?? (() => {});
    this.owner = opts.owner ?? ownerLabel();
  }

  /** Builds or finds the agent image once (later calls share the result; a failure is retried). */
  prepareImage(): Promise<ImageInfo> {
    this.image ??= prepareImage(this.docker, this.settings, this.log).catch((e) => {
      this.image = null;
      throw e;
    });
    return this.image;
  }

  /** One attempt at one run; the suite runner retries infrastructure errors marked `retryable`. */
  execute(spec: RunSpec, signal?: AbortSignal): Promise<ExecResult> {
    return this.attempt(spec, spec.attempt ?? 1, signal);
  }

  private async attempt(spec: RunSpec, attempt: number, signal?: AbortSignal): Promise<Attempt> {
    const paths = runPaths(spec.runDir);
    const details: Record<string, string> = {};
    const infra = (error: string, retryable = true): Attempt => ({
      outcome: "infra_error",
      exitCode: null,
      durationMs: 0,
      error,
      details,
      retryable,
    });
    const cancelled = (): Attempt => ({ ...infra("cancelled", false), cancelled: true });
    if (signal?.aborted) return cancelled();

    let image: ImageInfo;
    try {
      image = await this.prepareImage();
    } catch (e) {
      return infra(errorMessage(e), !(e instanceof ImageMissingError));
    }
    Object.assign(details, { image: image.ref, imageId: image.id, imageDigest: image.digest });

    try {
      await prepareRunDir(spec, attempt > 1);
    } catch (e) {
      return infra(`preparing the run folder failed: ${errorMessage(e)}`, false);
    }

    const secrets = (spec.secretEnv ?? []).map((k) => spec.env[k]).filter((v): v is string => !!v);
    const log = new RunLog(paths.logFile, secrets, this.settings.logMaxBytes);
    const opts = containerOptions(spec, this.settings, image.id, { owner: this.owner });
    const name = opts.name!;
    details.container = name;
    if (spec.gpus.length > 0) details.gpus = spec.gpus.join(",");
    let container: Docker.Container | null = null;
    try {
      log.note(`attempt ${attempt}: container ${name}, image ${image.ref} (${image.digest})`);
      try {
        await this.removeByName(name);
        container = await this.docker.createContainer(opts);
      } catch (e) {
        return infra(`creating the container failed: ${errorMessage(e)}`, statusCode(e) !== 400);
      }
      details.containerId = container.id;
      if (signal?.aborted) return cancelled();
      try {
        await container.start();
      } catch (e) {
        log.note(`start failed: ${errorMessage(e)}`);
        return infra(`starting the container failed: ${errorMessage(e)}`);
      }
      return await this.supervise(container, spec, log, details, signal);
    } finally {
      await log.close();
      if (container && !this.settings.keepContainers) {
        await container.remove({ force: true, v: true }).catch(() => {});
      }
    }
  }

  /** Waits for the container, enforcing the time limit and cancellation, and classifies the end. */
  private async supervise(
    container: Docker.Container,
    spec: RunSpec,
    log: RunLog,
    details: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<Attempt> {
    const started = Date.now();
    log.note(`started; time limit ${spec.timeLimitSecs}s`);
    const logsDone = container
      .logs({ follow: true, stdout: true, stderr: true, timestamps: true })
      .then((stream) => demux(stream, (s, text) => log.output(s, text)))
      .catch(() => {});

    let ended: "exit" | "timeout" | "cancel" = "exit";
    let giveUp: () => void = () => {};
    const gaveUp = new Promise<"gave-up">((resolve) => (giveUp = () => resolve("gave-up")));
    const backstops: NodeJS.Timeout[] = [];
    const stop = (why: "timeout" | "cancel", grace: number) => {
      if (ended !== "exit") return;
      ended = why;
      log.note(
        why === "timeout"
          ? `time limit reached: stopping (grace ${grace}s)`
          : `cancelled: stopping (grace ${grace}s)`,
      );
      container.stop({ t: grace }).catch(() => {});
      // If the daemon does not deliver the stop, kill; if the wait still hangs, stop waiting.
      backstops.push(setTimeout(() => container.kill().catch(() => {}), (grace + 5) * 1000));
      backstops.push(setTimeout(giveUp, (grace + 30) * 1000));
    };
    const timer = setTimeout(() => stop("timeout", this.settings.stopGraceSecs), spec.timeLimitSecs * 1000);
    const onAbort = () => stop("cancel", Math.min(this.settings.stopGraceSecs, CANCEL_GRACE_SECS));
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) onAbort();

    let waitCode: number | null = null;
    let lost: unknown = null;
    try {
      const waited = await Promise.race([container.wait() as Promise<{ StatusCode?: number }>, gaveUp]);
      if (waited === "gave-up") lost = new Error("the container did not stop after it was killed");
      else waitCode = waited.StatusCode ?? null;
    } catch (e) {
      lost = e;
    } finally {
      clearTimeout(timer);
      for (const t of backstops) clearTimeout(t);
      signal?.removeEventListener("abort", onAbort);
    }
    const durationMs = Date.now() - started;
    const base = { durationMs, details, retryable: false };
    if ((ended as string) === "cancel") {
      return {
        ...base,
        outcome: "infra_error",
        exitCode: waitCode,
        error: "cancelled",
        cancelled: true,
      };
    }
    if (lost !== null) {
      return {
        ...base,
        outcome: "infra_error",
        exitCode: null,
        error: `lost the container: ${errorMessage(lost)}`,
        // Not after a timeout: rerunning a whole time limit for a stuck daemon is not worth it.
        retryable: ended === "exit",
      };
    }

    let state: { ExitCode?: number; OOMKilled?: boolean } = {};
    try {
      state = (await container.inspect()).State ?? {};
    } catch {
      // Gone already (removed by a cleanup): the wait status is all there is.
    }
    await Promise.race([logsDone, sleep(5000)]);
    const exitCode = state.ExitCode ?? waitCode;
    const oomKilled = state.OOMKilled === true;
    if (oomKilled) details.oomKilled = "true";
    log.note(
      `exited with code ${exitCode}${oomKilled ? " (out of memory)" : ""} after ${(durationMs / 1000).toFixed(1)}s`,
    );

    if ((ended as string) === "timeout") {
      return {
        ...base,
        outcome: "timed_out",
        exitCode,
        oomKilled,
        error: `time limit of ${spec.timeLimitSecs}s reached`,
      };
    }
    if (exitCode === 0) return { ...base, outcome: "completed", exitCode, oomKilled };
    if (oomKilled) {
      return {
        ...base,
        outcome: "oom",
        exitCode,
        oomKilled,
        error: `out of memory (limit ${this.settings.limits.memory ?? "none"} bytes)`,
      };
    }
    return { ...base, outcome: "failed", exitCode, oomKilled, error: `agent exited with code ${exitCode}` };
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

/** Creates submission/, logs/, code/ (writable by any container user) and instructions.txt. */
async function prepareRunDir(spec: RunSpec, retry: boolean): Promise<void> {
  const p = runPaths(spec.runDir);
  const info = await stat(spec.publicDir).catch(() => null);
  if (!info?.isDirectory()) throw new Error(`public data folder ${spec.publicDir} does not exist`);
  for (const dir of [p.submissionDir, p.logsDir, p.codeDir]) {
    await mkdir(dir, { recursive: true });
    await chmod(dir, 0o777);
  }
  // A retried run must not be graded on an earlier attempt's submission.
  if (retry) {
    for (const f of await readdir(p.submissionDir))
      await rm(path.join(p.submissionDir, f), { recursive: true, force: true });
  }
  await writeFile(p.instructionsFile, "", { flag: "a" });
}
