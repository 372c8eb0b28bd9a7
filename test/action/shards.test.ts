import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { commentMarker } from "../../src/github/marker.js";
import { FakeArtifacts } from "../fixtures/actions/artifacts-server.js";
import { FakeGitHub } from "../fixtures/github/server.js";
import { assertDist, ROOT, runAction } from "./harness.js";

// The three sub-actions (plan/, run/, report/) from the committed bundle, as the runner starts
// them: a plan job, three run jobs uploading shard artifacts, one report job merging and commenting.
describe("plan, run and report sub-actions over one bundle", () => {
  let ws: string;
  const gh = new FakeGitHub();
  const store = new FakeArtifacts();
  const token = "ghs_fakeToken123";
  const env = () => ({
    GITHUB_API_URL: gh.url,
    ACTIONS_RUNTIME_TOKEN: store.token(),
    ACTIONS_RESULTS_URL: `${store.url}/`,
  });
  const step = (step: string, inputs: Record<string, string>) =>
    runAction({
      workspace: ws,
      // The local executor on a pull request event; the base config is read through the fake GitHub (none there).
      inputs: {
        config: "medalist.yml",
        step,
        "github-token": token,
        "allow-unsandboxed-agent": "true",
        ...inputs,
      },
      env: env(),
    });

  beforeAll(async () => {
    assertDist();
    ws = mkdtempSync(join(tmpdir(), "medalist-subactions-"));
    writeFileSync(
      join(ws, "medalist.yml"),
      [
        "name: sharded-action",
        "competitions: { split: toy }",
        "seeds: 2",
        "executor: local",
        `agent: { command: node ${join(ROOT, "examples/agents/strong/agent.mjs")}, cwd: ${join(ROOT, "examples/agents")} }`,
        "limits: { time: 60s }",
        "dataDir: data",
        "registryDir: registry",
        "",
      ].join("\n"),
    );
    for (const id of ["toy-churn", "toy-house-prices", "toy-species"])
      cpSync(join(ROOT, "competitions", id), join(ws, "registry", id), { recursive: true });
    await gh.start();
    await store.start();
  });
  afterAll(async () => {
    await gh.stop();
    await store.stop();
    rmSync(ws, { recursive: true, force: true });
  });

  it(
    "plan → 3 shard jobs → one report job with one sticky comment; a lost shard fails the gate",
    { timeout: 300_000 },
    async () => {
      const plan = await step("plan", { shards: "3", "usd-per-gpu-hour": "2" });
      expect(plan.code, plan.stdout).toBe(0);
      expect(JSON.parse(plan.outputs.matrix)).toEqual({
        include: [1, 2, 3].map((i) => ({ shard: `${i}/3`, index: i, count: 3 })),
      });
      expect(plan.outputs).toMatchObject({ count: "3", empty: "false" });
      expect(plan.summary).toContain("Expected wall time");

      // Three jobs at once, each with its own results folder (the data folder's locks are shared).
      const shards = [];
      for (const i of [1, 2, 3])
        shards.push(
          step("run", { shard: `${i}/3`, plan: plan.outputs.plan, "results-dir": `.medalist/shard-${i}` }),
        );
      const runs = await Promise.all(shards);
      for (const r of runs) expect(r.code, r.stdout).toBe(0);
      expect(store.artifacts.map((a) => a.name).sort()).toEqual([
        "medalist-sharded-action-shard-1-of-3",
        "medalist-sharded-action-shard-2-of-3",
        "medalist-sharded-action-shard-3-of-3",
      ]);

      const reportInputs = {
        shards: "3",
        "github-token": token,
        baseline: "none",
        comment: "always",
        "fail-on": "regression",
        "results-dir": ".medalist/report",
      };
      const report = await step("report", reportInputs);
      expect(report.code, report.stdout).toBe(0);
      const thread = gh.thread("acme", "agent", 7);
      expect(thread).toHaveLength(1);
      expect(thread[0].body.startsWith(commentMarker("Medalist PR", "sharded-action"))).toBe(true);
      expect(thread[0].body).toMatch(/Medal rate/);
      expect(thread[0].body).not.toMatch(/Incomplete/);
      expect(report.outputs["medal-rate"]).toMatch(/^\d\.\d{4}$/);

      // Shard 2's job died before uploading: its runs are reported as never run, the gate fails.
      store.artifacts = store.artifacts.filter((a) => !a.name.includes("shard-2-of-3"));
      const lost = await step("report", { ...reportInputs, "results-dir": ".medalist/report-lost" });
      expect(lost.code).toBe(1);
      expect(lost.stdout).toMatch(
        /::error::medalist: Gate: failed — Incomplete: \d+ head runs? never ran \(the results of shard 2\/3 are missing\)/,
      );
      const after = gh.thread("acme", "agent", 7);
      expect(after).toHaveLength(1); // the same sticky comment, updated
      expect(after[0].body).toMatch(/Incomplete: \d+ head runs? never ran/);
    },
  );
});

describe("the sub-actions' action.yml files", () => {
  it("each runs the one bundle with its own step", () => {
    for (const step of ["plan", "run", "report"]) {
      const yml = parse(readFileSync(join(ROOT, step, "action.yml"), "utf8"));
      expect(yml.runs).toEqual({ using: "node24", main: "../dist/index.js" });
      expect(yml.inputs.step.default).toBe(step);
    }
  });
});
