// A pull request plans its head from the default branch's history (issue 21): pushes to the
// default branch save baselines and history entries; the pull request then runs one seed of each
// competition whose base outcome never varied, says so in its report, and saves nothing.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fakeCache } from "./fake-cache.js";
import { actionRun, flowWorkspace } from "./flow.js";
import { PR_PAYLOAD, ROOT } from "./harness.js";

describe("the history-informed plan through run()", () => {
  const cache = fakeCache();
  const w = flowWorkspace(
    "medalist-informed-flow-",
    ["toy-churn", "toy-species"],
    [
      "name: informed",
      "competitions: { include: [toy-churn, toy-species] }",
      "seeds: { max: 3, adaptive: true, history: true, historyRuns: 10 }",
      `agent: { command: node ${join(ROOT, "examples/agents/weak/agent.mjs")}, cwd: ${join(ROOT, "examples/agents")} }`,
      "dataDir: data",
      "registryDir: registry",
    ],
  );

  it(
    "runs the planned seeds only, and the default branch keeps running every seed",
    { timeout: 300_000 },
    async () => {
      const push = (sha: string) =>
        actionRun(w.ws, w.saved, cache, {
          GITHUB_EVENT_NAME: "push",
          GITHUB_EVENT_PATH: join(w.ws, "push.json"),
          GITHUB_REF: "refs/heads/main",
          GITHUB_SHA: sha.repeat(40),
          // A fresh runner: its own temporary folder, where the results are written by default.
          RUNNER_TEMP: mkdtempSync(join(tmpdir(), "medalist-informed-runner-")),
        });
      // Four default-branch runs: the newest is the baseline, the three before it 9 earlier runs
      // per competition; with the baseline's 3, 12 ≥ historyRuns.
      for (const sha of ["1", "2", "3", "4"]) {
        // A fresh runner per push (as GitHub-hosted runners are): each push executes its runs. Runs
        // reused by identity would be copies, counted once (test/history/history.test.ts).
        rmSync(join(w.ws, ".medalist"), { recursive: true, force: true });
        const r = await push(sha);
        // The default branch is never cut short by the plan or the monitor.
        expect(r.summary).not.toContain("History-informed plan");
        expect(r.summary).not.toContain("Monitored after every run");
      }
      const keys = cache.keys.length;
      const pr = await actionRun(w.ws, w.saved, cache, {
        GITHUB_EVENT_NAME: "pull_request",
        GITHUB_EVENT_PATH: PR_PAYLOAD,
        GITHUB_REF: "refs/pull/7/merge",
      });
      // The weak agent never wins a medal here: 0 of 12 base runs gives 2 head seeds per competition.
      expect(pr.summary).toContain("History-informed plan: 4 of 6 head runs planned");
      expect(pr.summary).toMatch(
        /of 4 planned head runs \(the history-informed plan's; the fixed design has 6\)/,
      );
      // Issue 30: the history is checked against the base's current runs and plans the head only.
      expect(pr.summary).toMatch(
        /History: 18 earlier runs of the base's current identity in 2 competitions, from 3 default-branch suites, checked against the base's 6 current runs \(.*\): no drift detected .* Used to plan the head's seeds and their order only/,
      );
      expect(pr.summary).not.toContain("Base side of the medal analysis");
      expect(cache.keys.length).toBe(keys); // pull requests never save
    },
  );
});
