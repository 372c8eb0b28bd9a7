import Docker from "dockerode";
import { UserError } from "../../errors.js";

export interface ConnectOptions {
  /** Options for dockerode; default: DOCKER_HOST or /var/run/docker.sock. */
  docker?: Docker.DockerOptions;
  /** Pings before giving up. Default 5. */
  attempts?: number;
  /** First wait between pings in ms, doubled each time. Default 500. */
  delayMs?: number;
}

/** Where dockerode will connect, in words. */
export function daemonAddress(opts?: Docker.DockerOptions): string {
  if (opts?.socketPath) return opts.socketPath;
  if (opts?.host) return `${opts.protocol ?? "http"}://${opts.host}:${opts.port ?? ""}`;
  return process.env.DOCKER_HOST || "/var/run/docker.sock";
}

/** Pings the daemon with backoff; one clear UserError when none answers. */
export async function connectDocker(opts: ConnectOptions = {}): Promise<Docker> {
  const docker = new Docker(opts.docker);
  const attempts = opts.attempts ?? 5;
  let delay = opts.delayMs ?? 500;
  let last: unknown;
  for (let i = 0; i < attempts; i++) {
    try {
      await docker.ping();
      return docker;
    } catch (e) {
      last = e;
      if (i < attempts - 1) {
        await sleep(delay);
        delay *= 2;
      }
    }
  }
  throw new UserError(
    `no Docker daemon answers at ${daemonAddress(opts.docker)} (${errorMessage(last)}). ` +
      "Start dockerd, or set DOCKER_HOST, or use executor: local.",
    1,
  );
}

export function errorMessage(e: unknown): string {
  if (e instanceof Error) {
    // dockerode puts the daemon's JSON reply in `json`: its message is the useful part.
    const json = (e as { json?: { message?: string } }).json;
    return (json?.message ?? e.message).trim();
  }
  return String(e);
}

export function statusCode(e: unknown): number | undefined {
  return (e as { statusCode?: number } | null)?.statusCode;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
