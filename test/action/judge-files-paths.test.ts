// Paths a pull request supplies are resolved, not spelled: through the action (in process and the
// bundle), on a real git repository with a base commit and one pull-request commit per attack.
// A build context through a committed link (Docker) and an agent.cwd linked to / (local executor)
// are refused with one sentence naming the link, and keep the exit code of their honest control.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Docker from "dockerode";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bwrapAvailable } from "../../src/execute/local/sandbox.js";
import { FakeGitHub } from "../fixtures/github/server.js";
import { assertDist, type ActionRun } from "./harness.js";
import { commitIn, errorLines, primeBaseline, runPr, seedRepo } from "./pr-repo.js";

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
  const commit = (parent: string, files: Record<string, Change>) => commitIn(repo, parent, files);

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

  async function pr(
    base: string,
    files: Record<string, Change>,
    opts: { bundle?: boolean; unsandboxed?: boolean } = {},
  ): Promise<ActionRun & { comment: string }> {
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
        ...(opts.unsandboxed ? { "allow-unsandboxed-agent": "true" } : {}),
      },
      bundle: opts.bundle,
    });
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
  const refusedLink = (link: string, target: string) =>
    `goes through the symbolic link ${repo}/${link} (-> ${target}); Medalist does not follow links in the paths a pull request supplies: commit the folder itself`;

  beforeAll(async () => {
    repo = mkdtempSync(join(tmpdir(), "medalist-paths-"));
    events = mkdtempSync(join(tmpdir(), "medalist-paths-events-"));
    const first = seedRepo(repo, {
      "agents/Dockerfile": `FROM ${NODE_IMAGE}\nCOPY . /agents\nWORKDIR /agents\n`,
      "medalist.yml": localConfig().replace(/^baseline:.*$/m, "baseline: { source: none }"),
    });
    gh = new FakeGitHub();
    await gh.start();
    // The weak agent evaluated once on a push; the base's baseline claims a gold medal on every run.
    const { gold: baseline } = await primeBaseline({
      repo,
      events,
      gh,
      config: "medalist.yml",
      resultsDir: ".medalist/results",
    });
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
