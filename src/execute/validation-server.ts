import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import type Docker from "dockerode";
import { parseCsv } from "../prepare/csv.js";

/**
 * Format checks for agents: an HTTP endpoint on the runner, reachable from the containers, that
 * compares a posted submission with the competition's public sample submission (columns, ids,
 * row count). It never grades and never returns a score.
 *
 *   POST <url>   body: the CSV (raw), or multipart/form-data with a `file` part (MLE-bench style)
 *   → 200 {"valid": bool, "result": "...", "errors": [...]}
 */

export { parseCsv };

export interface SampleShape {
  columns: string[];
  /** The id column (the sample's first) and its values. */
  idColumn: string;
  ids: Set<string>;
  rows: number;
}

/** Rows of a CSV without blank lines (pandas skips them too). */
function csvRows(text: string): string[][] {
  return parseCsv(text).filter((r) => !(r.length === 1 && r[0] === ""));
}

export function sampleShape(csv: string): SampleShape {
  const [header, ...body] = csvRows(csv);
  if (!header || header.length === 0) throw new Error("the sample submission is empty");
  return { columns: header, idColumn: header[0], ids: new Set(body.map((r) => r[0])), rows: body.length };
}

export interface FormatCheck {
  valid: boolean;
  errors: string[];
}

const few = (xs: string[], n = 5) =>
  xs
    .slice(0, n)
    .map((x) => JSON.stringify(x))
    .join(", ") + (xs.length > n ? `, … (${xs.length} in all)` : "");

/** Same columns, same ids, same row count as the sample; no score, ever. */
export function checkFormat(sample: SampleShape, submissionCsv: string): FormatCheck {
  const errors: string[] = [];
  const [header, ...body] = csvRows(submissionCsv);
  if (!header) return { valid: false, errors: ["the submission is empty"] };

  const missing = sample.columns.filter((c) => !header.includes(c));
  const extra = header.filter((c) => !sample.columns.includes(c));
  if (missing.length > 0) errors.push(`missing columns: ${few(missing)}`);
  if (extra.length > 0) errors.push(`unexpected columns: ${few(extra)}`);
  if (new Set(header).size !== header.length) errors.push("duplicate column names");

  const ragged = body.findIndex((r) => r.length !== header.length);
  if (ragged >= 0)
    errors.push(`row ${ragged + 2} has ${body[ragged].length} fields, the header has ${header.length}`);
  if (body.length !== sample.rows)
    errors.push(`${body.length} rows, expected ${sample.rows} (as in the sample submission)`);

  const idAt = header.indexOf(sample.idColumn);
  if (idAt >= 0) {
    const seen = new Set<string>();
    const dupes: string[] = [];
    const unknown: string[] = [];
    for (const r of body) {
      const id = r[idAt] ?? "";
      if (seen.has(id)) dupes.push(id);
      seen.add(id);
      if (!sample.ids.has(id)) unknown.push(id);
    }
    const absent = [...sample.ids].filter((id) => !seen.has(id));
    if (absent.length > 0) errors.push(`ids missing from ${sample.idColumn}: ${few(absent)}`);
    if (unknown.length > 0) errors.push(`ids not in the sample submission: ${few(unknown)}`);
    if (dupes.length > 0) errors.push(`duplicate ids: ${few(dupes)}`);
  }
  return { valid: errors.length === 0, errors };
}

/** The file part of a multipart/form-data body (field `file`, else the first part with a filename). */
export function multipartFile(body: Buffer, contentType: string): Buffer | null {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!m) return null;
  const delim = Buffer.from(`--${m[1] ?? m[2].trim()}`);
  const parts: { headers: string; content: Buffer }[] = [];
  let at = body.indexOf(delim);
  while (at >= 0) {
    const start = at + delim.length;
    if (body.subarray(start, start + 2).toString() === "--") break;
    const next = body.indexOf(delim, start);
    if (next < 0) break;
    const part = body.subarray(start + 2, next - 2); // skip CRLF after the delimiter and before the next
    const split = part.indexOf("\r\n\r\n");
    if (split >= 0)
      parts.push({ headers: part.subarray(0, split).toString(), content: part.subarray(split + 4) });
    at = next;
  }
  const named =
    parts.find((p) => /name="file"/i.test(p.headers)) ?? parts.find((p) => /filename=/i.test(p.headers));
  return named?.content ?? null;
}

export interface ValidationServer {
  /** Base URL (what containers can reach). */
  readonly url: string;
  /** URL checking submissions of one competition (an unguessable path per competition). */
  register(competitionId: string, sampleSubmissionPath: string): string;
  close(): Promise<void>;
}

export interface ValidationServerOptions {
  /** Address to listen on. Default 127.0.0.1; for containers, the Docker bridge gateway. */
  host?: string;
  /** Host name or address put in URLs; default `host`. */
  advertiseHost?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Largest accepted submission. Default 512 MiB. */
  maxBytes?: number;
}

export async function startValidationServer(opts: ValidationServerOptions = {}): Promise<ValidationServer> {
  const maxBytes = opts.maxBytes ?? 512 * 1024 ** 2;
  const byToken = new Map<
    string,
    { competitionId: string; samplePath: string; shape?: Promise<SampleShape> }
  >();
  const tokenOf = new Map<string, string>();

  const server = http.createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body) + "\n");
    };
    const m = /^\/([0-9a-f]{32})\/validate\/?$/.exec(req.url ?? "");
    const entry = m ? byToken.get(m[1]) : undefined;
    if (req.url === "/health") return reply(200, { ok: true });
    if (!entry) return reply(404, { error: "unknown validation URL" });
    if (req.method !== "POST")
      return reply(405, { error: "POST the submission CSV (raw body, or multipart with a `file` part)" });

    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) tooBig = true;
      else chunks.push(c);
    });
    req.on("end", async () => {
      if (tooBig) return reply(413, { error: `submission larger than ${maxBytes} bytes` });
      try {
        let body: Buffer = Buffer.concat(chunks);
        const type = req.headers["content-type"] ?? "";
        if (/^multipart\/form-data/i.test(type)) {
          const file = multipartFile(body, type);
          if (!file) return reply(400, { error: "no file part in the multipart body" });
          body = file;
        }
        entry.shape ??= readFile(entry.samplePath, "utf8").then(sampleShape);
        const check = checkFormat(await entry.shape, body.toString("utf8"));
        reply(200, {
          competition_id: entry.competitionId,
          valid: check.valid,
          result: check.valid ? "Submission is valid." : `Submission is invalid: ${check.errors.join("; ")}`,
          errors: check.errors,
        });
      } catch (e) {
        entry.shape = undefined;
        reply(500, { error: `could not check the submission: ${(e as Error).message}` });
      }
    });
    req.on("error", () => res.destroy());
  });

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
    register(competitionId, samplePath) {
      let token = tokenOf.get(competitionId);
      if (!token) {
        token = randomBytes(16).toString("hex");
        tokenOf.set(competitionId, token);
        byToken.set(token, { competitionId, samplePath });
      }
      return `${url}/${token}/validate`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The Docker bridge's gateway address on this host (what containers on `bridge` reach the runner by). */
export async function bridgeGateway(docker: Docker): Promise<string | null> {
  try {
    const net = await docker.getNetwork("bridge").inspect();
    const configs: { Gateway?: string; Subnet?: string }[] = net.IPAM?.Config ?? [];
    const gw = configs.map((c) => c.Gateway).find(Boolean);
    if (gw) return gw;
    // The default bridge often lists only its subnet; its gateway is the subnet's first address.
    const subnet = configs.map((c) => c.Subnet).find((s) => s && /^\d+\.\d+\.\d+\.\d+\/\d+$/.test(s));
    if (subnet) return firstHost(subnet);
  } catch {
    // fall back to the interface
  }
  const addrs = os.networkInterfaces().docker0 ?? [];
  return addrs.find((a) => a.family === "IPv4")?.address ?? null;
}

/** "172.17.0.0/16" → "172.17.0.1". */
export function firstHost(cidr: string): string {
  const [ip, bits] = cidr.split("/");
  const n = ip.split(".").reduce((a, o) => a * 256 + Number(o), 0);
  const first = (Math.floor(n / 2 ** (32 - Number(bits))) * 2 ** (32 - Number(bits)) + 1) % 2 ** 32;
  return [24, 16, 8, 0].map((s) => Math.floor(first / 2 ** s) % 256).join(".");
}

/** A validation server bound to the Docker bridge gateway, reachable from containers on `bridge`. */
export async function startValidationServerForDocker(
  docker: Docker,
  opts: Omit<ValidationServerOptions, "host"> = {},
): Promise<ValidationServer> {
  const gw = await bridgeGateway(docker);
  if (!gw) throw new Error("no Docker bridge gateway found: cannot serve format checks to containers");
  return startValidationServer({ ...opts, host: gw });
}
