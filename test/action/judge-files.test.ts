// The pull request's files cannot change its judge: the config, the baseline file and the grader's
// script are read from the base commit's git objects, and a symbolic link on the way is refused.
// A real git repository with a base commit and one pull-request commit per attack, the action in
// process (and once as the bundle) against the loopback GitHub; each attack keeps the verdict and
// exit code of its honest control.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FakeGitHub } from "../fixtures/github/server.js";
import { assertDist, type ActionRun } from "./harness.js";
import { commitIn, errorLines, gitIn, primeBaseline, runPr, seedRepo, type Change } from "./pr-repo.js";

const T = 240_000;
const token = "ghs_judgeFilesToken42";

describe("the pull request's files cannot change its judge", () => {
  let repo: string;
  let gh: FakeGitHub;
  let baseSha: string;
  let gradeBase: string;
  let events: string;
  const git = (...args: string[]) => gitIn(repo)(...args);
  const commit = (parent: string, files: Record<string, Change>) => commitIn(repo, parent, files);

  /** ci/medalist.yml: 3 toy competitions × 2 seeds against the committed bl/baseline.json. */
  const baseConfig = (more: string[] = []) =>
    [
      "name: judged-files",
      "competitions:",
      "  split: toy",
      "seeds: 2",
      "executor: local",
      "agent:",
      "  command: node weak/agent.mjs",
      "  cwd: ../agents",
      "limits:",
      "  time: 60s",
      "dataDir: ../.medalist/data",
      "registryDir: ../registry",
      "baseline: { source: file, path: ../bl/baseline.json }",
      ...more,
      "",
    ].join("\n");

  /** The action on a pull request whose head commit makes `files`' changes to the base commit. */
  async function pr(
    files: Record<string, Change>,
    opts: { base?: string; bundle?: boolean } = {},
  ): Promise<ActionRun & { comment: string; errors: string[] }> {
    const base = opts.base ?? baseSha;
    const head = commit(base, files);
    rmSync(join(repo, ".medalist/results"), { recursive: true, force: true });
    const r = await runPr({
      repo,
      events,
      gh,
      base,
      head,
      inputs: {
        config: "ci/medalist.yml",
        "github-token": token,
        "results-dir": ".medalist/results",
        "allow-unsandboxed-agent": "true",
      },
      bundle: opts.bundle,
    });
    return { ...r, errors: errorLines(r) };
  }

  /** The honest verdict: the head's 0 % against the base's committed 100 % fails the gate. */
  function regressed(r: ActionRun & { comment: string }) {
    expect(r.code, r.stdout).toBe(1);
    expect(r.outputs.verdict, r.stdout).toBe("regressed");
  }

  /** Refused before anything ran: exit 1 (the control's exit code), one error line, no verdict. */
  function refused(r: ActionRun & { comment: string; errors: string[] }, sentence: string) {
    expect(r.code, r.stdout).toBe(1);
    expect(r.outputs.verdict).toBeUndefined();
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toContain(sentence);
    expect(r.comment).toBe("");
  }

  beforeAll(async () => {
    repo = mkdtempSync(join(tmpdir(), "medalist-judge-files-"));
    events = mkdtempSync(join(tmpdir(), "medalist-judge-files-events-"));
    const first = seedRepo(repo, {
      "ci/medalist.yml": baseConfig().replace(/^baseline:.*$/m, "baseline: { source: none }"),
    });
    gh = new FakeGitHub();
    await gh.start();
    // The head evaluated once on a push (no baseline); the base's results claim a medal on every run.
    const { results, gold } = await primeBaseline({
      repo,
      events,
      gh,
      config: "ci/medalist.yml",
      resultsDir: ".medalist/results",
    });
    writeFileSync(join(events, "own-baseline.json"), JSON.stringify({ ...results, label: "base" }));
    baseSha = commit(first, { "ci/medalist.yml": baseConfig(), "bl/baseline.json": gold });
    // The same base, its competitions graded by its own script: the worst score for every submission.
    const external: Record<string, string> = {};
    for (const id of ["toy-churn", "toy-house-prices", "toy-species"]) {
      const file = `registry/${id}/competition.json`;
      const spec = JSON.parse(readFileSync(join(repo, file), "utf8"));
      external[file] = JSON.stringify({ ...spec, grading: "external" });
    }
    gradeBase = commit(baseSha, {
      ...external,
      "tools/grade.sh": [
        'case "$2" in',
        "  toy-churn) echo '{\"score\": 0}' ;;",
        "  *) echo '{\"score\": 1000000}' ;;",
        "esac",
        "",
      ].join("\n"),
      "ci/medalist.yml": baseConfig([
        'externalGrader: ["sh", "tools/grade.sh", "{submission}", "{competition}", "{private_dir}"]',
      ]),
    });
  }, T);
  afterAll(async () => {
    await gh?.stop();
    for (const d of [repo, events]) if (d) rmSync(d, { recursive: true, force: true });
  });
  beforeEach(() => {
    gh.comments.clear();
    gh.files.clear();
  });

  it("the honest control: regressed, exit 1", { timeout: T }, async () => {
    const r = await pr({});
    regressed(r);
    expect(r.comment).not.toContain("This pull request changes");
  });

  it(
    "bundle: the config's folder replaced by a symbolic link is refused, naming the link",
    { timeout: T },
    async () => {
      assertDist();
      // The PR's own settings in a folder of its own, and ci pointing at it.
      const r = await pr(
        {
          "mine/medalist.yml": `${baseConfig()}gate: { failOn: never }\n`,
          "ci/medalist.yml": null,
          ci: { link: "mine" },
        },
        { bundle: true },
      );
      refused(r, "config ci/medalist.yml: ci is a symbolic link in this pull request's checkout");
      expect(r.stdout).not.toContain("has no ci/medalist.yml");
    },
  );

  it("the same in process", { timeout: T }, async () => {
    const r = await pr({
      "mine/medalist.yml": `${baseConfig()}gate: { failOn: never }\n`,
      "ci/medalist.yml": null,
      ci: { link: "mine" },
    });
    refused(r, "config ci/medalist.yml: ci is a symbolic link in this pull request's checkout");
  });

  it(
    "the config's folder a symbolic link in the base commit is refused, never 'has no'",
    { timeout: T },
    async () => {
      const linked = commit(baseSha, {
        "ci/medalist.yml": { moveTo: "real/medalist.yml" },
        ci: { link: "real" },
      });
      // The PR makes ci a real folder again, with its own settings.
      const r = await pr(
        { ci: null, "ci/medalist.yml": `${baseConfig()}gate: { failOn: never }\n` },
        { base: linked },
      );
      refused(r, `config ci/medalist.yml: ci is a symbolic link in the base commit ${linked.slice(0, 7)}`);
      expect(r.stdout).not.toContain("has no ci/medalist.yml");
    },
  );

  it(
    "a config really missing at the base commit: 'has no', judged by the PR's own settings",
    { timeout: T },
    async () => {
      const bare = commit(baseSha, { ci: null });
      const r = await pr({ "ci/medalist.yml": `${baseConfig()}gate: { failOn: never }\n` }, { base: bare });
      expect(r.code, r.stdout).toBe(0);
      expect(r.comment.split("\n")[0]).toMatch(
        /^> ℹ️ The base commit [0-9a-f]{7} has no ci\/medalist.yml: this pull request is judged by its own settings/,
      );
    },
  );

  it("the baseline file's folder replaced by a symbolic link is refused", { timeout: T }, async () => {
    // The PR's own baseline (the head's results: 0 medals), and bl pointing at it.
    const r = await pr({
      "mine/baseline.json": readFileSync(join(events, "own-baseline.json"), "utf8"),
      bl: { link: "mine" },
    });
    refused(r, "baseline.path ../bl/baseline.json: bl is a symbolic link in this pull request's checkout");
  });

  it("the baseline file itself a symbolic link in the PR is refused", { timeout: T }, async () => {
    const r = await pr({
      "mine/baseline.json": readFileSync(join(events, "own-baseline.json"), "utf8"),
      "bl/baseline.json": { link: "../mine/baseline.json" },
    });
    refused(
      r,
      "baseline.path ../bl/baseline.json: bl/baseline.json is a symbolic link in this pull request's checkout",
    );
  });

  it("a file the pull request commits in the data folder is refused", { timeout: T }, async () => {
    const r = await pr({ ".medalist/data/toy-churn/prepared/private/extra.csv": "id,target\n1,1\n" });
    refused(
      r,
      "the data folder .medalist/data (dataDir, with the private answers): this pull request changes 1 file(s) in it (.medalist/data/toy-churn/prepared/private/extra.csv)",
    );
  });

  it("a link the pull request commits on the way to the data folder is refused", { timeout: T }, async () => {
    const r = await pr({
      "pr-data/data/toy-churn/prepared/private/answers.csv": "id,target\n",
      ".medalist": { link: "pr-data" },
    });
    refused(
      r,
      "the data folder .medalist/data (dataDir, with the private answers): .medalist is a symbolic link this pull request commits",
    );
    git("checkout", "-q", "--detach", baseSha);
  });

  it("the grader's script: the base's, run from a copy of the base commit", { timeout: T }, async () => {
    const control = await pr({}, { base: gradeBase });
    regressed(control);
    // The PR's script lists the private folder and gives every submission a gold score.
    const marker = join(events, "pr-grader-ran");
    const r = await pr(
      {
        "tools/grade.sh": [
          `ls "$3" > ${marker}`,
          'case "$2" in',
          "  toy-churn) echo '{\"score\": 1}' ;;",
          "  *) echo '{\"score\": 0}' ;;",
          "esac",
          "",
        ].join("\n"),
      },
      { base: gradeBase },
    );
    regressed(r);
    expect(existsSync(marker)).toBe(false);
    const first = r.comment.split("\n")[0];
    expect(first).toContain("tools/grade.sh");
    expect(first).toContain("the base commit's copy");
    // The grader ran: every run of the PR is graded, none by the PR's script.
    const results = JSON.parse(readFileSync(join(repo, ".medalist/results/head/results.json"), "utf8"));
    for (const run of results.runs) expect(run.grade.valid_submission, JSON.stringify(run.grade)).toBe(true);
  });

  it(
    "the grader's folder replaced by a symbolic link to the PR's script: the base's still runs",
    { timeout: T },
    async () => {
      const marker = join(events, "pr-linked-grader-ran");
      const r = await pr(
        {
          "evil/grade.sh": [`touch ${marker}`, "echo '{\"score\": 1}'", ""].join("\n"),
          tools: { link: "evil" },
        },
        { base: gradeBase },
      );
      regressed(r);
      expect(existsSync(marker)).toBe(false);
      expect(r.comment.split("\n")[0]).toContain("tools/grade.sh");
      git("checkout", "-q", "--detach", baseSha);
    },
  );
});
