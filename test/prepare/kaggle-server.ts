import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback server speaking the Kaggle API endpoint Medalist uses:
 * GET /api/v1/competitions/data/download-all/<id> (HTTP Basic auth) → 302 to /storage/<id>.zip,
 * which honours Range requests, like the signed storage URL Kaggle redirects to.
 */
export interface FakeKaggle {
  url: string;
  files: Map<string, Buffer>;
  /** Competitions whose rules the account has not accepted (403). */
  rulesNotAccepted: Set<string>;
  /** Cut the connection after this many body bytes, for the next `times` storage responses. */
  drop: { afterBytes: number; times: number };
  /** Answer Range requests with the whole file (200), as some servers do. */
  ignoreRange: boolean;
  /** Redirect to another origin (localhost instead of 127.0.0.1), like Kaggle's storage URLs. */
  crossOrigin: boolean;
  /** Authorization headers seen by the storage endpoint, in order. */
  storageAuth: (string | undefined)[];
  /** Wait this long before answering a storage request. */
  delayMs: number;
  /** description.md per competition, served at /descriptions/<id>/description.md. */
  descriptions: Map<string, string>;
  /** Range headers seen by the storage endpoint, in order. */
  ranges: (string | undefined)[];
  requests: number;
  close(): Promise<void>;
}

export const USER = "ada";
export const KEY = "secret-key";

function authorised(req: IncomingMessage): boolean {
  const h = req.headers.authorization ?? "";
  return h === `Basic ${Buffer.from(`${USER}:${KEY}`).toString("base64")}`;
}

export async function startFakeKaggle(): Promise<FakeKaggle> {
  const state = {
    files: new Map<string, Buffer>(),
    rulesNotAccepted: new Set<string>(),
    drop: { afterBytes: 0, times: 0 },
    ignoreRange: false,
    delayMs: 0,
    crossOrigin: false,
    storageAuth: [] as (string | undefined)[],
    descriptions: new Map<string, string>(),
    ranges: [] as (string | undefined)[],
    requests: 0,
  };
  const server: Server = createServer((req, res) => {
    state.requests++;
    const url = new URL(req.url ?? "/", "http://x");
    const api = /^\/api\/v1\/competitions\/data\/download-all\/([^/]+)$/.exec(url.pathname);
    if (api) {
      const id = decodeURIComponent(api[1]);
      if (!authorised(req)) {
        res.writeHead(401, { "content-type": "application/json" });
        res.end(JSON.stringify({ code: 401, message: "Unauthenticated" }));
      } else if (!state.files.has(id)) {
        res.writeHead(404).end();
      } else if (state.rulesNotAccepted.has(id)) {
        res.writeHead(403, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            code: 403,
            message: "You must accept this competition's rules before you'll be able to download files.",
          }),
        );
      } else {
        const port = (server.address() as AddressInfo).port;
        const host = state.crossOrigin ? `http://localhost:${port}` : "";
        res.writeHead(302, { location: `${host}/storage/${encodeURIComponent(id)}.zip` }).end();
      }
      return;
    }
    const desc = /^\/descriptions\/([^/]+)\/description\.md$/.exec(url.pathname);
    if (desc) {
      const text = state.descriptions.get(decodeURIComponent(desc[1]));
      if (text === undefined) res.writeHead(404).end();
      else res.writeHead(200).end(text);
      return;
    }
    const storage = /^\/storage\/([^/]+)\.zip$/.exec(url.pathname);
    const body = storage ? state.files.get(decodeURIComponent(storage[1])) : undefined;
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    state.ranges.push(req.headers.range);
    state.storageAuth.push(req.headers.authorization);
    if (state.delayMs > 0) {
      setTimeout(() => serve(req, res, body), state.delayMs);
      return;
    }
    serve(req, res, body);
  });
  function serve(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    let start = 0;
    const m = state.ignoreRange ? null : /^bytes=(\d+)-$/.exec(req.headers.range ?? "");
    if (m) {
      start = Number(m[1]);
      if (start >= body.length) {
        res.writeHead(416, { "content-range": `bytes */${body.length}` }).end();
        return;
      }
      res.writeHead(206, {
        "content-length": body.length - start,
        "content-range": `bytes ${start}-${body.length - 1}/${body.length}`,
      });
    } else {
      res.writeHead(200, { "content-length": body.length, "accept-ranges": "bytes" });
    }
    const rest = body.subarray(start);
    if (state.drop.times > 0 && state.drop.afterBytes < rest.length) {
      state.drop.times--;
      res.write(rest.subarray(0, state.drop.afterBytes), () => setTimeout(() => res.socket?.destroy(), 20));
      return;
    }
    res.end(rest);
  }
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}/api/v1`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
}
