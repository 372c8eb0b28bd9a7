import { createHash } from "node:crypto";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fetchedLeaderboardFile, matchesPin } from "./leaderboards.js";
import type { RegistryEntry } from "./registry.js";

/** Upstream's Git LFS endpoint: leaderboards are fetched by their pinned object id. */
export const MLEBENCH_LFS = "https://github.com/openai/mle-bench.git/info/lfs";

export interface FetchLeaderboardsOptions {
  /** Where verified leaderboards go: <dir>/<id>/leaderboard.csv. */
  dir: string;
  /** A plain mirror instead of Git LFS: GET <baseUrl>/<id>/leaderboard.csv. */
  baseUrl?: string;
  /** Git LFS endpoint (default: upstream's). */
  lfsUrl?: string;
  log?: (line: string) => void;
}

export interface FetchLeaderboardsResult {
  fetched: string[];
  /** Already present and verified. */
  present: string[];
  failed: { id: string; message: string }[];
  /** Set when the host could not be reached at all: the cause, once (the rest were not tried). */
  unreachable?: string;
}

/**
 * A fetch that got no response, in words: Node's own message is only "fetch failed", the cause
 * (DNS, refused connection) is on its `cause`. `host` is set when the host cannot be reached at all.
 */
export function fetchFailure(url: string, e: unknown): { message: string; host: boolean } {
  const cause = (e as { cause?: NodeJS.ErrnoException }).cause;
  const code = cause?.code ?? "";
  const host = (() => {
    try {
      return new URL(url).host;
    } catch {
      return url;
    }
  })();
  if (code === "ENOTFOUND" || code === "EAI_AGAIN")
    return {
      message: `cannot resolve ${host} (${code}): no network, or no DNS on this machine?`,
      host: true,
    };
  if (code === "ECONNREFUSED" || code === "EHOSTUNREACH" || code === "ENETUNREACH")
    return {
      message: `cannot connect to ${host} (${code}): no network, or a firewall in the way?`,
      host: true,
    };
  const detail = cause?.message ? `${(e as Error).message}: ${cause.message}` : (e as Error).message;
  return { message: `${host}: ${detail}`, host: false };
}

/** fetch, with a failure to get any response said with its cause (see fetchFailure). */
async function fetchOrSay(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (e) {
    const f = fetchFailure(url, e);
    throw Object.assign(new Error(f.message), { unreachableHost: f.host });
  }
}

interface Source {
  url: string;
  headers: Record<string, string>;
}

const LFS_JSON = "application/vnd.git-lfs+json";

/** Asks the LFS batch API where to download each pinned object. */
async function lfsSources(entries: RegistryEntry[], lfsUrl: string): Promise<Map<string, Source | string>> {
  const out = new Map<string, Source | string>();
  for (let i = 0; i < entries.length; i += 100) {
    const chunk = entries.slice(i, i + 100);
    const objects = chunk.map((e) => ({
      oid: e.competition.leaderboardPin!.sha256,
      size: e.competition.leaderboardPin!.bytes,
    }));
    const res = await fetchOrSay(`${lfsUrl.replace(/\/+$/, "")}/objects/batch`, {
      method: "POST",
      headers: { accept: LFS_JSON, "content-type": LFS_JSON },
      body: JSON.stringify({ operation: "download", transfers: ["basic"], objects }),
    });
    if (!res.ok) throw new Error(`Git LFS batch request failed: HTTP ${res.status}`);
    const body = (await res.json()) as {
      objects?: {
        oid: string;
        actions?: { download?: { href: string; header?: Record<string, string> } };
        error?: { message?: string };
      }[];
    };
    const byOid = new Map((body.objects ?? []).map((o) => [o.oid, o]));
    for (const e of chunk) {
      const o = byOid.get(e.competition.leaderboardPin!.sha256);
      const dl = o?.actions?.download;
      out.set(
        e.competition.id,
        dl
          ? { url: dl.href, headers: dl.header ?? {} }
          : `LFS has no download for it${o?.error?.message ? ` (${o.error.message})` : ""}`,
      );
    }
  }
  return out;
}

/**
 * Downloads the upstream leaderboard CSVs and keeps each only if its SHA-256 and size match the
 * pin in competition.json. A mismatching download is discarded (never written in place).
 */
export async function fetchLeaderboards(
  entries: RegistryEntry[],
  opts: FetchLeaderboardsOptions,
): Promise<FetchLeaderboardsResult> {
  const result: FetchLeaderboardsResult = { fetched: [], present: [], failed: [] };
  const todo: RegistryEntry[] = [];
  for (const e of entries) {
    if (!e.competition.leaderboardPin) continue;
    if (matchesPin(e, fetchedLeaderboardFile(opts.dir, e.competition.id)))
      result.present.push(e.competition.id);
    else todo.push(e);
  }
  if (todo.length === 0) return result;

  let sources: Map<string, Source | string>;
  if (opts.baseUrl) {
    const base = opts.baseUrl.replace(/\/+$/, "");
    sources = new Map(
      todo.map((e) => [
        e.competition.id,
        { url: `${base}/${encodeURIComponent(e.competition.id)}/leaderboard.csv`, headers: {} },
      ]),
    );
  } else {
    try {
      sources = await lfsSources(todo, opts.lfsUrl ?? MLEBENCH_LFS);
    } catch (err) {
      for (const e of todo) result.failed.push({ id: e.competition.id, message: (err as Error).message });
      if ((err as { unreachableHost?: boolean }).unreachableHost) result.unreachable = (err as Error).message;
      return result;
    }
  }

  for (const e of todo) {
    const id = e.competition.id;
    const pin = e.competition.leaderboardPin!;
    const src = sources.get(id)!;
    if (result.unreachable) {
      // The host did not answer the first time: the others are not tried, and fail for that cause.
      result.failed.push({ id, message: result.unreachable });
      continue;
    }
    try {
      if (typeof src === "string") throw new Error(src);
      const res = await fetchOrSay(src.url, { headers: src.headers });
      if (!res.ok) throw new Error(`HTTP ${res.status} from ${src.url}`);
      const body = Buffer.from(await res.arrayBuffer());
      const sha = createHash("sha256").update(body).digest("hex");
      if (sha !== pin.sha256 || body.length !== pin.bytes) {
        throw new Error(
          `SHA-256 ${sha} (${body.length} bytes) differs from the pinned ${pin.sha256} (${pin.bytes} bytes); not kept`,
        );
      }
      const file = fetchedLeaderboardFile(opts.dir, id);
      mkdirSync(dirname(file), { recursive: true });
      const tmp = `${file}.tmp-${process.pid}`;
      writeFileSync(tmp, body);
      renameSync(tmp, file);
      result.fetched.push(id);
      opts.log?.(`${id}: verified (${body.length} bytes)`);
    } catch (err) {
      rmSync(`${fetchedLeaderboardFile(opts.dir, id)}.tmp-${process.pid}`, { force: true });
      result.failed.push({ id, message: (err as Error).message });
      if ((err as { unreachableHost?: boolean }).unreachableHost) result.unreachable = (err as Error).message;
    }
  }
  return result;
}
