import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createClient } from "../../src/github/client.js";
import { upsertStickyComment } from "../../src/github/comment.js";
import { commentMarker } from "../../src/github/marker.js";
import { COMMENT_LIMIT, fitComment } from "../../src/github/truncate.js";
import { FakeGitHub } from "../fixtures/github/server.js";

const marker = commentMarker("Medalist PR", "lite");
const target = { owner: "acme", repo: "agent", issueNumber: 7, marker };

describe("sticky comment", () => {
  let gh: FakeGitHub;
  beforeEach(async () => {
    gh = new FakeGitHub();
    await gh.start();
  });
  afterEach(() => gh.stop());
  const client = (retries = 3) => createClient("t0ken", { baseUrl: gh.url, retries, retryDelayMs: 10 });

  it("creates once, then updates in place, then leaves an identical body alone", async () => {
    const first = await upsertStickyComment(client(), target, `${marker}\nv1`);
    expect(first!.action).toBe("created");
    const second = await upsertStickyComment(client(), target, `${marker}\nv2`);
    expect(second).toMatchObject({ action: "updated", id: first!.id });
    const third = await upsertStickyComment(client(), target, `${marker}\nv2`);
    expect(third!.action).toBe("unchanged");
    expect(gh.thread("acme", "agent", 7).map((c) => c.body)).toEqual([`${marker}\nv2`]);
    expect(gh.requests.every((r) => r.authorization === "token t0ken")).toBe(true);
  });

  it("finds its comment across pages and ignores other users' comments with the marker", async () => {
    for (let i = 0; i < 5; i++) gh.addComment("acme", "agent", 7, "someone", `chatter ${i}`);
    const foreign = gh.addComment("acme", "agent", 7, "mallory", `${marker}\nfake results`);
    const mine = gh.addComment("acme", "agent", 7, "medalist-bot", `${marker}\nold`);
    const r = await upsertStickyComment(client(), target, `${marker}\nnew`);
    expect(r).toMatchObject({ action: "updated", id: mine.id });
    expect(foreign.body).toBe(`${marker}\nfake results`);
    expect(
      gh.requests.filter((q) => q.path.includes("/comments") && q.method === "GET").length,
    ).toBeGreaterThan(1);
  });

  it("a different suite's marker is a different comment", async () => {
    gh.addComment("acme", "agent", 7, "medalist-bot", `${commentMarker("Medalist PR", "full")}\nother`);
    const r = await upsertStickyComment(client(), target, `${marker}\nmine`);
    expect(r!.action).toBe("created");
    expect(gh.thread("acme", "agent", 7)).toHaveLength(2);
  });

  it("finds its comment by the first line only: another suite's comment quoting this marker is left alone", async () => {
    const other = commentMarker("Medalist PR", "full");
    // The other suite's comment quotes this suite's marker further down (agent stderr, an old body).
    const theirs = gh.addComment("acme", "agent", 7, "medalist-bot", `${other}\nstderr:\n${marker}\n`);
    const r = await upsertStickyComment(client(), target, `${marker}\nmine`);
    expect(r).toMatchObject({ action: "created", deleted: [] });
    const again = await upsertStickyComment(client(), target, `${marker}\nmine again`);
    expect(again).toMatchObject({ action: "updated", id: r!.id, deleted: [] });
    expect(gh.thread("acme", "agent", 7).find((c) => c.id === theirs.id)!.body).toBe(
      `${other}\nstderr:\n${marker}\n`,
    );
    // The other suite's own run still finds its comment, with "\r\n" as GitHub may store it.
    theirs.body = theirs.body.replace(/\n/g, "\r\n");
    const its = await upsertStickyComment(client(), { ...target, marker: other }, `${other}\nnew`);
    expect(its).toMatchObject({ action: "updated", id: theirs.id, deleted: [] });
    expect(gh.thread("acme", "agent", 7)).toHaveLength(2);
  });

  it("removes duplicates left by parallel runs, keeping the oldest", async () => {
    const a = gh.addComment("acme", "agent", 7, "medalist-bot", `${marker}\nrun A`);
    gh.addComment("acme", "agent", 7, "medalist-bot", `${marker}\nrun B`);
    const r = await upsertStickyComment(client(), target, `${marker}\nrun C`);
    expect(r).toMatchObject({ action: "updated", id: a.id });
    expect(r!.deleted).toHaveLength(1);
    expect(gh.thread("acme", "agent", 7).map((c) => c.body)).toEqual([`${marker}\nrun C`]);
  });

  it("uses github-actions[bot] when GET /user is forbidden (GITHUB_TOKEN)", async () => {
    gh.login = null;
    gh.addComment("acme", "agent", 7, "medalist-bot", `${marker}\nsomeone else's token`);
    const r = await upsertStickyComment(client(), target, `${marker}\nx`);
    expect(r!.action).toBe("created");
    expect(gh.thread("acme", "agent", 7).find((c) => c.id === r!.id)!.user.login).toBe("github-actions[bot]");
  });

  it("with create: false, posts nothing when there is no comment yet", async () => {
    expect(await upsertStickyComment(client(), target, `${marker}\nx`, { create: false })).toBeNull();
    expect(gh.thread("acme", "agent", 7)).toHaveLength(0);
  });

  it("retries 5xx with backoff and gives up after the configured retries", async () => {
    gh.faults.push({ method: "POST", path: /\/comments$/, status: 502, times: 2 });
    const r = await upsertStickyComment(client(), target, `${marker}\nx`);
    expect(r!.action).toBe("created");
    expect(gh.requests.filter((q) => q.method === "POST").map((q) => q.status)).toEqual([502, 502, 201]);

    gh.faults.push({ method: "GET", path: /\/comments$/, status: 503, times: 10 });
    await expect(upsertStickyComment(client(1), target, `${marker}\ny`)).rejects.toMatchObject({
      status: 503,
    });
  });

  it("does not retry a 403", async () => {
    gh.faults.push({ method: "POST", path: /\/comments$/, status: 403, times: 5 });
    await expect(upsertStickyComment(client(), target, `${marker}\nx`)).rejects.toMatchObject({
      status: 403,
    });
    expect(gh.requests.filter((q) => q.method === "POST")).toHaveLength(1);
  });
});

describe("marker and truncation", () => {
  it("markers are stable and cannot close the HTML comment", () => {
    expect(commentMarker("PR", "lite")).toBe("<!-- medalist:PR:lite -->");
    expect(commentMarker("a-->b", "x:y")).toBe("<!-- medalist:a-_b:x_y -->");
  });

  it("leaves short bodies alone and cuts long ones at a line, closing open blocks, with a link", () => {
    expect(fitComment("short", "https://x")).toBe("short");
    const rows = Array.from({ length: 5000 }, (_, i) => `| comp-${i} | 🥇 | 0.${i} |`);
    const body = ["# Report", "<details><summary>runs</summary>", "", "```", ...rows].join("\n");
    const cut = fitComment(body, "https://github.example/acme/agent/actions/runs/1");
    expect(body.length).toBeGreaterThan(COMMENT_LIMIT);
    expect(cut.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(cut).toContain("[full report](https://github.example/acme/agent/actions/runs/1)");
    expect(cut).toMatch(/```\n<\/details>\n\n> ✂️/);
    expect(
      cut
        .split("\n")
        .filter((l) => l.startsWith("| comp-"))
        .every((l) => l.endsWith("|")),
    ).toBe(true);
  });
});
