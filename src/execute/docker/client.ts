import Docker from "dockerode";
import { UserError } from "../../errors.js";
import { errorMessage } from "../../util/error-message.js";
import { sleep } from "../../util/sleep.js";

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

export function statusCode(e: unknown): number | undefined {
  return (e as { statusCode?: number } | null)?.statusCode;
}
