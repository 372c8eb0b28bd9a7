// Paths a pull request supplies are resolved, not spelled: through the action (in process and the
// bundle), on a real git repository with a base commit and one pull-request commit per attack.
// A build context through a committed link (Docker) and an agent.cwd linked to / (local executor)
// are refused with one sentence naming the link, and keep the exit code of their honest control.
import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import Docker from "dockerode";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bwrapAvailable } from "../../src/execute/local/sandbox.js";
import { FakeGitHub } from "../fixtures/github/server.js";
import { assertDist, ROOT, runAction, runInProcess, type ActionRun } from "./harness.js";

const T = 300_000;
const token = "ghs_pathsToken42";
const NODE_IMAGE = "medalist-test-node:1";

async function dockerReady(): Promise<boolean> {
  try {
    const d = new Docker();
    await d.ping();
    await d.getImage(NODE_IMAGE).inspect();
    return true;
  } catch (e) {
    if (process.env.MEDALIST_REQUIRE_DOCKER === "1") throw e;
    return false;
  }
}
const docker = await dockerReady();
const bwrap = process.platform === "linux" && bwrapAvailable();

/** A file's new text, null to delete it, or a symbolic link to commit. */
type Change = string | null | { link: string };

describe.skipIf(!docker || !bwrap)("paths a pull request supplies, through the action", () => {
  let repo: string;
  let gh: FakeGitHub;
  let events: string;
  let localBase: string;
  let dockerBase: string;
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], {
      cwd: repo,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    }).trim();

  /** 3 toy competitions × 2 seeds, the weak agent, judged against a committed baseline. */
  const config = (agent: string[], more: string[] = []) =>
    [
      "name: paths",
      "competitions:",
      "  split: toy",
      "seeds: 2",
      ...more,
      "agent:",
      ...agent,
      "limits:",
      "  time: 60s",
      "dataDir: .medalist/data",
      "registryDir: registry",
      "baseline: { source: file, path: base-medals.json }",
      "",
    ].join("\n");
  const localConfig = (cwd = "agents", command = "node weak/agent.mjs", more: string[] = []) =>
    config([`  command: ${command}`, `  cwd: ${cwd}`, ...more], ["executor: local"]);
  const dockerConfig = (context = "agents", command = "node weak/agent.mjs") =>
    config(
      [`  command: ${command}`, `  build: { context: ${context} }`],
      ["executor: docker", "docker: { network: none }"],
    );

  /** A commit on top of `parent` with these changes (files under ignored folders committed too). */
  function commit(parent: string, files: Record<string, Change>): string {
    git("checkout", "-q", "--detach", parent);
    for (const [path, change] of Object.entries(files)) {
      const abs = join(repo, path);
      rmSync(abs, { force: true });
      if (change === null) continue;
      mkdirSync(dirname(abs), { recursive: true });
      if (typeof change === "string") writeFileSync(abs, change);
      else symlinkSync(change.link, abs);
    }
    git("add", "-A");
    for (const path of Object.keys(files)) if (files[path] !== null) git("add", "-f", path);
    git("commit", "-q", "--allow-empty", "-m", "change");
    return git("rev-parse", "HEAD");
  }

  function event(base: string, head: string): string {
    const path = join(events, `${base.slice(0, 7)}-${head.slice(0, 7)}.json`);
    const repoInfo = { full_name: "acme/agent" };
    writeFileSync(
      path,
      JSON.stringify({
        action: "synchronize",
        number: 7,
        pull_request: {
          number: 7,
          base: { sha: base, ref: "main", repo: repoInfo },
          head: { sha: head, ref: "topic", repo: repoInfo },
        },
        repository: { full_name: "acme/agent", default_branch: "main" },
      }),
    );
    return path;
  }

  async function pr(
    base: string,
    files: Record<string, Change>,
    opts: { bundle?: boolean; unsandboxed?: boolean } = {},
  ): Promise<ActionRun & { comment: string }> {
    const head = commit(base, files);
    const r = await (opts.bundle ? runAction : runInProcess)({
      workspace: repo,
      inputs: {
        config: "medalist.yml",
        "github-token": token,
        comment: "always",
        "results-dir": ".medalist/results",
        "runs-dir": "none",
        ...(opts.unsandboxed ? { "allow-unsandboxed-agent": "true" } : {}),
      },
      env: { GITHUB_API_URL: gh.url, GITHUB_SHA: head },
      eventPath: event(base, head),
    });
    const thread = gh.thread("acme", "agent", 7);
    const comment = thread.length ? thread[0].body.split("\n").slice(1).join("\n") : "";
    return { ...r, comment };
  }

  /** Every run.log of the head side, as one text. */
  const runLogs = () => {
    const runs = join(repo, ".medalist/results/head/runs");
    if (!existsSync(runs)) return "";
    return readdirSync(runs)
      .map((d) => join(runs, d, "run.log"))
      .filter((f) => existsSync(f))
      .map((f) => readFileSync(f, "utf8"))
      .join("\n");
  };
  const errorLines = (r: ActionRun) => r.stdout.split("\n").filter((l) => l.startsWith("::error::"));
  const refusedLink = (link: string, target: string) =>
    `goes through the symbolic link ${repo}/${link} (-> ${target}); Medalist does not follow links in the paths a pull request supplies: commit the folder itself`;

  beforeAll(async () => {
    repo = mkdtempSync(join(tmpdir(), "medalist-paths-"));
    events = mkdtempSync(join(tmpdir(), "medalist-paths-events-"));
    git("init", "-q", "-b", "main");
    for (const id of ["toy-churn", "toy-house-prices", "toy-species"])
      cpSync(join(ROOT, "competitions", id), join(repo, "registry", id), { recursive: true });
    cpSync(join(ROOT, "examples/agents/weak"), join(repo, "agents/weak"), { recursive: true });
    cpSync(join(ROOT, "examples/agents/lib"), join(repo, "agents/lib"), { recursive: true });
    writeFileSync(
      join(repo, "agents", "Dockerfile"),
      `FROM ${NODE_IMAGE}\nCOPY . /agents\nWORKDIR /agents\n`,
    );
    writeFileSync(join(repo, ".gitignore"), ".medalist/\n.runner-*/\n");
    writeFileSync(
      join(repo, "medalist.yml"),
      localConfig().replace(/^baseline:.*$/m, "baseline: { source: none }"),
    );
    git("add", "-A");
    git("commit", "-q", "-m", "agent");
    const first = git("rev-parse", "HEAD");
    gh = new FakeGitHub();
    await gh.start();
    // The weak agent evaluated once on a push; the base's baseline claims a gold medal on every run.
    const pushEvent = join(events, "push.json");
    writeFileSync(
      pushEvent,
      JSON.stringify({ repository: { full_name: "acme/agent", default_branch: "main" } }),
    );
    const prime = await runInProcess({
      workspace: repo,
      inputs: {
        config: "medalist.yml",
        comment: "never",
        "runs-dir": "none",
        "results-dir": ".medalist/results",
      },
      env: { GITHUB_API_URL: gh.url, GITHUB_EVENT_NAME: "push", GITHUB_REF: "refs/heads/topic" },
      eventPath: pushEvent,
    });
    expect(prime.code, prime.stdout).toBe(0);
    const head = JSON.parse(readFileSync(join(repo, ".medalist/results/head/results.json"), "utf8"));
    const medals = head.runs.map((r: { grade: object }) => ({
      ...r,
      grade: { ...r.grade, any_medal: true, gold_medal: true },
    }));
    const baseline = JSON.stringify({ ...head, label: "base", runs: medals });
    localBase = commit(first, { "medalist.yml": localConfig(), "base-medals.json": baseline });
    dockerBase = commit(first, { "medalist.yml": dockerConfig(), "base-medals.json": baseline });
  }, T);
  afterAll(async () => {
    await gh?.stop();
    await new Docker()
      .getImage("medalist-agent:paths")
      .remove({ force: true })
      .catch(() => {});
    for (const d of [repo, events]) if (d) rmSync(d, { recursive: true, force: true });
  });
  beforeEach(() => {
    gh.comments.clear();
    gh.files.clear();
  });

  it(
    "docker, honest control: the weak agent built from its folder regresses, exit 1",
    { timeout: T },
    async () => {
      const r = await pr(dockerBase, {});
      expect(r.code, r.stdout).toBe(1);
      expect(r.outputs.verdict).toBe("regressed");
      expect(r.stdout).toContain("the image is built from a private copy");
    },
  );

  it(
    "docker, bundle: a build context through a committed link to the data's folder is refused, exit 1",
    { timeout: T },
    async () => {
      assertDist();
      // The PR's Dockerfile copies the data folder into the image; its agent submits the answers.
      const cheat = [
        'import { copyFileSync } from "node:fs";',
        "const id = process.env.COMPETITION_ID;",
        "copyFileSync(`/stolen/${id}/prepared/private/answers.csv`, `${process.env.SUBMISSION_DIR}/submission.csv`);",
        "",
      ].join("\n");
      const r = await pr(
        dockerBase,
        {
          "agents/up": { link: "../.medalist" },
          ".medalist/Dockerfile": `FROM ${NODE_IMAGE}\nCOPY data /stolen\nCOPY cheat.mjs /cheat.mjs\n`,
          ".medalist/cheat.mjs": cheat,
          "medalist.yml": dockerConfig("agents/up", "node /cheat.mjs"),
        },
        { bundle: true },
      );
      expect(r.code, r.stdout).toBe(1);
      expect(r.outputs.verdict ?? "").not.toBe("no-regression");
      expect(errorLines(r)).toHaveLength(1);
      expect(errorLines(r)[0]).toContain(
        `agent.build.context: ${repo}/agents/up ${refusedLink("agents/up", "../.medalist")}`,
      );
      expect(r.comment).not.toContain("no regression");
    },
  );

  it(
    "docker: an MLE-bench agent's Dockerfile through a committed link is refused, exit 1",
    { timeout: T },
    async () => {
      const head = dockerConfig().replace(
        /^agent:\n( {2}.*\n)+/m,
        "agent:\n  mlebench: { agentsDir: agents, id: tiny }\n",
      );
      expect(head).toContain("mlebench: { agentsDir: agents, id: tiny }\nlimits:");
      const r = await pr(dockerBase, {
        "agents/tiny/config.yaml": "tiny:\n  start: tiny/start.sh\n  dockerfile: evil/Dockerfile\n",
        "agents/tiny/start.sh": "#!/bin/bash\n",
        "agents/evil": { link: "../.medalist" },
        ".medalist/Dockerfile": `FROM ${NODE_IMAGE}\nCOPY data /stolen\n`,
        "medalist.yml": head,
      });
      expect(r.code, r.stdout).toBe(1);
      expect(r.outputs.verdict ?? "").not.toBe("no-regression");
      expect(errorLines(r)).toHaveLength(1);
      expect(errorLines(r)[0]).toContain(
        `tiny/config.yaml: tiny.dockerfile: ${repo}/agents/evil/Dockerfile ${refusedLink("agents/evil", "../.medalist")}`,
      );
    },
  );

  it("local, honest control: the weak agent regresses, exit 1", { timeout: T }, async () => {
    const r = await pr(localBase, {}, { unsandboxed: true });
    expect(r.code, r.stdout).toBe(1);
    expect(r.outputs.verdict).toBe("regressed");
  });

  it(
    "local: agent.cwd through a committed link to / is refused before bubblewrap starts, exit 1",
    { timeout: T },
    async () => {
      // Outside the checkout, as the runner's home or the Docker socket are.
      const secretDir = mkdtempSync(join(tmpdir(), "medalist-paths-secret-"));
      writeFileSync(join(secretDir, "token"), "RUNNER-SECRET-42\n");
      const r = await pr(
        localBase,
        {
          "agents/rootlink": { link: "/" },
          "medalist.yml": localConfig(
            "agents/rootlink",
            `sh -c "cat .${secretDir}/token; node ${repo}/agents/weak/agent.mjs"`,
            // Nothing of / hashed for the run's identity: the PR decides agent.files too.
            ['  files: { ignore: ["*"] }'],
          ),
        },
        { unsandboxed: true },
      );
      expect(r.code, r.stdout).toBe(1);
      expect(r.outputs.verdict ?? "").not.toBe("no-regression");
      expect(errorLines(r)).toHaveLength(1);
      expect(errorLines(r)[0]).toContain(
        `agent.cwd: ${repo}/agents/rootlink ${refusedLink("agents/rootlink", "/")}`,
      );
      expect(runLogs()).not.toContain("RUNNER-SECRET-42");
      expect(r.stdout).not.toContain("RUNNER-SECRET-42");
    },
  );
});
