// A pull request cannot change its judge: the action, run in process against the loopback GitHub,
// on a real git repository with a base commit and one head commit per attack.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FakeGitHub } from "../fixtures/github/server.js";
import { assertDist, runInProcess, type ActionRun } from "./harness.js";
import { commitIn, errorLines, gitIn, prEvent, primeBaseline, runPr, seedRepo } from "./pr-repo.js";
import { requireDocker } from "../docker/helpers.js";

/** The runtime gate asks the daemon for its runtimes. */
const dockerUp = await requireDocker();

const T = 240_000;
const token = "ghs_judgeToken42";

describe("the pull request cannot change its judge", () => {
  let repo: string;
  let gh: FakeGitHub;
  let baseSha: string;
  let events: string;
  const git = (...args: string[]) => gitIn(repo)(...args);
  const commit = (parent: string, files: Record<string, string | null>) => commitIn(repo, parent, files);
  const event = (base: string, head: string) => prEvent(events, base, head);

  /** The base config: a suite of 3 toy competitions × 2 seeds, compared with a committed baseline. */
  const baseConfig = (more: string[] = []) =>
    [
      "name: judged",
      "competitions:",
      "  split: toy",
      "seeds: 2",
      "executor: local",
      "agent:",
      "  command: node weak/agent.mjs",
      "  cwd: agents",
      "limits:",
      "  time: 60s",
      "dataDir: .medalist/data",
      "registryDir: registry",
      "baseline: { source: file, path: base-medals.json }",
      ...more,
      "",
    ].join("\n");

  /** The action on a pull request whose head commit changes `files` of the base commit. */
  async function pr(
    files: Record<string, string | null>,
    inputs: Record<string, string> = {},
    opts: { base?: string; env?: Record<string, string>; bundle?: boolean } = {},
  ): Promise<ActionRun & { comment: string }> {
    const base = opts.base ?? baseSha;
    return runPr({
      repo,
      events,
      gh,
      base,
      head: commit(base, files),
      inputs: {
        config: "medalist.yml",
        "github-token": token,
        "results-dir": ".medalist/results",
        "allow-unsandboxed-agent": "true",
        ...inputs,
      },
      env: opts.env,
      bundle: opts.bundle,
    });
  }

  beforeAll(async () => {
    repo = mkdtempSync(join(tmpdir(), "medalist-judge-"));
    events = mkdtempSync(join(tmpdir(), "medalist-judge-events-"));
    const first = seedRepo(repo, {
      "medalist.yml": baseConfig().replace(/^baseline:.*$/m, "baseline: { source: none }"),
    });
    gh = new FakeGitHub();
    await gh.start();
    // The head evaluated once on a push (no baseline); the base's results claim a medal on every run.
    const { gold } = await primeBaseline({
      repo,
      events,
      gh,
      config: "medalist.yml",
      resultsDir: ".medalist/results",
    });
    baseSha = commit(first, { "medalist.yml": baseConfig(), "base-medals.json": gold });
  }, T);
  afterAll(async () => {
    await gh?.stop();
    for (const d of [repo, events]) if (d) rmSync(d, { recursive: true, force: true });
  });
  beforeEach(() => {
    gh.comments.clear();
    gh.files.clear();
  });

  /** The verdict and exit code of the base's settings: a 100 % → 0 % drop fails the gate. */
  function judgedByBase(r: ActionRun & { comment: string }, changed: string[]) {
    expect(r.code, r.stdout).toBe(1);
    expect(r.outputs.verdict).toBe("regressed");
    const first = r.comment.split("\n")[0];
    expect(first).toMatch(/^> ⚠️ \*\*This pull request changes the evaluation settings\*\*: /);
    expect(first).toContain("the base branch's settings apply");
    for (const path of changed) expect(first).toContain(path);
  }
  const headConfig = (edit: (c: string) => string) => ({ "medalist.yml": edit(baseConfig()) });

  it("the base branch's own run: regressed, exit 1, no notice", { timeout: T }, async () => {
    const r = await pr({});
    expect(r.code, r.stdout).toBe(1);
    expect(r.outputs.verdict).toBe("regressed");
    expect(r.comment).not.toContain("⚠️ **This pull request");
  });

  it("gate.failOn: never in the PR is ignored", { timeout: T }, async () => {
    judgedByBase(await pr(headConfig((c) => `${c}gate: { failOn: never }\n`)), ["gate.failOn"]);
  });

  it("bundle: the same through dist/index.js, as the runner starts it", { timeout: T }, async () => {
    assertDist();
    judgedByBase(
      await pr(
        headConfig((c) => `${c}gate: { failOn: never }\n`),
        {},
        { bundle: true },
      ),
      ["gate.failOn"],
    );
  });

  it("gate.tolerance: 0.9 in the PR is ignored", { timeout: T }, async () => {
    judgedByBase(await pr(headConfig((c) => `${c}gate: { tolerance: 0.9 }\n`)), ["gate.tolerance"]);
  });

  it("gate.alpha: 0.0001 in the PR is ignored", { timeout: T }, async () => {
    judgedByBase(await pr(headConfig((c) => `${c}gate: { alpha: 0.0001 }\n`)), ["gate.alpha"]);
  });

  it("baseline: none in the PR is ignored", { timeout: T }, async () => {
    const edit = (c: string) => c.replace(/^baseline:.*$/m, "baseline: { source: none }");
    judgedByBase(await pr(headConfig(edit)), ["baseline.source", "baseline.path"]);
  });

  it("baseline: run with a failing base agent in the PR is ignored", { timeout: T }, async () => {
    const edit = (c: string) =>
      c.replace(/^baseline:.*$/m, 'baseline: { source: run, agent: { command: "exit 1" } }');
    const r = await pr(headConfig(edit));
    judgedByBase(r, ["baseline.source", "baseline.agent"]);
    expect(r.comment).not.toContain("evaluated in this job");
  });

  it("dropping competitions with allowSuiteMismatch in the PR is ignored", { timeout: T }, async () => {
    const edit = (c: string) =>
      c.replace("  split: toy", "  split: toy\n  include: [toy-species]") +
      "gate: { allowSuiteMismatch: true }\n";
    judgedByBase(await pr(headConfig(edit)), ["competitions.include", "gate.allowSuiteMismatch"]);
  });

  it(
    "baseline: run in the base config runs the base commit's agent on the base side",
    { timeout: T },
    async () => {
      const runBase = commit(baseSha, {
        "medalist.yml": baseConfig().replace(/^baseline:.*$/m, "baseline: { source: run }"),
      });
      // The PR's agent needs a file only the PR has: run on the base side, every base run would fail.
      const r = await pr(
        {
          "agents/head-only": "",
          "medalist.yml": baseConfig()
            .replace(/^baseline:.*$/m, "baseline: { source: run }")
            .replace("command: node weak/agent.mjs", "command: test -f head-only && node weak/agent.mjs"),
        },
        {},
        { base: runBase },
      );
      expect(r.comment, r.stdout).not.toContain("This pull request changes the evaluation settings");
      const base = JSON.parse(readFileSync(join(repo, ".medalist/results/base/results.json"), "utf8"));
      expect(base.agent.description).toContain("node weak/agent.mjs");
      expect(base.agent.description).not.toContain("head-only");
      expect(base.runs.map((x: { outcome: string }) => x.outcome)).toEqual(Array(6).fill("completed"));
      const head = JSON.parse(readFileSync(join(repo, ".medalist/results/head/results.json"), "utf8"));
      expect(head.agent.description).toContain("head-only");
    },
  );

  it("the PR's edit of the committed baseline file is ignored", { timeout: T }, async () => {
    const head = JSON.parse(readFileSync(join(repo, ".medalist/results/head/results.json"), "utf8"));
    const r = await pr({ "base-medals.json": JSON.stringify({ ...head, label: "base" }) });
    expect(r.code, r.stdout).toBe(1);
    expect(r.outputs.verdict).toBe("regressed");
  });

  it("trust-pr-config: true uses the PR's settings and says so", { timeout: T }, async () => {
    const r = await pr(
      headConfig((c) => `${c}gate: { failOn: never }\n`),
      { "trust-pr-config": "true" },
    );
    expect(r.code, r.stdout).toBe(0);
    expect(r.comment.split("\n")[0]).toMatch(
      /^> ⚠️ \*\*`trust-pr-config: true`\*\*: this pull request was judged by its own evaluation settings/,
    );
  });

  it(
    "no config on the base commit: the head's is used and the first line says so",
    { timeout: T },
    async () => {
      const bare = commit(baseSha, { "medalist.yml": null });
      const r = await pr(
        headConfig((c) => `${c}gate: { failOn: never }\n`),
        {},
        { base: bare },
      );
      expect(r.code, r.stdout).toBe(0);
      const first = r.comment.split("\n")[0];
      expect(first).toMatch(
        /^> ℹ️ The base commit [0-9a-f]{7} has no medalist.yml: this pull request is judged by its own settings/,
      );
      // A pull request never brings its own registry.
      expect(first).toContain("except registryDir");
    },
  );

  it("without git, the base config is read through the contents API", { timeout: T }, async () => {
    const plain = mkdtempSync(join(tmpdir(), "medalist-judge-nogit-"));
    try {
      const head = commit(baseSha, { "medalist.yml": `${baseConfig()}gate: { failOn: never }\n` });
      cpSync(repo, plain, { recursive: true, filter: (src) => !src.endsWith(".git") });
      gh.files.set(
        `${baseSha}:medalist.yml`,
        baseConfig()
          .replace(/^registryDir:.*\n/m, "")
          .replace(/^baseline:.*$/m, "baseline: { source: none }"),
      );
      const r = await runInProcess({
        workspace: plain,
        inputs: {
          config: "medalist.yml",
          "github-token": token,
          "allow-unsandboxed-agent": "true",
          "runs-dir": "none",
        },
        env: { GITHUB_API_URL: gh.url, GITHUB_WORKSPACE: plain },
        eventPath: event(baseSha, head),
      });
      expect(r.code, r.stdout).toBe(0);
      expect(gh.requests.some((q) => q.path.startsWith("/repos/acme/agent/contents/medalist.yml?ref="))).toBe(
        true,
      );
      const body = gh.thread("acme", "agent", 7)[0].body;
      expect(body).toContain("gate.failOn");
      expect(body).toContain("registryDir");
    } finally {
      rmSync(plain, { recursive: true, force: true });
    }
  });

  it(
    "executor: local on a PR is refused with one line naming the input, and runs with it",
    { timeout: T },
    async () => {
      const refused = await pr({}, { "allow-unsandboxed-agent": "false" });
      expect(refused.code).toBe(1);
      expect(errorLines(refused)).toEqual([
        "::error::medalist: refusing to run executor: local on pull request #7: its agent would run unsandboxed, next to this runner's tokens and the private answers; use executor: docker, or set `allow-unsandboxed-agent: true` to accept it",
      ]);
      expect(refused.comment).toBe("");
    },
  );

  it(
    "Slurm mode command on a PR is refused the same way; the input lets it through",
    { timeout: T },
    async () => {
      const slurm = commit(baseSha, {
        "medalist.yml": baseConfig([
          "executor: slurm",
          "slurm: { sharedDir: /tmp/medalist-none, mode: command }",
        ]).replace("executor: local\n", ""),
      });
      const refused = await pr({}, { "allow-unsandboxed-agent": "false" }, { base: slurm });
      expect(errorLines(refused)).toEqual([
        "::error::medalist: refusing to run slurm mode: command on pull request #7: its agent would run unsandboxed, next to this runner's tokens and the private answers; use executor: docker, or set `allow-unsandboxed-agent: true` to accept it",
      ]);
      // Allowed, the judge lets it through to the suite (which here never reaches a cluster).
      let ran = false;
      const allowed = await runInProcess({
        workspace: repo,
        inputs: {
          config: "medalist.yml",
          "github-token": token,
          "allow-unsandboxed-agent": "true",
          "runs-dir": "none",
        },
        env: { GITHUB_API_URL: gh.url },
        eventPath: event(slurm, git("rev-parse", "HEAD")),
        deps: {
          runSuite: async () => {
            ran = true;
            throw new Error("no cluster in this test");
          },
        },
      });
      expect(ran, allowed.stdout).toBe(true);
      expect(errorLines(allowed).join("\n")).not.toContain("refusing");
    },
  );

  it("the runner's token names are refused as agent secrets", { timeout: T }, async () => {
    const named = await pr(
      headConfig((c) => c.replace("  cwd: agents", "  cwd: agents\n  secrets: [ACTIONS_RUNTIME_TOKEN]")),
    );
    expect(named.code).toBe(1);
    expect(errorLines(named)[0]).toContain(
      "ACTIONS_RUNTIME_TOKEN is one of the runner's own variables (GITHUB_*, ACTIONS_*, RUNNER_*, INPUT_*) and is never passed to the agent",
    );
    // A variable holding the action's own token, under any name, on the base's list.
    const base = commit(baseSha, {
      "medalist.yml": baseConfig().replace("  cwd: agents", "  cwd: agents\n  secrets: [DEPLOY_KEY]"),
    });
    const held = await pr({}, {}, { base, env: { DEPLOY_KEY: token } });
    expect(held.code).toBe(1);
    expect(errorLines(held)[0]).toContain("agent.secrets: DEPLOY_KEY holds this action's github-token");
  });

  it("an external grader from the PR's registry and config is not run", { timeout: T }, async () => {
    const marker = join(events, "grader-ran");
    const spec = JSON.parse(readFileSync(join(repo, "registry/toy-churn/competition.json"), "utf8"));
    const r = await pr({
      "registry/toy-churn/competition.json": JSON.stringify({ ...spec, grading: "external" }),
      "medalist.yml": `${baseConfig()}externalGrader: ["sh", "-c", "touch ${marker}; echo '{\\"score\\": 1}'"]\n`,
    });
    expect(existsSync(marker)).toBe(false);
    judgedByBase(r, ["externalGrader"]);
  });

  it.skipIf(!dockerUp)(
    "a pull request's agent under runc is refused with one sentence",
    { timeout: T },
    async () => {
      // The base branch asks for runc by name: no sandboxing runtime, whatever the daemon has.
      const runcConfig = baseConfig()
        .replace("executor: local", "executor: docker\ndocker: { runtime: runc, network: none }")
        .replace(
          "  command: node weak/agent.mjs\n",
          "  command: node weak/agent.mjs\n  image: medalist-test-node:1\n",
        );
      const base = commit(baseSha, { "medalist.yml": runcConfig });
      const r = await pr({ "agents/weak/agent.mjs": "// a change\n" }, {}, { base });
      expect(r.code).toBe(1);
      expect(errorLines(r)).toHaveLength(1);
      expect(errorLines(r)[0]).toMatch(
        /^::error::medalist: refusing to run pull request #\d+'s agent under runc, which is no sandbox \(the Docker daemon has [^()]+; Medalist needs runsc or sysbox-runc\): install gVisor .*, or set `allow-runc: true` to accept it$/,
      );
    },
  );

  it("a build context holding the data folder is refused", { timeout: T }, async () => {
    const dockerConfig = (agent: string) =>
      baseConfig()
        .replace("executor: local", "executor: docker")
        .replace("  command: node weak/agent.mjs\n", `  command: node weak/agent.mjs\n${agent}`);
    const docker = commit(baseSha, { "medalist.yml": dockerConfig("  image: medalist-test-node:1\n") });
    // The PR builds its agent from the whole checkout: the data folder (and .git) would be in its image.
    const r = await pr({ "medalist.yml": dockerConfig("  build: { context: . }\n") }, {}, { base: docker });
    expect(r.code).toBe(1);
    expect(errorLines(r)).toHaveLength(1);
    expect(errorLines(r)[0]).toMatch(
      /agent\.build\.context \S+ contains the data folder \(dataDir, with the private answers\) \S+: the agent's image could copy it; point agent\.build\.context at the folder with the agent's code/,
    );
  });
});
