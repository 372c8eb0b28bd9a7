// Octokit from @actions/github with retries on server errors; the one place that builds a client.
import { getOctokit } from "@actions/github";

export type GitHubClient = ReturnType<typeof getOctokit>;

export interface ClientOptions {
  /** REST API root, e.g. https://api.github.com or http://127.0.0.1:1234 in tests. */
  baseUrl: string;
  /** Extra tries after a 5xx or a network error. Default 3. */
  retries?: number;
  /** First wait; doubles on each retry. Default 500 ms. */
  retryDelayMs?: number;
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

function retryable(error: unknown): boolean {
  const status = statusOf(error);
  // No status: the request never got an answer (connection reset, DNS); worth another try.
  return status === undefined || status >= 500;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createClient(token: string, options: ClientOptions): GitHubClient {
  const client = getOctokit(token, { baseUrl: options.baseUrl.replace(/\/+$/, "") });
  const retries = options.retries ?? 3;
  const base = options.retryDelayMs ?? 500;
  client.hook.wrap("request", async (request, req) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await request(req);
      } catch (error) {
        if (attempt > retries || !retryable(error)) throw error;
        const waitMs = base * 2 ** (attempt - 1);
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
