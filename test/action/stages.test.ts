import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "../../src/config/load.js";
import { openSession } from "../../src/session/input.js";
import { FakeArtifacts } from "../fixtures/actions/artifacts-server.js";
import { FakeGitHub } from "../fixtures/github/server.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";
import { assertDist, ROOT, runAction } from "./harness.js";

// The staged workflow from the bundle (plan → run stage k → decide → … → report) against the
// loopback fakes of GitHub and the artifact service, as .github/workflows/medalist-staged.yml runs it.
const N = 22; // competitions: copies of toy-churn, toy-c00 … toy-c21
const ids = Array.from({ length: N }, (_, i) => `toy-c${String(i).padStart(2, "0")}`);
// The base medals where (competition + seed) is even, or everywhere.
const patterned = (i: number, s: number) => (i + s) % 2 === 0;

// The head agent: runs the strong example agent where its mode says it medals, else exits 1 (no medal).
const PICK = `import { spawnSync } from "node:child_process";
const [mode, strong] = process.argv.slice(2);
const i = Number(process.env.COMPETITION_ID.slice(-2));
const s = Number(process.env.SEED);
const medal = mode === "borderline" && i % 3 !== 0 && (i + s) % 2 === 0;
if (!medal) { console.log("no medal here by design"); process.exit(1); }
// Seed 0 of the strong agent medals on toy-churn: a medal wherever the mode says.
const env = { ...process.env, SEED: "0" };
process.exit(spawnSync(process.execPath, [strong], { stdio: "inherit", env }).status ?? 1);
`;

describe("the staged sharded workflow over the bundle", () => {
  const gh = new FakeGitHub();
  const store = new FakeArtifacts();
  const token = "ghs_fakeToken123";
  const dirs: string[] = [];
  beforeAll(async () => {
    assertDist();
    await gh.start();
    await store.start();
  });
  afterAll(async () => {
    await gh.stop();
    await store.stop();
    for (const d of dirs) if (!process.env.KEEP) rmSync(d, { recursive: true, force: true });
  });

  /** A workspace whose suite is named `name`, its head agent in `mode`, a base results file. */
  function workspace(name: string, mode: string, baseMedal: (i: number, s: number) => boolean): string {
    const ws = mkdtempSync(join(tmpdir(), "medalist-staged-"));
    dirs.push(ws);
    for (const id of ids) {
      cpSync(join(ROOT, "competitions", "toy-churn"), join(ws, "registry", id), { recursive: true });
      const file = join(ws, "registry", id, "competition.json");
      writeFileSync(file, readFileSync(file, "utf8").replace('"id": "toy-churn"', `"id": "${id}"`));
    }
    // The sandbox shows the agent its working folder only: the agents live there.
    cpSync(join(ROOT, "examples/agents"), join(ws, "agents"), { recursive: true });
    writeFileSync(join(ws, "agents", "pick.mjs"), PICK);
    writeFileSync(
      join(ws, "medalist.yml"),
      [
        `name: ${name}`,
        `competitions: { include: [${ids.join(", ")}] }`,
        "seeds: { max: 3, adaptive: true }",
        "executor: local",
        `agent: { command: node ${join(ws, "agents", "pick.mjs")} ${mode} ${join(ws, "agents", "strong", "agent.mjs")}, cwd: ${join(ws, "agents")} }`,
        "limits: { time: 60s }",
        "dataDir: data",
        "registryDir: registry",
        "",
      ].join("\n"),
    );
    const loaded = loadConfig(join(ws, "medalist.yml"));
    const session = openSession(loaded.config, loaded.baseDir);
    const base = fakeSuite(
      "base",
      ids.flatMap((id, i) => [0, 1, 2].map((s) => fakeRun(id, s, baseMedal(i, s) ? "gold" : "none"))),
      session.plan.suiteHash,
    );
    base.suite = { name, hash: session.plan.suiteHash, competitions: ids, seeds: 3 };
    base.environment.timeLimitSecs = loaded.config.limits.time;
    writeFileSync(join(ws, "base.json"), JSON.stringify(base));
    return ws;
  }

  const step = (ws: string, step: string, inputs: Record<string, string>) =>
    runAction({
      workspace: ws,
      inputs: {
        config: "medalist.yml",
        step,
        "github-token": token,
        "allow-unsandboxed-agent": "true",
        // The copies of toy-churn live in the workspace's registry, which only a trusted config may name.
        "trust-pr-config": "true",
        baseline: "file:base.json",
        ...inputs,
      },
      env: {
        GITHUB_API_URL: gh.url,
        ACTIONS_RUNTIME_TOKEN: store.token(),
        ACTIONS_RESULTS_URL: `${store.url}/`,
      },
    });

  /** The plan, then stage k's shard jobs at once, as the workflow's stage-k job matrix. */
  async function runStage(ws: string, plan: { outputs: Record<string, string> }, k: number) {
    const matrix = JSON.parse(plan.outputs.stages)[k - 1] as { include: { shard: string }[] };
    const runs = await Promise.all(
      matrix.include.map(({ shard }, j) =>
        step(ws, "run", {
          shard,
          stage: String(k),
          plan: plan.outputs.plan,
          "results-dir": `.medalist/s${k}-${j}`,
        }),
      ),
    );
    for (const r of runs) expect(r.code, r.stdout).toBe(0);
    return step(ws, "decide", { stage: String(k), stages: "3", "results-dir": `.medalist/decide-${k}` });
  }

  const report = (ws: string) =>
    step(ws, "report", {
      stages: "3",
      comment: "always",
      "fail-on": "regression",
      "results-dir": ".medalist/report",
    });

  it(
    "a clear regression: decide says stop after stage 1, stages 2 and 3 never run, the report says why",
    { timeout: 600_000 },
    async () => {
      const ws = workspace("staged-stop", "none", () => true);
      const plan = await step(ws, "plan", { shards: "2", stages: "3" });
      expect(plan.code, plan.stdout).toBe(0);
      const stages = JSON.parse(plan.outputs.stages);
      expect(stages).toHaveLength(3);
      expect(stages[0].include.map((e: { shard: string }) => e.shard)).toEqual(["1/2", "2/2"]);

      const d1 = await runStage(ws, plan, 1);
      expect(d1.code, d1.stdout).toBe(0);
      expect(d1.outputs.decision).toBe("stop");
      expect(d1.outputs.verdict).toBe("regressed");
      expect(d1.outputs.sentence).toContain(
        `Monitored after each stage (1 of 3 stages ran): stopped after stage 1 (${N} of ${3 * N} planned head runs) because \`regressed\` was reached`,
      );
      expect(d1.outputs.sentence).toContain(`${2 * N} runs were not started`);

      const r = await report(ws);
      expect(r.code).toBe(1); // the gate fails on `regressed`
      expect(r.outputs.verdict).toBe("regressed");
      const body = gh.thread("acme", "agent", 7).find((c) => c.body.includes("staged-stop"))!.body;
      expect(body).toContain(d1.outputs.sentence);
      expect(body).not.toMatch(/Incomplete/);
      expect(store.artifacts.filter((a) => a.name.startsWith("medalist-staged-stop-stage-2"))).toEqual([]);
    },
  );

  it(
    "a borderline head: decide says continue after stages 1 and 2; every stage runs",
    { timeout: 600_000 },
    async () => {
      const ws = workspace("staged-borderline", "borderline", patterned);
      const plan = await step(ws, "plan", { shards: "2", stages: "3" });
      expect(plan.code, plan.stdout).toBe(0);
      for (const k of [1, 2]) {
        const d = await runStage(ws, plan, k);
        expect(d.code, d.stdout).toBe(0);
        expect(d.outputs.decision, d.outputs.sentence).toBe("continue");
      }
      const d3 = await runStage(ws, plan, 3);
      expect(d3.outputs.decision).toBe("stop");
      const r = await report(ws);
      expect(r.code, r.stdout).toBe(0);
      expect(r.outputs.verdict).toBe("inconclusive");
      const body = gh.thread("acme", "agent", 7).find((c) => c.body.includes("staged-borderline"))!.body;
      expect(body).toContain(
        `Monitored after each stage (3 of 3 stages ran): the verdict stayed open, so ${3 * N} of ${3 * N} planned head runs ran`,
      );
    },
  );
});

describe("decide/action.yml", () => {
  it("runs the one bundle with its own step and says continue or stop", () => {
    const yml = parse(readFileSync(join(ROOT, "decide", "action.yml"), "utf8"));
    expect(yml.runs).toEqual({ using: "node24", main: "../dist/index.js" });
    expect(yml.inputs.step.default).toBe("decide");
    expect(Object.keys(yml.outputs)).toEqual(["decision", "sentence", "verdict"]);
  });
});
