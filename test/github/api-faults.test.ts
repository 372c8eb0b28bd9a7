// GitHub's API failing under the sticky comment (docs/reliability.md): 5xx, 429 with retry-after,
// secondary rate limits, timeouts, and a create that succeeded although its answer was lost.
// Retries are bounded and honour retry-after up to a cap; the comment exists once.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { askedWaitMs, createClient, type ClientOptions } from "../../src/github/client.js";
import { upsertStickyComment } from "../../src/github/comment.js";
import { commentMarker } from "../../src/github/marker.js";
import { FakeGitHub } from "../fixtures/github/server.js";

const marker = commentMarker("Medalist PR", "lite");
const target = { owner: "acme", repo: "agent", issueNumber: 7, marker };

describe("GitHub API faults under the sticky comment", () => {
  let gh: FakeGitHub;
  beforeEach(async () => {
    gh = new FakeGitHub();
    await gh.start();
  });
  afterEach(() => gh.stop());
  const waits: number[] = [];
  const client = (o: Partial<ClientOptions> = {}) =>
    createClient("t0ken", {
      baseUrl: gh.url,
      retryDelayMs: 10,
      onRetry: (r) => waits.push(r.waitMs),
      ...o,
    });
  const posts = () => gh.requests.filter((q) => q.method === "POST").map((q) => q.status);
  const bodies = () => gh.thread("acme", "agent", 7).map((c) => c.body);

  it("a 429 waits as long as retry-after says, then the comment is posted once", async () => {
    waits.length = 0;
    gh.faults.push({
      method: "POST",
      path: /\/comments$/,
      status: 429,
      times: 1,
      headers: { "retry-after": "1" },
    });
    const t0 = Date.now();
    const r = await upsertStickyComment(client(), target, `${marker}\nv1`);
    expect(r!.action).toBe("created");
    expect(waits).toEqual([1000]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    expect(posts()).toEqual([429, 201]);
    expect(bodies()).toEqual([`${marker}\nv1`]);
  });

  it("a secondary or a primary rate limit (403) is waited out", async () => {
    waits.length = 0;
    gh.faults.push({
      method: "GET",
      path: /\/comments$/,
      status: 403,
      times: 1,
      message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
      headers: { "retry-after": "0" },
    });
    const r = await upsertStickyComment(client(), target, `${marker}\nv1`);
    expect(r!.action).toBe("created");
    expect(waits).toEqual([0]);
    // A primary rate limit: no requests left until the reset time.
    const reset = Math.floor(Date.now() / 1000);
    gh.faults.push({
      method: "PATCH",
      path: /\/comments\/\d+$/,
      status: 403,
      times: 1,
      message: "API rate limit exceeded",
      headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(reset) },
    });
    expect((await upsertStickyComment(client(), target, `${marker}\nv2`))!.action).toBe("updated");
    expect(bodies()).toEqual([`${marker}\nv2`]);
  });

  it("a wait longer than the cap fails at once with the reason, after no retry", async () => {
    gh.faults.push({
      method: "POST",
      path: /\/comments$/,
      status: 429,
      times: 5,
      headers: { "retry-after": "3600" },
    });
    await expect(upsertStickyComment(client({ maxWaitMs: 5000 }), target, `${marker}\nx`)).rejects.toThrow(
      /asked to wait 3600 s, more than the 5 s limit/,
    );
    expect(posts()).toEqual([429]);
  });

  it("retries are bounded: 5xx past the retries fails", async () => {
    gh.faults.push({ method: "GET", path: /\/comments$/, status: 503, times: 10 });
    await expect(upsertStickyComment(client({ retries: 2 }), target, `${marker}\nx`)).rejects.toMatchObject({
      status: 503,
    });
    expect(gh.requests.filter((q) => q.method === "GET" && q.path.includes("/comments"))).toHaveLength(3);
  });

  it("a request that hangs is cut at the time limit and retried", async () => {
    gh.faults.push({ method: "GET", path: /\/comments$/, status: 503, times: 1, delayMs: 4000 });
    const t0 = Date.now();
    const r = await upsertStickyComment(client({ timeoutMs: 500 }), target, `${marker}\nv1`);
    expect(r!.action).toBe("created");
    expect(Date.now() - t0).toBeLessThan(3500);
    expect(bodies()).toEqual([`${marker}\nv1`]);
  });

  it("a create whose answer was lost (5xx after the work, or a timeout) leaves one comment", async () => {
    gh.faults.push({ method: "POST", path: /\/comments$/, status: 502, times: 1, after: true });
    const r = await upsertStickyComment(client(), target, `${marker}\nv1`);
    expect(bodies()).toEqual([`${marker}\nv1`]);
    expect(r!.deleted).toHaveLength(1);
    gh.comments.clear();
    gh.faults.push({
      method: "POST",
      path: /\/comments$/,
      status: 201,
      times: 1,
      after: true,
      delayMs: 1500,
    });
    await upsertStickyComment(client({ timeoutMs: 500 }), target, `${marker}\nv2`);
    expect(bodies()).toEqual([`${marker}\nv2`]);
  });

  it("reads the wait the API asked for from either header", () => {
    const err = (headers: Record<string, string>, status = 429, message = "x") =>
      Object.assign(new Error(message), { status, response: { headers } });
    expect(askedWaitMs(err({ "retry-after": "7" }))).toBe(7000);
    expect(askedWaitMs(err({ "retry-after": new Date(10_000).toUTCString() }), 4_000)).toBe(6000);
    expect(askedWaitMs(err({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": "20" }, 403), 5_000)).toBe(
      15_000,
    );
    expect(askedWaitMs(err({}, 403, "You have exceeded a secondary rate limit"))).toBe(60_000);
    expect(askedWaitMs(err({}, 502))).toBeNull();
  });
});
