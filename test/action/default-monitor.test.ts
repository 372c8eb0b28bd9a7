// Issue 30, item 3: monitoring after every run is the pull-request default. A config without
// `seeds` runs every seed on the default branch (its results become the baseline) and monitors a
// pull request's head against that baseline; the history-informed plan stays off unless asked for.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fakeCache } from "./fake-cache.js";
import { actionRun, flowWorkspace } from "./flow.js";
import { PR_PAYLOAD, ROOT } from "./harness.js";

describe("the default seeds through run()", () => {
  const cache = fakeCache();
  const w = flowWorkspace(
    "medalist-default-monitor-",
    ["toy-churn", "toy-species"],
    [
      "name: dflt",
      "competitions: { include: [toy-churn, toy-species] }",
      `agent: { command: node ${join(ROOT, "examples/agents/weak/agent.mjs")}, cwd: ${join(ROOT, "examples/agents")} }`,
      "dataDir: data",
      "registryDir: registry",
    ],
  );

  it(
    "a push runs every seed; a pull request is monitored after every run",
    { timeout: 300_000 },
    async () => {
      for (const sha of ["1", "2", "3", "4", "5", "6", "7"]) {
        rmSync(join(w.ws, ".medalist"), { recursive: true, force: true });
        const push = await actionRun(w.ws, w.saved, cache, {
          GITHUB_EVENT_NAME: "push",
          GITHUB_EVENT_PATH: join(w.ws, "push.json"),
          GITHUB_REF: "refs/heads/main",
          GITHUB_SHA: sha.repeat(40),
          RUNNER_TEMP: mkdtempSync(join(tmpdir(), "medalist-default-runner-")),
        });
        expect(push.summary).not.toContain("Monitored after every run");
      }
      const pr = await actionRun(w.ws, w.saved, cache, {
        GITHUB_EVENT_NAME: "pull_request",
        GITHUB_EVENT_PATH: PR_PAYLOAD,
        GITHUB_REF: "refs/pull/7/merge",
      });
      expect(pr.summary).toMatch(/Monitored after every run: .* of 6 planned head runs/);
      // 7 default-branch suites hold 21 runs per competition, enough for the history-informed plan,
      // which is off unless the config says history: true.
      expect(pr.summary).not.toContain("History-informed plan");
    },
  );
});
