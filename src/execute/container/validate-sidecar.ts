import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ValidationServer } from "../validation-server.js";
import { errorMessage } from "../../util/error-message.js";
import { sleep } from "../../util/sleep.js";
import type { HelperContainer, HelperEngine } from "./engine.js";

/**
 * `localhost:5000` inside the agent's container, as MLE-bench's image gives it (`POST /validate`
 * with a multipart `file` part, as upstream's validate_submission.sh posts it with curl, and
 * `GET /health`), answered by Medalist's format check (../validation-server.ts), never by a grader.
 *
 * How: a sidecar container starts BEFORE the agent's and the agent joins its network namespace
 * (HostConfig.NetworkMode `container:<sidecar id>`). The sidecar runs the agent's own image with
 * the entrypoint replaced by `python3 /medalist/forward.py`, a byte relay written by Medalist
 * (below) from 127.0.0.1:5000 (and ::1:5000) to the run's unix socket. The run's folder on the
 * host (`socketDir`: forward.py and validate.sock, nothing else) is bind-mounted read-only at
 * /medalist into the sidecar only. The sidecar runs as an unprivileged user, all capabilities
 * dropped, no-new-privileges, read-only root filesystem, small memory/pids/CPU limits. Only the
 * relay runs there: the sidecar holds no answers and the agent cannot reach its processes (own
 * PID namespace). It works with `network: none` too: the socket needs no network. With
 * `network: none` nothing is lost for the endpoint; the agent still has no route anywhere else.
 * What `container:` mode changes for the agent: it cannot have its own hostname, published ports
 * or DNS settings (it shares the sidecar's), and port 5000 on loopback is taken.
 *
 * The image needs python3 (upstream's mlebench-env always has it). Without it, start fails with
 * a SidecarUnavailableError whose message says why; the caller says in the run's log that
 * localhost:5000 is not served and runs the agent on its own network.
 *
 * API (stable):
 *   startValidateSidecar(engine, { image, network, socketDir, runName, labels, runtime?, user? })
 *     → { id, name, networkMode, stop() }   (after the relay printed its ready line)
 *   serveLocalhost5000(engine, server, root, { runKey, validateUrl, ...sidecar options })
 *     → the same, after server.listenSocket(validateUrl, <root>/<hash>/validate.sock); stop()
 *       also closes that socket. `root` comes from sidecarRoot() (one per suite).
 * `engine` is a HelperEngine (container/engine.ts; docker/engine.ts's helperEngine over Docker).
 * Give `labels` the run's labels (container.ts LABEL.suite, owner, deadline): cleanupSuite and
 * sweepStale then remove a sidecar left behind exactly as they remove agent containers.
 */

/** The line the relay prints once it listens. */
export const SIDECAR_READY = "medalist-forward ready";
/** Label marking a sidecar (beside the run's own labels). */
export const SIDECAR_ROLE = { key: "medalist.role", value: "validate-sidecar" } as const;

export class SidecarUnavailableError extends Error {}

export interface ValidateSidecarOptions {
  /** The agent's image (id or tag); it must have python3. */
  image: string;
  /** The suite's network: the agent shares whatever the sidecar gets. */
  network: "bridge" | "none";
  /** Host folder mounted read-only at /medalist: holds the run's validate.sock; forward.py is written here. */
  socketDir: string;
  /** The agent container's name; the sidecar is `<runName>-validate`. */
  runName: string;
  /** The run's labels (so cleanup finds the sidecar); SIDECAR_ROLE is added. */
  labels: Record<string, string>;
  /** The OCI runtime (the agent's docker.runtime); default the daemon's. */
  runtime?: string;
  /** The sidecar's user. Default 65534:65534 (nobody). */
  user?: string;
  /** Most milliseconds to wait for the ready line. Default 30000. */
  readyTimeoutMs?: number;
}

export interface ValidateSidecar {
  id: string;
  name: string;
  /** Put this in the agent's HostConfig.NetworkMode. */
  networkMode: string;
  /** Removes the sidecar (and, from serveLocalhost5000, the run's socket). Never throws. */
  stop(): Promise<void>;
}

/** Starts the sidecar and waits until localhost:5000 listens in its network namespace. */
export async function startValidateSidecar(
  engine: HelperEngine,
  opts: ValidateSidecarOptions,
): Promise<ValidateSidecar> {
  writeFileSync(path.join(opts.socketDir, "forward.py"), FORWARDER, { mode: 0o644 });
  const name = `${opts.runName}-validate`;
  await engine.removeNamed(name);
  const container = await engine.create({
    name,
    image: opts.image,
    entrypoint: ["python3", "/medalist/forward.py"],
    user: opts.user ?? "65534:65534",
    workingDir: "/",
    env: ["PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1"],
    labels: { ...opts.labels, [SIDECAR_ROLE.key]: SIDECAR_ROLE.value },
    mount: { source: opts.socketDir, target: "/medalist" },
    network: opts.network,
    runtime: opts.runtime,
    memoryBytes: 128 * 1024 ** 2,
    pids: 64,
    cpus: 0.5,
  });
  const remove = () =>
    container.remove().then(
      () => {},
      () => {},
    );
  try {
    await container.start();
  } catch (e) {
    await remove();
    const msg = errorMessage(e);
    if (/executable file not found|no such file or directory/.test(msg))
      throw new SidecarUnavailableError(`the image has no python3 to run the forwarder (${msg})`);
    throw new SidecarUnavailableError(`the sidecar did not start: ${msg}`);
  }
  try {
    await waitReady(container, opts.readyTimeoutMs ?? 30_000);
  } catch (e) {
    await remove();
    throw e;
  }
  return { id: container.id, name, networkMode: `container:${container.id}`, stop: remove };
}

/** Polls the sidecar's output for the ready line; its own words when it exits first. */
async function waitReady(container: HelperContainer, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const text = await container.output();
    if (text.includes(SIDECAR_READY)) return;
    const state = await container.state();
    if (!state.running) {
      const tail = text.trim().split("\n").slice(-3).join(" | ") || "no output";
      // 127: docker-init could not exec python3 (not in the image, or not on its PATH).
      if (state.exitCode === 127)
        throw new SidecarUnavailableError(`the image has no python3 to run the forwarder (${tail})`);
      throw new SidecarUnavailableError(`the forwarder exited with code ${state.exitCode}: ${tail}`);
    }
    if (Date.now() > until)
      throw new SidecarUnavailableError(`the forwarder did not listen within ${timeoutMs / 1000} s`);
    await sleep(100);
  }
}

/** One folder per suite for the runs' sockets (0711: a run's folder is found only by its name). */
export function sidecarRoot(): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), "medalist-v5-"));
  chmodSync(dir, 0o711);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface ServeOptions extends Omit<ValidateSidecarOptions, "socketDir"> {
  /** Unique per attempt (e.g. run id and attempt): names the run's socket folder. */
  runKey: string;
  /** The run's format-check URL, as ValidationServer.register() returned it. */
  validateUrl: string;
}

/** The run's socket on `server`, then its sidecar; stop() removes both. */
export async function serveLocalhost5000(
  engine: HelperEngine,
  server: ValidationServer,
  root: string,
  opts: ServeOptions,
): Promise<ValidateSidecar> {
  // A short folder name keeps the socket's path under the 107 bytes unix sockets allow.
  const socketDir = path.join(root, createHash("sha256").update(opts.runKey).digest("hex").slice(0, 12));
  rmSync(socketDir, { recursive: true, force: true });
  mkdirSync(socketDir, { mode: 0o755 });
  chmodSync(socketDir, 0o755);
  const closeSocket = await server.listenSocket(opts.validateUrl, path.join(socketDir, "validate.sock"));
  const cleanup = async () => {
    await closeSocket().catch(() => {});
    rmSync(socketDir, { recursive: true, force: true });
  };
  let sidecar: ValidateSidecar;
  try {
    sidecar = await startValidateSidecar(engine, { ...opts, socketDir });
  } catch (e) {
    await cleanup();
    throw e;
  }
  return { ...sidecar, stop: () => sidecar.stop().then(cleanup) };
}

/**
 * The relay run in the sidecar: each TCP connection on loopback port 5000 is piped, bytes as they
 * come, to /medalist/validate.sock (the HTTP is Medalist's server's to parse). At most 32
 * connections at once, each idle for at most 5 minutes.
 */
export const FORWARDER = `import socket, sys, threading
SOCK = "/medalist/validate.sock"
slots = threading.BoundedSemaphore(32)
BUSY = b"HTTP/1.1 503 Service Unavailable\\r\\ncontent-type: application/json\\r\\nconnection: close\\r\\ncontent-length: 47\\r\\n\\r\\n{\\"error\\": \\"the format check is not reachable\\"}\\n"

def pipe(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass

def serve(client):
    up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        up.settimeout(300)
        up.connect(SOCK)
    except OSError:
        try:
            client.sendall(BUSY)
        except OSError:
            pass
        up.close()
        client.close()
        slots.release()
        return
    back = threading.Thread(target=pipe, args=(up, client), daemon=True)
    back.start()
    pipe(client, up)
    back.join()
    up.close()
    client.close()
    slots.release()

def accept(listener):
    while True:
        client, _ = listener.accept()
        client.settimeout(300)
        if not slots.acquire(blocking=False):
            client.close()
            continue
        threading.Thread(target=serve, args=(client,), daemon=True).start()

listeners = []
for family, addr in ((socket.AF_INET, ("127.0.0.1", 5000)), (socket.AF_INET6, ("::1", 5000))):
    try:
        s = socket.socket(family, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(addr)
        s.listen(64)
        listeners.append(s)
    except OSError as e:
        if family == socket.AF_INET:
            print("medalist-forward: cannot listen on 127.0.0.1:5000: %s" % e, flush=True)
            sys.exit(3)
for extra in listeners[1:]:
    threading.Thread(target=accept, args=(extra,), daemon=True).start()
print("${SIDECAR_READY}", flush=True)
accept(listeners[0])
`;
