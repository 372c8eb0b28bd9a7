import { randomBytes } from "node:crypto";
import { chmodSync, createWriteStream, mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import {
  checkFormatFile,
  checkFormatFileWithGrader,
  sampleShapeOfFile,
  standInOfFile,
  type SampleShape,
  type Stand,
} from "../grade/format-rules.js";
import type { GraderSpec } from "../grade/spec.js";

/**
 * Format checks for agents: an HTTP endpoint on the runner, reachable from the containers, that
 * runs the grader's own validity checks on a posted submission with the competition's PUBLIC
 * sample submission standing in for the answers (grade/format-check.ts): valid here is valid for
 * the grader. Without a declared grader (external grading) it checks columns, ids and row count
 * against the sample. It never sees the private folder and never returns a score.
 *
 *   POST <url>   body: the CSV (raw), or multipart/form-data with a `file` part (MLE-bench style)
 *   → 200 {"valid": bool, "result": "...", "errors": [...]}
 *
 * listenSocket() also serves one run's URL on a unix socket as plain `POST /validate` and
 * `GET /health` (what container/validate-sidecar.ts forwards `localhost:5000` to).
 *
 * The agent is hostile, so: a body limit derived from the sample's size, the body streamed to a
 * private spool file (constant memory) and read back keeping only the id column, one check at a
 * time per run, a request budget per run, and timeouts for slow senders.
 */

/** Body limit for one competition: 16 × the sample plus 1 MiB, within [1 MiB, ceiling]. */
export function bodyLimit(sampleBytes: number, ceiling = DEFAULT_CEILING): number {
  return Math.min(ceiling, Math.max(1024 ** 2, 16 * sampleBytes + 1024 ** 2));
}

export const DEFAULT_CEILING = 32 * 1024 ** 2;

/**
 * Streams the file part out of a multipart/form-data body (field `file`, or the first part with a
 * filename), holding at most one delimiter and one part's headers in memory.
 */
export class MultipartFile {
  private buf: Buffer = Buffer.alloc(0);
  private state: "pre" | "after" | "headers" | "body" | "done" = "pre";
  private isFile = false;
  private readonly delim: Buffer;
  found = false;

  constructor(
    boundary: string,
    private readonly out: (chunk: Buffer) => void,
  ) {
    this.delim = Buffer.from(`\r\n--${boundary}`);
  }

  static boundary(contentType: string): string | null {
    const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
    return m ? (m[1] ?? m[2].trim()) : null;
  }

  push(chunk: Buffer): void {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    for (;;) {
      if (this.state === "done") {
        this.buf = Buffer.alloc(0);
        return;
      }
      if (this.state === "pre") {
        const d = this.delim.subarray(2);
        const i = this.buf.indexOf(d);
        if (i < 0) {
          this.buf = this.buf.subarray(Math.max(0, this.buf.length - d.length));
          return;
        }
        this.buf = this.buf.subarray(i + d.length);
        this.state = "after";
      } else if (this.state === "after") {
        if (this.buf.length < 2) return;
        if (this.buf[0] === 0x2d && this.buf[1] === 0x2d) this.state = "done";
        else {
          this.buf = this.buf.subarray(2);
          this.state = "headers";
        }
      } else if (this.state === "headers") {
        const i = this.buf.indexOf("\r\n\r\n");
        if (i < 0) {
          if (this.buf.length > 16 * 1024) throw new Error("multipart part headers longer than 16 KiB");
          return;
        }
        const headers = this.buf.subarray(0, i).toString("latin1");
        this.isFile = /name="file"/i.test(headers) || /filename=/i.test(headers);
        this.buf = this.buf.subarray(i + 4);
        this.state = "body";
      } else {
        const i = this.buf.indexOf(this.delim);
        if (i < 0) {
          const keep = this.delim.length - 1;
          if (this.buf.length > keep) {
            if (this.isFile) this.out(this.buf.subarray(0, this.buf.length - keep));
            this.buf = this.buf.subarray(this.buf.length - keep);
          }
          return;
        }
        if (this.isFile) {
          this.out(this.buf.subarray(0, i));
          this.found = true;
          this.state = "done";
        } else {
          this.buf = this.buf.subarray(i + this.delim.length);
          this.state = "after";
        }
      }
    }
  }
}

/** The file part of a whole multipart/form-data body held in memory (tests, small bodies). */
export function multipartFile(body: Buffer, contentType: string): Buffer | null {
  const boundary = MultipartFile.boundary(contentType);
  if (!boundary) return null;
  const parts: Buffer[] = [];
  const m = new MultipartFile(boundary, (c) => parts.push(Buffer.from(c)));
  m.push(body);
  return m.found ? Buffer.concat(parts) : null;
}

export interface ValidationServer {
  /** Base URL (what containers can reach). */
  readonly url: string;
  /**
   * URL checking submissions of one competition (an unguessable path); with `runId`, one URL per
   * run with its own request budget. With `grader`, the grader's own checks (see above).
   */
  register(
    competitionId: string,
    sampleSubmissionPath: string,
    runId?: string,
    grader?: GraderSpec | null,
  ): string;
  /**
   * Serves the run of `validateUrl` (a URL register() returned) on a unix socket at `socketPath`
   * (mode 0666, so that an unprivileged container user can connect): `POST /validate` checks
   * with that run's budget, `GET /health` answers. Resolves a function that stops it.
   */
  listenSocket(validateUrl: string, socketPath: string): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface ValidationServerOptions {
  /** Address to listen on. Default 127.0.0.1; for containers, the Docker bridge gateway. */
  host?: string;
  /** Host name or address put in URLs; default `host`. */
  advertiseHost?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Ceiling of the body limit (the limit itself follows the sample's size). Default 32 MiB. */
  maxBytes?: number;
  /** Checks one run (one URL) may ask for. Default 200. */
  requestsPerRun?: number;
}

interface Entry {
  competitionId: string;
  samplePath: string;
  grader: GraderSpec | null;
  shape?: SampleShape;
  stand?: Stand;
  used: number;
  busy: boolean;
}

export async function startValidationServer(opts: ValidationServerOptions = {}): Promise<ValidationServer> {
  const ceiling = opts.maxBytes ?? DEFAULT_CEILING;
  const budget = opts.requestsPerRun ?? 200;
  const byToken = new Map<string, Entry>();
  const tokenOf = new Map<string, string>();
  const spool = mkdtempSync(path.join(os.tmpdir(), "medalist-format-"));
  let seq = 0;

  const handle = (req: http.IncomingMessage, res: http.ServerResponse, entry: Entry | undefined) => {
    const reply = (status: number, body: unknown, close = false) => {
      if (res.headersSent) return;
      const send = () => {
        if (res.headersSent) return;
        res.writeHead(status, {
          "content-type": "application/json",
          ...(close ? { connection: "close" } : {}),
        });
        res.end(JSON.stringify(body) + "\n");
      };
      if (!close || req.complete) return send();
      // A refused body is read and thrown away (nothing kept) so that the sender sees the answer;
      // a sender still sending after 5 s is cut off.
      req.removeAllListeners("data");
      req.on("end", send);
      req.resume();
      const cut = setTimeout(() => req.destroy(), 5000);
      cut.unref();
      req.on("close", () => clearTimeout(cut));
    };
    // MLE-bench's grading server answers {"status": "running"}: the same words here.
    if (req.url === "/health") return reply(200, { ok: true, status: "running" });
    if (!entry) return reply(404, { error: "unknown validation URL" }, true);
    if (req.method !== "POST")
      return reply(
        405,
        { error: "POST the submission CSV (raw body, or multipart with a `file` part)" },
        true,
      );
    if (entry.used >= budget)
      return reply(429, { error: `this run has used all ${budget} of its format checks` }, true);
    if (entry.busy) return reply(429, { error: "one format check at a time: wait for the answer" }, true);

    let shape: SampleShape;
    try {
      entry.shape ??= sampleShapeOfFile(entry.samplePath);
      shape = entry.shape;
      if (entry.grader) entry.stand ??= standInOfFile(entry.grader, entry.samplePath);
    } catch (e) {
      return reply(500, { error: `could not read the sample submission: ${(e as Error).message}` }, true);
    }
    const limit = bodyLimit(shape.bytes, ceiling);
    const declared = Number(req.headers["content-length"] ?? NaN);
    if (declared > limit) return reply(413, { error: `submission larger than ${limit} bytes` }, true);

    entry.used++;
    entry.busy = true;
    const file = path.join(spool, `${++seq}.csv`);
    const out = createWriteStream(file);
    let size = 0;
    let failed: string | null = null;
    const type = req.headers["content-type"] ?? "";
    const boundary = /^multipart\/form-data/i.test(type) ? MultipartFile.boundary(type) : null;
    const write = (c: Buffer) => void out.write(c);
    const parts = boundary ? new MultipartFile(boundary, write) : null;
    const done = () => {
      entry.busy = false;
      rmSync(file, { force: true });
    };
    out.on("error", (e) => (failed ??= `could not spool the submission: ${e.message}`));
    req.on("data", (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > limit) {
        failed = "too big";
        out.destroy();
        done();
        return reply(413, { error: `submission larger than ${limit} bytes` }, true);
      }
      try {
        if (parts) parts.push(c);
        else write(c);
      } catch (e) {
        failed = (e as Error).message;
      }
      // Backpressure: never hold more than the stream's buffer in memory.
      if (out.writableNeedDrain) {
        req.pause();
        out.once("drain", () => req.resume());
      }
    });
    req.on("error", () => {
      failed ??= "aborted";
      out.destroy();
      done();
    });
    req.on("end", () => {
      if (failed === "too big" || failed === "aborted") return;
      out.end(() => {
        try {
          if (failed) return reply(400, { error: failed });
          if (parts && !parts.found) return reply(400, { error: "no file part in the multipart body" });
          const check =
            entry.grader && entry.stand
              ? checkFormatFileWithGrader(entry.grader, entry.stand, file)
              : checkFormatFile(shape, file);
          reply(200, {
            competition_id: entry.competitionId,
            valid: check.valid,
            result: check.valid
              ? "Submission is valid."
              : `Submission is invalid: ${check.errors.join("; ")}`,
            errors: check.errors,
          });
        } catch (e) {
          reply(500, { error: `could not check the submission: ${(e as Error).message}` });
        } finally {
          done();
        }
      });
    });
  };
  const tokenIn = (url: string | undefined) => /^\/([0-9a-f]{32})\/validate\/?$/.exec(url ?? "")?.[1];
  const server = guarded(
    http.createServer((req, res) => handle(req, res, byToken.get(tokenIn(req.url) ?? ""))),
  );
  const sockets = new Set<http.Server>();

  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shown = opts.advertiseHost ?? host;
  const url = `http://${shown.includes(":") ? `[${shown}]` : shown}:${port}`;

  return {
    url,
    register(competitionId, samplePath, runId, grader) {
      const k = `${competitionId}\0${runId ?? ""}`;
      let token = tokenOf.get(k);
      if (!token) {
        token = randomBytes(16).toString("hex");
        tokenOf.set(k, token);
        byToken.set(token, { competitionId, samplePath, grader: grader ?? null, used: 0, busy: false });
      }
      return `${url}/${token}/validate`;
    },
    async listenSocket(validateUrl, socketPath) {
      const entry = byToken.get(/\/([0-9a-f]{32})\/validate$/.exec(validateUrl)?.[1] ?? "");
      if (!entry) throw new Error(`not a URL of this server: ${validateUrl}`);
      const local = guarded(
        http.createServer((req, res) =>
          handle(req, res, /^\/validate\/?$/.test(req.url ?? "") ? entry : undefined),
        ),
      );
      rmSync(socketPath, { force: true });
      await new Promise<void>((resolve, reject) => {
        local.once("error", reject);
        local.listen(socketPath, () => resolve());
      });
      chmodSync(socketPath, 0o666);
      sockets.add(local);
      return () => {
        sockets.delete(local);
        return stop(local).then(() => rmSync(socketPath, { force: true }));
      };
    },
    close: async () => {
      await Promise.all([...sockets].map(stop));
      await stop(server);
      rmSync(spool, { recursive: true, force: true });
    },
  };
}

/** Slow senders cannot hold the endpoint: headers within 10 s, a whole request within 2 min. */
function guarded(server: http.Server): http.Server {
  server.headersTimeout = 10_000;
  server.requestTimeout = 120_000;
  server.maxConnections = 64;
  return server;
}

function stop(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
