// In-process run() with a fake cache: a push to the default branch saves the baseline, a pull
// request restores it (exact commit, then the newest for the suite), a miss only warns.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fakeCache } from "./fake-cache.js";
import type { ArtifactApi } from "../../src/action/artifacts.js";
import { PR_PAYLOAD, ROOT } from "./harness.js";
import { actionRun, flowWorkspace } from "./flow.js";

describe("cache baseline through run()", () => {
  const cache = fakeCache();
  const w = flowWorkspace(
    "medalist-flow-",
    ["toy-churn"],
    [
      "name: flow",
      "competitions: { include: [toy-churn] }",
      "seeds: 1",
      `agent: { command: node ${join(ROOT, "examples/agents/weak/agent.mjs")}, cwd: ${join(ROOT, "examples/agents")} }`,
      "dataDir: data",
      "registryDir: registry",
    ],
  );
  const act = (env: Record<string, string>, artifacts?: () => ArtifactApi) =>
    actionRun(w.ws, w.saved, cache, env, { artifacts });

  it("saves on the default branch and restores on a pull request", async () => {
    const pr = {
      GITHUB_EVENT_NAME: "pull_request",
      GITHUB_EVENT_PATH: PR_PAYLOAD,
      GITHUB_REF: "refs/pull/7/merge",
    };
    const miss = await act(pr);
    expect(miss.code).toBeUndefined();
    expect(miss.summary).toMatch(
      /no cached baseline for suite [0-9a-f]+: tried the exact key medalist-v\d+-[0-9a-f]+-[0-9a-f]{40}, then the newest key starting with medalist-v\d+-[0-9a-f]+-/,
    );
    // The report's first line says whose settings judged it; the next, that there is no baseline and what the gate does.
    expect(miss.summary.split("\n")[0]).toContain("`trust-pr-config: true`");
    expect(miss.summary.split("\n")[2]).toMatch(
      /^> ⚠️ \*\*No baseline\*\*: no cached baseline .*the gate passes \(gate\.missingBaseline: pass\)\.$/,
    );
    expect(miss.outputs.verdict).toBe("inconclusive");
    expect(cache.keys).toEqual([]); // pull requests never save

    const push = {
      GITHUB_EVENT_NAME: "push",
      GITHUB_EVENT_PATH: join(w.ws, "push.json"),
      GITHUB_REF: "refs/heads/main",
    };
    await act({ ...push, GITHUB_SHA: "0123456789abcdef0123456789abcdef01234567" });
    expect(cache.keys).toEqual([
      expect.stringMatching(/^medalist-history-flow-\d{4}-/),
      expect.stringMatching(/^medalist-v\d+-[0-9a-f]+-0123456789abcdef0123456789abcdef01234567$/),
    ]);

    const fallback = await act(pr);
    // The default branch's history gives the trend, this pull request's head last.
    expect(fallback.summary).toContain("Trend on the default branch");
    expect(fallback.summary).toMatch(/x-axis \[1, "PR"\]/);
    expect(fallback.summary).toMatch(
      /cached results of 0123456, the newest default-branch results for this suite/,
    );
    // One competition cannot bound the difference: compared, but inconclusive.
    expect(fallback.outputs).toMatchObject({
      verdict: "inconclusive",
      delta: "0.0000",
      "baseline-medal-rate": "0.0000",
    });

    const baseSha = JSON.parse(readFileSync(PR_PAYLOAD, "utf8")).pull_request.base.sha as string;
    await act({ ...push, GITHUB_SHA: baseSha });
    const exact = await act(pr);
    expect(exact.summary).toContain(`cached results of the base commit ${baseSha.slice(0, 7)}`);
  });

  it("a cache service answering 503 fails the job before any agent runs, with the service's answer", async () => {
    cache.status = 503;
    try {
      const started: string[] = [];
      const writes: string[] = [];
      const write = process.stdout.write;
      process.stdout.write = ((chunk: string) => (writes.push(String(chunk)), true)) as typeof write;
      let code: number | string | undefined;
      try {
        ({ code } = await actionRun(
          w.ws,
          w.saved,
          cache,
          {
            GITHUB_EVENT_NAME: "pull_request",
            GITHUB_EVENT_PATH: PR_PAYLOAD,
            GITHUB_REF: "refs/pull/7/merge",
          },
          {
            runSuite: async () => {
              started.push("head");
              throw new Error("no agent may run");
            },
          },
        ));
      } finally {
        process.stdout.write = write;
      }
      expect(code).toBe(1);
      expect(started).toEqual([]);
      const failed = writes
        .join("")
        .split("\n")
        .find((l) => l.startsWith("::error::medalist:"));
      expect(failed).toMatch(
        /the cache service failed, so whether a baseline exists is unknown; no agent was run/,
      );
      expect(failed).toContain("Cache service responded with 503");
    } finally {
      cache.status = null;
      process.exitCode = undefined;
    }
  });

  it("a job without a cache service: the history is neither restored nor saved, one warning says why", async () => {
    // @actions/cache itself would retry each call once, 5 s apart, before it failed.
    const calls: string[] = [];
    const none = {
      ...fakeCache(),
      available: () => false,
      restoreCache: async (_p: string[], key: string) => void calls.push(`restore ${key}`),
      saveCache: async (_p: string[], key: string) => (calls.push(`save ${key}`), -1),
    };
    const writes: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string) => (writes.push(String(chunk)), true)) as typeof write;
    let r: Awaited<ReturnType<typeof actionRun>>;
    try {
      r = await actionRun(w.ws, w.saved, none, {
        GITHUB_EVENT_NAME: "push",
        GITHUB_EVENT_PATH: join(w.ws, "push.json"),
        GITHUB_REF: "refs/heads/main",
        GITHUB_SHA: "89abcdef0123456789abcdef0123456789abcdef",
      });
    } finally {
      process.stdout.write = write;
    }
    expect(r.code, writes.join("")).toBeUndefined();
    expect(calls).toEqual([]);
    const warnings = writes
      .join("")
      .split("\n")
      .filter((l) => l.startsWith("::warning::medalist:") && l.includes("cache"));
    const why =
      "this job has no Actions cache service (neither ACTIONS_CACHE_URL nor ACTIONS_RESULTS_URL is set)";
    expect(warnings).toEqual([
      `::warning::medalist: history not restored: ${why}`,
      `::warning::medalist: history and baseline not saved to the cache: ${why}`,
    ]);
  });

  it("uploads the viewer as an artifact beside the trajectories and links it in the report", async () => {
    const uploads: { name: string; files: string[] }[] = [];
    const artifacts = (): ArtifactApi => ({
      upload: async (name, files) => {
        uploads.push({ name, files });
        return { id: 100 + uploads.length };
      },
    });
    const r = await act(
      {
        GITHUB_EVENT_NAME: "pull_request",
        GITHUB_EVENT_PATH: PR_PAYLOAD,
        GITHUB_REF: "refs/pull/7/merge",
        ACTIONS_RUNTIME_TOKEN: "fake",
        GITHUB_SERVER_URL: "https://github.com",
        GITHUB_RUN_ID: "77",
      },
      artifacts,
    );
    const viewer = uploads.find((u) => /^medalist-flow-viewer$/.test(u.name))!;
    expect(viewer.files.some((f) => f.endsWith("index.html"))).toBe(true);
    expect(viewer.files.some((f) => /runs\/head-toy-churn\.s0\.html$/.test(f))).toBe(true);
    const id = 101 + uploads.indexOf(viewer);
    expect(r.summary).toContain(
      `[Open the trajectory viewer](https://github.com/acme/agent/actions/runs/77/artifacts/${id})`,
    );
  });
});
