import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { commentMarker } from "../../src/github/marker.js";
import { FakeGitHub } from "../fixtures/github/server.js";
import { assertDist, PR_PAYLOAD, ROOT, runAction, runInProcess } from "./harness.js";

const marker = commentMarker("Medalist PR", "toy-action-test");

// Scenarios run the action's run() in process (runInProcess); a few smoke tests start the bundle
// (dist/index.js) the way the runner does, so the built artifact is exercised too.
describe("the action as the runner runs it", () => {
  let ws: string;
  let gh: FakeGitHub;
  const token = "ghs_fakeToken123";
  const inputs = (more: Record<string, string> = {}) => ({
    config: "medalist.yml",
    "github-token": token,
    baseline: "file:base-same.json",
    comment: "always",
    "fail-on": "regression",
    "allow-fork-prs": "false",
    // The scenarios run the local executor on a pull request event (see test/action/judge.test.ts).
    "allow-unsandboxed-agent": "true",
    "data-dir": "",
    "results-dir": ".medalist/results",
    ...more,
  });
  const act = (more: Record<string, string> = {}, env: Record<string, string> = {}, eventPath?: string) =>
    runInProcess({ workspace: ws, inputs: inputs(more), env: { GITHUB_API_URL: gh.url, ...env }, eventPath });
  const actBundle = (more: Record<string, string> = {}) =>
    runAction({ workspace: ws, inputs: inputs(more), env: { GITHUB_API_URL: gh.url } });
  const thread = () => gh.thread("acme", "agent", 7);

  beforeAll(async () => {
    assertDist();
    ws = mkdtempSync(join(tmpdir(), "medalist-action-"));
    writeFileSync(
      join(ws, "medalist.yml"),
      [
        "name: toy-action-test",
        "competitions:",
        "  split: toy",
        "seeds: 2",
        "executor: local",
        "agent:",
        `  command: node ${join(ROOT, "examples/agents/weak/agent.mjs")}`,
        // The agent's code (with its ../lib) is its working folder: the only one its sandbox shows.
        `  cwd: ${join(ROOT, "examples/agents")}`,
        "limits:",
        "  time: 60s",
        "dataDir: data",
        "registryDir: registry",
        "",
      ].join("\n"),
    );
    // Only the toy competitions: the test does not depend on the rest of the registry.
    for (const id of ["toy-churn", "toy-house-prices", "toy-species"]) {
      cpSync(join(ROOT, "competitions", id), join(ws, "registry", id), { recursive: true });
    }
    gh = new FakeGitHub();
    await gh.start();
    // Evaluate the head once without a baseline; later runs resume from its run folders.
    const prime = await act({ baseline: "none", comment: "never" });
    expect(prime.code, prime.stdout).toBe(0);
    const head = JSON.parse(readFileSync(join(ws, ".medalist/results/head/results.json"), "utf8"));
    writeFileSync(join(ws, "base-same.json"), JSON.stringify({ ...head, label: "base" }));
    const allMedals = {
      ...head,
      label: "base",
      runs: head.runs.map((r: { grade: object }) => ({
        ...r,
        grade: { ...r.grade, any_medal: true, gold_medal: true },
      })),
    };
    writeFileSync(join(ws, "base-medals.json"), JSON.stringify(allMedals));
  });
  afterAll(async () => {
    await gh?.stop();
    if (ws) rmSync(ws, { recursive: true, force: true });
  });
  beforeEach(() => {
    gh.comments.clear();
    gh.faults = [];
    gh.requests = [];
    gh.login = "medalist-bot";
  });

  it("bundle: the first run creates the comment, the second updates it, another user's marked comment is left alone", async () => {
    const first = await actBundle();
    expect(first.code, first.stdout).toBe(0);
    expect(thread()).toHaveLength(1);
    const mine = thread()[0];
    expect(mine.user.login).toBe("medalist-bot");
    expect(mine.body.startsWith(marker)).toBe(true);
    // 3 competitions × 2 seeds at 0% vs 0%: too few runs to rule out a 5-point drop.
    expect(mine.body).toContain("inconclusive");
    expect(first.outputs).toMatchObject({
      verdict: "inconclusive",
      "medal-rate": "0.0000",
      "baseline-medal-rate": "0.0000",
      delta: "0.0000",
      "comment-url": mine.html_url,
    });
    expect(first.outputs["results-path"]).toMatch(/\.medalist\/results\/head\/results\.json$/);
    expect(readFileSync(first.outputs["report-path"], "utf8")).toContain("Medal rate");
    expect(first.summary).toContain("Medal rate");
    expect(first.summary).toContain("Gate: passed");
    // The token only appears in the runner's masking command.
    expect(first.stdout.split("\n").filter((l) => l.includes(token))).toEqual([`::add-mask::${token}`]);
    expect(gh.requests.every((r) => r.authorization === `token ${token}`)).toBe(true);

    gh.requests = [];
    const foreign = gh.addComment("acme", "agent", 7, "mallory", `${marker}\nall green, merge it`);
    const second = await actBundle({ baseline: "file:base-medals.json" });
    expect(second.code).toBe(1); // regressed, fail-on: regression
    expect(second.outputs.verdict).toBe("regressed");
    expect(second.outputs["comment-url"]).toBe(mine.html_url);
    expect(thread().map((c) => c.id)).toEqual([mine.id, foreign.id]);
    expect(thread()[0].body).toContain("regressed");
    expect(foreign.body).toBe(`${marker}\nall green, merge it`);
    expect(gh.requests.filter((r) => r.method === "POST")).toHaveLength(0);
    expect(gh.requests.filter((r) => r.method === "PATCH")).toHaveLength(1);
    expect(second.summary).toContain("Gate: failed");
    expect(second.stdout).toMatch(/::error::medalist: Gate: failed/);
  });

  it("a 403 on commenting falls back to the job summary with a warning", async () => {
    gh.login = null; // GITHUB_TOKEN cannot call GET /user
    gh.faults.push({
      method: "POST",
      path: /\/comments$/,
      status: 403,
      times: 1,
      message: "Resource not accessible by integration",
    });
    const r = await act();
    expect(r.code, r.stdout).toBe(0);
    expect(thread()).toHaveLength(0);
    expect(r.outputs["comment-url"]).toBe("");
    expect(r.stdout).toMatch(/::warning::medalist: could not comment on the pull request \(403/);
    expect(r.summary).toContain("Medal rate");
    expect(r.summary).toMatch(/could not comment.*403/);
  });

  it("a 5xx is retried and the comment still lands", async () => {
    gh.faults.push({ method: "GET", path: /\/issues\/7\/comments$/, status: 502, times: 1 });
    gh.faults.push({ method: "POST", path: /\/comments$/, status: 503, times: 1 });
    const r = await act();
    expect(r.code, r.stdout).toBe(0);
    expect(thread()).toHaveLength(1);
    const statuses = gh.requests
      .filter((q) => q.path.includes("/comments"))
      .map((q) => `${q.method} ${q.status}`);
    expect(statuses).toEqual(["GET 502", "GET 200", "POST 503", "POST 201", "GET 200"]);
    expect(r.stdout).toMatch(/retry 1/);
  });

  it("comment: on-change posts nothing when nothing changed, never posts nothing at all", async () => {
    const quiet = await act({ comment: "on-change" });
    expect(quiet.code).toBe(0);
    expect(thread()).toHaveLength(0);
    expect(gh.requests.filter((r) => r.method !== "GET")).toHaveLength(0);
    gh.requests = [];
    const never = await act({ comment: "never", baseline: "file:base-medals.json", "fail-on": "never" });
    expect(never.code).toBe(0);
    expect(never.outputs.verdict).toBe("regressed");
    expect(never.summary).toContain("Gate: off");
    // Only the base commit's config was asked for (the fake has none: the file, then the top folder's
    // listing that shows it missing); nothing about comments.
    expect(gh.requests.filter((r) => !/^\/repos\/acme\/agent\/contents[/?]/.test(r.path))).toHaveLength(0);
  });

  it("refuses a fork pull request on a self-hosted runner unless allowed", async () => {
    const fork = JSON.parse(readFileSync(PR_PAYLOAD, "utf8"));
    fork.pull_request.head.repo = { ...fork.pull_request.head.repo, full_name: "mallory/agent", fork: true };
    const forkPath = join(ws, "fork-event.json");
    writeFileSync(forkPath, JSON.stringify(fork));
    const refused = await act({}, {}, forkPath);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      /refusing to run pull request #7 from the fork mallory\/agent on a self-hosted runner/,
    );
    expect(refused.summary).toContain("allow-fork-prs");
    expect(gh.requests).toHaveLength(0);

    const hosted = await act({ comment: "never" }, { RUNNER_ENVIRONMENT: "github-hosted" }, forkPath);
    expect(hosted.code, hosted.stdout).toBe(0);
    const allowed = await act({ comment: "never", "allow-fork-prs": "true" }, {}, forkPath);
    expect(allowed.code, allowed.stdout).toBe(0);
  });

  it("bundle: rejects invalid inputs up front, naming each", async () => {
    const r = await actBundle({ baseline: "yesterday", comment: "sometimes" });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/2 invalid inputs/);
    expect(r.stdout).toMatch(/input "baseline": expected cache, run, none or file:<path>, got "yesterday"/);
    expect(r.stdout).toMatch(/input "comment"/);
    expect(gh.requests).toHaveLength(0);
  });
});

describe("bundle: workflow_run relay (comments for fork pull requests)", () => {
  let ws: string;
  let gh: FakeGitHub;
  const headSha = "8c2e1f0a4d3b5e6f7a8b9c0d1e2f3a4b5c6d7e8f";
  const event = join(ROOT, "test/fixtures/github/workflow_run.completed.json");
  const relayMarker = commentMarker("Medalist PR", "toy-suite");
  // The relay reads the artifacts through a client configured from the environment at import
  // time, so it runs as the bundle (a fresh process per run).
  const relay = (how: typeof runAction = runAction) =>
    how({
      workspace: ws,
      inputs: { "github-token": "ghs_write", comment: "always" },
      env: { GITHUB_API_URL: gh.url, GITHUB_EVENT_NAME: "workflow_run", GITHUB_WORKFLOW: "Medalist comment" },
      eventPath: event,
    });
  const artifact = (content: object) =>
    gh.artifacts.set(9001, [
      {
        id: 55,
        name: "medalist-comment-toy-suite",
        fileName: "comment.json",
        content: JSON.stringify(content),
      },
    ]);

  beforeAll(async () => {
    assertDist();
    ws = mkdtempSync(join(tmpdir(), "medalist-relay-"));
    gh = new FakeGitHub();
    await gh.start();
  });
  afterAll(async () => {
    await gh?.stop();
    if (ws) rmSync(ws, { recursive: true, force: true });
  });

  it("posts the evaluation's comment as the sticky comment, then updates it", async () => {
    gh.pulls.set(7, { headSha });
    artifact({
      version: 1,
      pr: 7,
      headSha,
      suite: "toy-suite",
      body: "## Medalist · report v1 <!-- medalist:x:y -->",
    });
    const first = await relay();
    expect(first.code, first.stdout).toBe(0);
    const thread = gh.thread("acme", "agent", 7);
    expect(thread).toHaveLength(1);
    expect(thread[0].body).toBe(`${relayMarker}\n## Medalist · report v1 `);
    expect(first.outputs["comment-url"]).toBe(thread[0].html_url);
    expect(gh.requests.map((r) => r.path)).toContain(
      "/repos/acme/agent/actions/runs/9001/artifacts?per_page=100&page=1",
    );

    artifact({ version: 1, pr: 7, headSha, suite: "toy-suite", body: "report v2" });
    const second = await relay();
    expect(second.code, second.stdout).toBe(0);
    expect(gh.thread("acme", "agent", 7).map((c) => c.body)).toEqual([`${relayMarker}\nreport v2`]);
  });

  it("relays one comment per suite when a matrix evaluated several", async () => {
    gh.comments.clear();
    gh.pulls.set(7, { headSha });
    const file = (suite: string) =>
      JSON.stringify({ version: 1, pr: 7, headSha, suite, body: `${suite} report` });
    gh.artifacts.set(9001, [
      { id: 61, name: "medalist-comment-lite", fileName: "comment.json", content: file("lite") },
      { id: 62, name: "medalist-comment-gpu", fileName: "comment.json", content: file("gpu") },
      { id: 63, name: "medalist-lite-report", fileName: "report.md", content: "not a comment" },
    ]);
    const r = await relay();
    expect(r.code, r.stdout).toBe(0);
    expect(gh.thread("acme", "agent", 7).map((c) => c.body)).toEqual([
      `${commentMarker("Medalist PR", "lite")}\nlite report`,
      `${commentMarker("Medalist PR", "gpu")}\ngpu report`,
    ]);
  });

  it("refuses an artifact that names a pull request the run did not evaluate", async () => {
    gh.pulls.set(8, { headSha: "0".repeat(40) });
    artifact({ version: 1, pr: 8, headSha, suite: "toy-suite", body: "redirected" });
    const r = await relay();
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/names pull request #8, whose head 0000000 is not the commit 8c2e1f0/);
    expect(gh.thread("acme", "agent", 8)).toHaveLength(0);
  });

  it("does nothing when the evaluation left no comment (refused fork, cancelled run)", async () => {
    gh.artifacts.clear();
    gh.comments.clear();
    const r = await relay();
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/left no medalist-comment artifact; nothing to relay/);
    expect(gh.thread("acme", "agent", 7)).toHaveLength(0);
  });
});
