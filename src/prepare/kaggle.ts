import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { UserError } from "../errors.js";
import { md5File } from "./manifest.js";

export const KAGGLE_API = "https://www.kaggle.com/api/v1";

export interface KaggleCredentials {
  username: string;
  key: string;
}

/** KAGGLE_USERNAME/KAGGLE_KEY, else kaggle.json in KAGGLE_CONFIG_DIR or ~/.kaggle. */
export function kaggleCredentials(env: NodeJS.ProcessEnv = process.env): KaggleCredentials {
  if (env.KAGGLE_USERNAME && env.KAGGLE_KEY) return { username: env.KAGGLE_USERNAME, key: env.KAGGLE_KEY };
  const file = join(env.KAGGLE_CONFIG_DIR ?? join(homedir(), ".kaggle"), "kaggle.json");
  if (existsSync(file)) {
    try {
      const j = JSON.parse(readFileSync(file, "utf8")) as { username?: string; key?: string };
      if (j.username && j.key) return { username: j.username, key: j.key };
    } catch {
      /* reported below */
    }
    throw new UserError(
      `${file} must be JSON with "username" and "key" (download it from your Kaggle account settings)`,
    );
  }
  throw new UserError(
    "no Kaggle credentials: set KAGGLE_USERNAME and KAGGLE_KEY, or put kaggle.json (from kaggle.com → Settings → API) in ~/.kaggle/",
  );
}

export interface DownloadOptions {
  /** Kaggle API base URL (tests point it at a loopback server). */
  baseUrl?: string;
  credentials: KaggleCredentials;
  /** Expected MD5 of the zip (upstream's checksums.yaml); a mismatch rejects the file. */
  md5?: string;
  /** Further attempts after a dropped connection, each resuming where the last stopped. */
  retries?: number;
  retryDelayMs?: number;
  log?: (line: string) => void;
}

export function rulesUrl(id: string): string {
  return `https://www.kaggle.com/competitions/${id}/rules`;
}

function statusError(id: string, status: number, body: string): Error {
  const detail = body.trim().slice(0, 200);
  if (status === 401) {
    return new UserError(
      `${id}: Kaggle rejected the credentials (HTTP 401). Check KAGGLE_USERNAME/KAGGLE_KEY or ~/.kaggle/kaggle.json ` +
        "(create a fresh API token at kaggle.com → Settings → API)",
    );
  }
  if (status === 403) {
    return new UserError(
      `${id}: Kaggle refused the download (HTTP 403): the competition's rules have not been accepted for this account. ` +
        `Open ${rulesUrl(id)} while logged in, click "I Understand and Accept", then run again`,
    );
  }
  if (status === 404) return new UserError(`${id}: no such competition on Kaggle (HTTP 404)`);
  return new Error(`${id}: Kaggle download failed with HTTP ${status}${detail ? `: ${detail}` : ""}`);
}

class Interrupted extends Error {}

/**
 * The Kaggle host cannot be reached at all (its name does not resolve, or nothing listens): no
 * competition will download from it, so there is no point retrying or trying the next one.
 */
export class HostUnreachableError extends UserError {
  constructor(
    readonly host: string,
    /** The cause in a few words, for the line of each competition not downloaded. */
    readonly short: string,
    message: string,
  ) {
    super(message, 1);
    this.name = "HostUnreachableError";
  }
}

/** The error for a fetch that got no response; a HostUnreachableError when the host is not there. */
function unreachable(id: string, url: string, e: unknown): Error {
  const cause = (e as { cause?: NodeJS.ErrnoException }).cause;
  const code = cause?.code ?? "";
  const host = new URL(url).host;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") {
    return new HostUnreachableError(
      host,
      `cannot resolve ${host}`,
      `cannot resolve ${host} (${code}): no network, or no DNS on this machine? ` +
        "Connect it (or run where Kaggle is reachable), then run again",
    );
  }
  if (code === "ECONNREFUSED" || code === "EHOSTUNREACH" || code === "ENETUNREACH") {
    return new HostUnreachableError(
      host,
      `cannot connect to ${host}`,
      `cannot connect to ${host} (${code}): no network, or a firewall in the way? ` +
        "Connect this machine (or check --kaggle-url), then run again",
    );
  }
  const detail = cause?.message ?? (e as Error).message;
  return new Interrupted(`${id}: cannot reach Kaggle (${detail})`);
}

/**
 * GET following redirects by hand: Kaggle answers with a redirect to a signed storage URL, which
 * must not receive the Kaggle credentials (another origin), while the Range header must travel on.
 */
async function fetchFollowing(url: string, headers: Record<string, string>): Promise<Response> {
  const origin = new URL(url).origin;
  let current = url;
  for (let hop = 0; hop < 5; hop++) {
    const h = { ...headers };
    if (new URL(current).origin !== origin) delete h.authorization;
    const res = await fetch(current, { headers: h, redirect: "manual" });
    const location = res.headers.get("location");
    if (res.status < 300 || res.status >= 400 || !location) return res;
    await res.body?.cancel();
    current = new URL(location, current).href;
  }
  throw new Error("too many redirects");
}

/** One attempt: appends to `part` (resuming with a Range request); throws Interrupted if cut short. */
async function attempt(id: string, url: string, part: string, opts: DownloadOptions): Promise<void> {
  const have = existsSync(part) ? statSync(part).size : 0;
  const auth = Buffer.from(`${opts.credentials.username}:${opts.credentials.key}`).toString("base64");
  const headers: Record<string, string> = { authorization: `Basic ${auth}`, "user-agent": "medalist" };
  if (have > 0) headers.range = `bytes=${have}-`;
  let res: Response;
  try {
    res = await fetchFollowing(url, headers);
  } catch (e) {
    throw unreachable(id, url, e);
  }
  if (res.status === 416 && have > 0) {
    // Range not satisfiable: the .part is not a prefix of the current file; start over.
    rmSync(part, { force: true });
    throw new Interrupted(`${id}: the partial download no longer matches the server's file; starting over`);
  }
  if (res.status !== 200 && res.status !== 206)
    throw statusError(id, res.status, await res.text().catch(() => ""));
  let offset = have;
  if (res.status === 200 || !/^bytes (\d+)-/.test(res.headers.get("content-range") ?? "")) offset = 0;
  else offset = Number(/^bytes (\d+)-/.exec(res.headers.get("content-range")!)![1]);
  if (offset > have)
    throw new Error(`${id}: server resumed at byte ${offset}, but only ${have} bytes are here`);
  const total = totalSize(res, offset);
  const fd = openSync(part, offset === 0 ? "w" : "r+");
  let written = offset;
  let nextTenth = Math.floor((10 * offset) / (total ?? Infinity)) + 1;
  try {
    if (!res.body) throw new Interrupted(`${id}: empty response`);
    const reader = res.body.getReader();
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (e) {
        throw new Interrupted(`${id}: connection dropped after ${written} bytes (${(e as Error).message})`);
      }
      if (chunk.done) break;
      writeSync(fd, chunk.value, 0, chunk.value.length, written);
      written += chunk.value.length;
      // Progress for large files, every tenth.
      if (total !== undefined && total > 100e6 && Math.floor((10 * written) / total) > nextTenth - 1) {
        opts.log?.(`${id}: ${Math.round((100 * written) / total)}% of ${(total / 1e9).toFixed(2)} GB`);
        nextTenth = Math.floor((10 * written) / total) + 1;
      }
    }
  } finally {
    closeSync(fd);
  }
  if (total !== undefined && written !== total) {
    throw new Interrupted(`${id}: connection closed after ${written} of ${total} bytes`);
  }
  if (total === undefined)
    throw new Interrupted(`${id}: the server did not say how long the file is; cannot trust it`);
}

function totalSize(res: Response, offset: number): number | undefined {
  const range = /\/(\d+)$/.exec(res.headers.get("content-range") ?? "");
  if (range) return Number(range[1]);
  const len = res.headers.get("content-length");
  return len === null ? undefined : offset + Number(len);
}

/**
 * Downloads all of a competition's files (one zip) to `dest`, through `<dest>.part`.
 * The .part survives an interruption and is resumed with a Range request; `dest` appears only
 * once the whole body arrived (and matched `md5`, when given). A wrong checksum deletes the file.
 */
export async function downloadCompetition(id: string, dest: string, opts: DownloadOptions): Promise<void> {
  const base = (opts.baseUrl ?? KAGGLE_API).replace(/\/+$/, "");
  const url = `${base}/competitions/data/download-all/${encodeURIComponent(id)}`;
  const part = `${dest}.part`;
  const retries = opts.retries ?? 3;
  for (let i = 0; ; i++) {
    try {
      await attempt(id, url, part, opts);
      break;
    } catch (e) {
      if (!(e instanceof Interrupted)) throw e;
      if (i >= retries) {
        const kept = existsSync(part) && statSync(part).size > 0;
        if (!kept) rmSync(part, { force: true });
        throw new UserError(
          kept
            ? `${e.message}; the partial file ${part} is kept, run again to resume`
            : `${e.message}; nothing was downloaded, run again to retry`,
          1,
        );
      }
      opts.log?.(`${e.message}; resuming (attempt ${i + 2} of ${retries + 1})`);
      await new Promise((r) => setTimeout(r, opts.retryDelayMs ?? 5000));
    }
  }
  if (opts.md5) {
    const got = await md5File(part);
    if (got !== opts.md5) {
      rmSync(part, { force: true });
      throw new UserError(
        `${id}: the downloaded zip's MD5 ${got} differs from upstream's ${opts.md5}; it was deleted. ` +
          "Kaggle sometimes re-packages downloads: run with --skip-verification to accept it",
        1,
      );
    }
  }
  renameSync(part, dest);
}
