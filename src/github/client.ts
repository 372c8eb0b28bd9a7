// Octokit from @actions/github with bounded retries; the one place that builds a client.
import { getOctokit } from "@actions/github";

export type GitHubClient = ReturnType<typeof getOctokit>;

export interface ClientOptions {
  /** REST API root, e.g. https://api.github.com or http://127.0.0.1:1234 in tests. */
  baseUrl: string;
  /** Extra tries after a 5xx, a 429, a rate-limit 403, a timeout or a network error. Default 3. */
  retries?: number;
  /** First wait; doubles on each retry. Default 500 ms. */
  retryDelayMs?: number;
  /**
   * Longest wait the API may ask for (retry-after, x-ratelimit-reset) before a retry; a longer one
   * fails the request at once, saying so. Default 60 s.
   */
  maxWaitMs?: number;
  /** One request's time limit (then it counts as failed and is retried). Default 30 s. */
  timeoutMs?: number;
  /** Called before each retry (for a log line). */
  onRetry?: (info: {
    attempt: number;
    status: number | undefined;
    method: string;
    url: string;
    waitMs: number;
  }) => void;
}

export function statusOf(error: unknown): number | undefined {
  const s = (error as { status?: unknown } | null)?.status;
  return typeof s === "number" ? s : undefined;
}

function headerOf(error: unknown, name: string): string | undefined {
  const h = (error as { response?: { headers?: Record<string, unknown> } } | null)?.response?.headers;
  const v = h?.[name];
  return typeof v === "string" || typeof v === "number" ? String(v) : undefined;
}

/** A 403 that is a rate limit (primary: no requests left; secondary: GitHub's message says so). */
function rateLimited403(error: unknown): boolean {
  if (statusOf(error) !== 403) return false;
  if (headerOf(error, "x-ratelimit-remaining") === "0") return true;
  return /secondary rate limit|rate limit exceeded/i.test((error as Error).message ?? "");
}

function retryable(error: unknown): boolean {
  const status = statusOf(error);
  // No status: the request never got an answer (connection reset, DNS); worth another try.
  return status === undefined || status >= 500 || status === 429 || rateLimited403(error);
}

/**
 * How long the API asked to wait, in ms: retry-after (seconds or a date), else the rate limit's
 * reset time when none are left; null when it asked nothing. A secondary rate limit without either
 * header waits a minute, as GitHub's documentation says.
 */
export function askedWaitMs(error: unknown, now = Date.now()): number | null {
  const after = headerOf(error, "retry-after");
  if (after !== undefined) {
    const secs = Number(after);
    if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
    const at = Date.parse(after);
    if (Number.isFinite(at)) return Math.max(0, at - now);
  }
  const reset = Number(headerOf(error, "x-ratelimit-reset"));
  if (headerOf(error, "x-ratelimit-remaining") === "0" && Number.isFinite(reset))
    return Math.max(0, reset * 1000 - now);
  if (rateLimited403(error)) return 60_000;
  return null;
}

/**
 * The request, or a timeout error (no status: retried) after `ms`. The signal is passed on too, but
 * the proxy-aware fetch of @actions/github does not always honour it, so the race decides.
 */
async function withTimeout<T>(
  run: (signal: AbortSignal) => Promise<T>,
  ms: number,
  what: string,
): Promise<T> {
  const ctl = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      ctl.abort();
      reject(new Error(`${what}: no answer within ${ms / 1000} s`));
    }, ms);
  });
  try {
    return await Promise.race([run(ctl.signal), late]);
  } finally {
    clearTimeout(timer);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Octokit from @actions/github with bounded retries. @actions/github bundles no retry or
 * throttling plugin, so this hook is the one retry policy: 5xx, network errors and timeouts back
 * off exponentially; 429 and rate-limit 403s wait as long as the API asks (retry-after,
 * x-ratelimit-reset), up to `maxWaitMs`.
 */
export function createClient(token: string, options: ClientOptions): GitHubClient {
  const client = getOctokit(token, { baseUrl: options.baseUrl.replace(/\/+$/, "") });
  const retries = options.retries ?? 3;
  const base = options.retryDelayMs ?? 500;
  const maxWait = options.maxWaitMs ?? 60_000;
  const timeoutMs = options.timeoutMs ?? 30_000;
  client.hook.wrap("request", async (request, req) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await withTimeout(
          async (signal) => request({ ...req, request: { ...req.request, signal } }),
          timeoutMs,
          `${req.method} ${req.url}`,
        );
      } catch (error) {
        if (attempt > retries || !retryable(error)) throw error;
        const asked = askedWaitMs(error);
        if (asked !== null && asked > maxWait) {
          const e = error as Error;
          e.message = `${e.message} (the API asked to wait ${Math.ceil(asked / 1000)} s, more than the ${Math.round(maxWait / 1000)} s limit: not retried)`;
          throw e;
        }
        const waitMs = asked ?? base * 2 ** (attempt - 1);
        options.onRetry?.({ attempt, status: statusOf(error), method: req.method, url: req.url, waitMs });
        await sleep(waitMs);
      }
    }
  });
  return client;
}

/** Login of the token's user: GET /user, or github-actions[bot] for app/installation tokens that cannot call it. */
export async function tokenLogin(client: GitHubClient): Promise<string> {
  try {
    const { data } = await client.rest.users.getAuthenticated();
    return data.login;
  } catch (error) {
    if (statusOf(error) === 403) return "github-actions[bot]";
    throw error;
  }
}
