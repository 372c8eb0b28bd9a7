import net from "node:net";
import type { ContainerExec, ExecTarget } from "./engine.js";
import { errorMessage } from "../../util/error-message.js";
import { sleep } from "../../util/sleep.js";

/**
 * `localhost:5000` under gVisor (runsc). gVisor gives each container its own network stack, so a
 * sidecar's loopback (validate-sidecar.ts) is not the agent's. Instead Medalist starts a small relay
 * in the agent's own sandbox with `docker exec` (python3, the interpreter MLE-bench images have):
 * it listens on 127.0.0.1:5000 (and ::1:5000) inside the sandbox and sends each HTTP request,
 * as bytes in a length-prefixed frame, over the exec's stdout to Medalist, which passes it to the
 * run's unix socket on the format-check server (ValidationServer.listenSocket) and writes the
 * answer back in a frame on the exec's stdin. No network, no mount, no file: the agent's container
 * keeps `--network none`, and the private answers stay with the server outside it.
 *
 * The relay runs as the container's user, so the agent can kill or imitate it: it can then spoil
 * only its own format checks. What Medalist reads from it is bounded: a frame header of at most 64
 * bytes, a request of at most maxRequestBytes, one request at a time (the relay waits for each
 * answer); anything else ends the relay, said in the run's log. The server keeps its own limits
 * (body size per competition, a request budget per run, timeouts).
 *
 * The relay starts when the agent does (exec after start): it listens within about a second; the
 * executor makes the agent's command wait for it where it knows the command (executor.ts).
 */

/** The relay's first line once it listens. */
export const RELAY_READY = "MEDALIST-READY";
/** Largest request relayed: the server's 32 MiB body ceiling plus the headers. */
export const MAX_RELAY_REQUEST = 32 * 1024 ** 2 + 64 * 1024;
/** Largest answer relayed back (the server's answers are a few hundred bytes). */
export const MAX_RELAY_RESPONSE = 1024 ** 2;

export interface ExecRelay {
  /** Ends the relay's exec stream. Never throws. */
  stop(): Promise<void>;
  /** Set when the relay stopped on its own or was stopped for breaking the protocol. */
  readonly ended: string | null;
}

export interface ExecRelayOptions {
  /** The run's unix socket (ValidationServer.listenSocket). */
  socketPath: string;
  /** The exec's user; default the container's. */
  user?: string;
  /** Most milliseconds to wait for the relay to listen. Default 30000. */
  readyTimeoutMs?: number;
  /** Largest request; default MAX_RELAY_REQUEST. */
  maxRequestBytes?: number;
  /** Said once when the relay ends early (the run's log). */
  note?: (line: string) => void;
}

export class RelayUnavailableError extends Error {}

/** Starts the relay in `container` (running) and resolves once it listens. */
export async function startExecRelay(container: ExecTarget, opts: ExecRelayOptions): Promise<ExecRelay> {
  const maxRequest = opts.maxRequestBytes ?? MAX_RELAY_REQUEST;
  let exec: ContainerExec;
  let stream: NodeJS.ReadWriteStream & { destroy?: () => void; end: () => void };
  try {
    exec = await container.exec({
      Cmd: ["python3", "-c", relayScript(maxRequest)],
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      Env: ["PYTHONDONTWRITEBYTECODE=1"],
      ...(opts.user ? { User: opts.user } : {}),
    });
    stream = (await exec.start({ hijack: true, stdin: true })) as typeof stream;
  } catch (e) {
    throw new RelayUnavailableError(`the relay did not start: ${errorMessage(e)}`);
  }
  const state: { ended: string | null } = { ended: null };
  let stderr = "";
  let listening = false;
  let ready: (() => void) | null = null;
  let failed: ((why: string) => void) | null = null;
  const readyP = new Promise<void>((resolve, reject) => {
    ready = resolve;
    failed = (why) => reject(new RelayUnavailableError(why));
  });
  const end = (why: string) => {
    if (state.ended) return;
    state.ended = why;
    failed?.(why);
    try {
      stream.end();
      stream.destroy?.();
    } catch {
      // already gone
    }
  };
  const parser = frameParser(maxRequest, {
    ready: () => {
      listening = true;
      ready?.();
    },
    request: (bytes) => relayOne(bytes, opts.socketPath),
    reply: (bytes) => {
      stream.write(Buffer.concat([Buffer.from(`MEDALIST-RESP ${bytes.length}\n`), bytes]));
    },
    broken: (why) => {
      if (listening) opts.note?.(`localhost:5000 relay stopped: ${why}`);
      end(why);
    },
  });
  // Docker's multiplexed stream: 8-byte headers (1 stdout, 2 stderr), then the payload.
  let pending: Buffer = Buffer.alloc(0);
  stream.on("data", (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 8) {
      const size = pending.readUInt32BE(4);
      if (pending.length < 8 + size) break;
      const payload = pending.subarray(8, 8 + size);
      if (pending[0] === 2) stderr = (stderr + payload.toString("utf8")).slice(-2000);
      else parser(payload);
      pending = pending.subarray(8 + size);
    }
    // A frame larger than the request bound cannot be a relay's.
    if (pending.length > maxRequest + 1024) parser.fail("an output frame larger than any request");
  });
  const gone = async () => {
    const info = await exec.inspect().catch(() => null);
    const tail = stderr.trim().split("\n").slice(-2).join(" | ");
    const code = info?.ExitCode;
    if (code === 127 || /python3.*(not found|no such file)/i.test(stderr))
      return `the image has no python3 to run the relay (${tail || `exit code ${code}`})`;
    return `the relay exited${code !== null && code !== undefined ? ` with code ${code}` : ""}${tail ? `: ${tail}` : ""}`;
  };
  stream.on("end", () => void gone().then((why) => end(why)));
  stream.on("close", () => void gone().then((why) => end(why)));
  stream.on("error", (e: Error) => end(`the relay's stream failed: ${e.message}`));
  const timeoutMs = opts.readyTimeoutMs ?? 30_000;
  const timer = sleep(timeoutMs).then(() => {
    if (!state.ended) end(`the relay did not listen within ${timeoutMs / 1000} s`);
  });
  void timer;
  await readyP;
  failed = null;
  return {
    get ended() {
      return state.ended;
    },
    stop: async () => end("stopped"),
  };
}

interface FrameHandlers {
  ready(): void;
  request(bytes: Buffer): Promise<Buffer>;
  reply(bytes: Buffer): void;
  broken(why: string): void;
}

/**
 * Reads the relay's stdout: `MEDALIST-READY\n` once, then `MEDALIST-REQ <n>\n` and n bytes, one at
 * a time (a second request before the answer breaks the protocol). Anything else ends it.
 */
export function frameParser(
  maxRequest: number,
  h: FrameHandlers,
): ((chunk: Buffer) => void) & { fail(why: string): void } {
  let buf: Buffer = Buffer.alloc(0);
  let want: number | null = null;
  let busy = false;
  let isReady = false;
  let dead = false;
  const fail = (why: string) => {
    if (dead) return;
    dead = true;
    buf = Buffer.alloc(0);
    h.broken(why);
  };
  const feed = (chunk: Buffer) => {
    if (dead) return;
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
    for (;;) {
      if (dead) return;
      if (want === null) {
        const nl = buf.indexOf(10);
        if (nl < 0) {
          if (buf.length > (isReady ? 64 : 4096)) fail("a line of its output is not a frame header");
          return;
        }
        const line = buf.subarray(0, nl).toString("latin1");
        buf = buf.subarray(nl + 1);
        if (line === RELAY_READY && !isReady) {
          isReady = true;
          h.ready();
          continue;
        }
        const m = /^MEDALIST-REQ (\d{1,10})$/.exec(line);
        if (!isReady) return fail(`it did not start: ${line.replace(/[^\x20-\x7e]/g, "?").slice(0, 200)}`);
        if (!m) return fail("its output is not a frame header");
        const n = Number(m[1]);
        if (n > maxRequest) return fail(`a request of ${n} bytes, past the ${maxRequest} the relay takes`);
        if (busy) return fail("a second request before the answer to the first");
        want = n;
      }
      if (buf.length < want) return;
      const req = Buffer.from(buf.subarray(0, want));
      buf = buf.subarray(want);
      want = null;
      busy = true;
      void h.request(req).then((res) => {
        busy = false;
        if (!dead) h.reply(res);
      });
    }
  };
  return Object.assign(feed, { fail });
}

/** One request's bytes through the run's unix socket; the server's answer, or a 502 in its words. */
export function relayOne(request: Buffer, socketPath: string): Promise<Buffer> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (b: Buffer) => {
      if (done) return;
      done = true;
      sock.destroy();
      resolve(b);
    };
    const sock = net.connect(socketPath);
    sock.setTimeout(180_000, () => finish(errorResponse(504, "the format check did not answer in time")));
    sock.on("data", (d: Buffer) => {
      size += d.length;
      if (size > MAX_RELAY_RESPONSE)
        return finish(errorResponse(502, "the format check's answer was too large"));
      parts.push(d);
    });
    sock.on("end", () => finish(Buffer.concat(parts)));
    sock.on("close", () => finish(Buffer.concat(parts)));
    sock.on("error", () => finish(errorResponse(503, "the format check is not reachable")));
    // The relay asked for `Connection: close`: the server ends the connection after its answer.
    sock.write(request);
  });
}

function errorResponse(code: number, error: string): Buffer {
  const body = JSON.stringify({ error }) + "\n";
  const text = code === 504 ? "Gateway Timeout" : code === 503 ? "Service Unavailable" : "Bad Gateway";
  return Buffer.from(
    `HTTP/1.1 ${code} ${text}\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/**
 * The relay (python3, standard library only). One connection at a time: reads the request
 * (headers up to 64 KiB, a Content-Length body up to the bound; chunked bodies are refused with
 * 411), answers `Expect: 100-continue` itself and drops that header, asks for `Connection: close`, sends the request in a frame
 * on stdout, and writes the framed answer back to the client. Ends when stdin closes.
 */
export function relayScript(maxRequest: number): string {
  return `import select, socket, sys
MAX_HEAD = 65536
MAX_BODY = ${maxRequest - 64 * 1024}
out, inp = sys.stdout.buffer, sys.stdin.buffer

def answer(c, code, text, msg):
    body = ('{"error": "%s"}\\n' % msg).encode()
    c.sendall(b"HTTP/1.1 %d %s\\r\\ncontent-type: application/json\\r\\nconnection: close\\r\\ncontent-length: %d\\r\\n\\r\\n" % (code, text.encode(), len(body)) + body)

def read_request(c):
    data = bytearray()
    while b"\\r\\n\\r\\n" not in data:
        if len(data) > MAX_HEAD:
            return None, (431, "Request Header Fields Too Large", "request headers too large")
        chunk = c.recv(65536)
        if not chunk:
            return None, None
        data += chunk
    end = data.index(b"\\r\\n\\r\\n")
    head, rest = bytes(data[:end]), data[end + 4:]
    if len(head) > MAX_HEAD:
        return None, (431, "Request Header Fields Too Large", "request headers too large")
    lines = head.split(b"\\r\\n")
    kept, length, cont = [lines[0]], 0, False
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        n = name.strip().lower()
        if n == b"transfer-encoding":
            return None, (411, "Length Required", "send the file with a content-length; chunked bodies are not relayed")
        if n == b"content-length":
            try:
                length = int(value.strip())
            except ValueError:
                return None, (400, "Bad Request", "bad content-length")
        if n == b"expect":
            cont = value.strip().lower() == b"100-continue"
            continue
        if n in (b"connection", b"keep-alive"):
            continue
        kept.append(line)
    kept.append(b"Connection: close")
    if length < 0 or length > MAX_BODY:
        return None, (413, "Payload Too Large", "submission larger than %d bytes" % MAX_BODY)
    if cont and len(rest) < length:
        c.sendall(b"HTTP/1.1 100 Continue\\r\\n\\r\\n")
    body = rest
    while len(body) < length:
        chunk = c.recv(min(1 << 20, length - len(body)))
        if not chunk:
            return None, None
        body += chunk
    return b"\\r\\n".join(kept) + b"\\r\\n\\r\\n" + bytes(body[:length]), None

def serve(c):
    c.settimeout(120)
    try:
        req, bad = read_request(c)
        if bad:
            answer(c, *bad)
            return
        if req is None:
            return
        out.write(b"MEDALIST-REQ %d\\n" % len(req))
        out.write(req)
        out.flush()
        line = inp.readline(64)
        if not line.startswith(b"MEDALIST-RESP "):
            sys.exit(0)
        n = int(line.split()[1])
        res = inp.read(n)
        if len(res) < n:
            sys.exit(0)
        c.sendall(res)
    except (OSError, ValueError):
        pass
    finally:
        c.close()

listeners = []
for family, addr in ((socket.AF_INET, ("127.0.0.1", 5000)), (socket.AF_INET6, ("::1", 5000))):
    try:
        s = socket.socket(family, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(addr)
        s.listen(16)
        listeners.append(s)
    except OSError as e:
        if family == socket.AF_INET:
            sys.stderr.write("cannot listen on 127.0.0.1:5000: %s\\n" % e)
            sys.exit(3)
out.write(b"${RELAY_READY}\\n")
out.flush()
while True:
    ready, _, _ = select.select(listeners + [inp], [], [])
    if inp in ready:
        sys.exit(0)
    for s in ready:
        client, _ = s.accept()
        serve(client)
`;
}
