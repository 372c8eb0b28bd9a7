// A pull request cannot reuse run records it wrote: forged finished runs committed in the checkout's
// results folder, and forged shard results in the staged workflow's artifacts. A real git repository
// with a base commit and one pull-request commit per attack, the action in process (and the bundle
// once) against the loopback GitHub; each attack keeps the verdict and exit code of its honest control.
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ArtifactApi } from "../../src/action/artifacts.js";
import { FakeGitHub } from "../fixtures/github/server.js";
import { assertDist, runInProcess, type ActionRun } from "./harness.js";
import { commentOf, commitIn, prEvent, primeBaseline, runPr, seedRepo } from "./pr-repo.js";

const T = 300_000;
const token = "ghs_runsToken42";

/** The artifact service as a folder: what run/ uploads, decide/ and report/ list and download. */
class FolderArtifacts {
  constructor(readonly root: string) {}
  private next = 1;
  readonly names = new Map<number, string>();
  api(): ArtifactApi {
    return {
      upload: async (name, files, root) => {
        const id = this.next++;
        this.names.set(id, name);
        for (const f of files) {
          const to = join(this.root, String(id), relative(root, f));
          mkdirSync(dirname(to), { recursive: true });
          cpSync(f, to);
        }
        return { id };
      },
      list: async () => [...this.names].map(([id, name]) => ({ id, name })),
      download: async (id, path) => cpSync(join(this.root, String(id)), path, { recursive: true }),
    };
  }
  /** The folder of the newest artifact whose name starts with `prefix`. */
  folder(prefix: string): string {
    const id = Math.max(...[...this.names].filter(([, n]) => n.startsWith(prefix)).map(([i]) => i));
    return join(this.root, String(id));
  }
}

describe("a pull request cannot reuse run records it wrote", () => {
  let repo: string;
  let gh: FakeGitHub;
  let baseSha: string;
  let events: string;
  let keyDir: string;
  /** The honest control: the same pull request without forged files. */
  let control: ActionRun & { comment: string };
  /** The control's records with gold grades: the attacker's files, identities right. */
  let forged: Record<string, string>;
  const config = (baseline: string) =>
    [
      "name: records",
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
      baseline,
      "",
    ].join("\n");

  const commit = (parent: string, files: Record<string, string>) => commitIn(repo, parent, files);
  const event = (base: string, head: string) => prEvent(events, base, head);

  const env = (head: string, more: Record<string, string> = {}) => ({
    GITHUB_API_URL: gh.url,
    GITHUB_SHA: head,
    // This runner's key, outside the checkout (the default would be the home folder).
    MEDALIST_RUN_KEY_FILE: join(keyDir, "run-key"),
    ...more,
  });

  /** The action on a pull request whose head commit adds `files` to the base commit. */
  async function pr(
    files: Record<string, string>,
    inputs: Record<string, string> = {},
    opts: { bundle?: boolean; env?: Record<string, string> } = {},
  ): Promise<ActionRun & { comment: string; head: string }> {
    const head = commit(baseSha, files);
    const r = await runPr({
      repo,
      events,
      gh,
      base: baseSha,
      head,
      inputs: { config: "medalist.yml", "github-token": token, "allow-unsandboxed-agent": "true", ...inputs },
      env: env(head, opts.env),
      bundle: opts.bundle,
    });
    return { ...r, head };
  }

  /** Gold on every run of a results folder's head side: the attacker's records, right identities. */
  function forgedRecords(resultsDir: string): Record<string, string> {
    const files: Record<string, string> = {};
    const runs = join(repo, resultsDir, "head", "runs");
    for (const id of readdirSync(runs)) {
      const rel = join(resultsDir, "head", "runs", id);
      const doc = JSON.parse(readFileSync(join(repo, rel, "run.json"), "utf8"));
      doc.result.grade = { ...doc.result.grade, gold_medal: true, any_medal: true, score: 1 };
      doc.result.outcome = "completed";
      files[join(rel, "run.json")] = JSON.stringify(doc, null, 2) + "\n";
      // The runner's own seal of the honest record goes along: it no longer matches.
      if (existsSync(join(repo, rel, "run.seal")))
        files[join(rel, "run.seal")] = readFileSync(join(repo, rel, "run.seal"), "utf8");
    }
    return files;
  }

  beforeAll(async () => {
    repo = mkdtempSync(join(tmpdir(), "medalist-runs-"));
    events = mkdtempSync(join(tmpdir(), "medalist-runs-events-"));
    keyDir = mkdtempSync(join(tmpdir(), "medalist-runs-key-"));
    const first = seedRepo(repo, { "medalist.yml": config("baseline: { source: none }") });
    gh = new FakeGitHub();
    await gh.start();
    // The head once on a push; the base's results claim a medal on every run.
    const { gold } = await primeBaseline({
      repo,
      events,
      gh,
      config: "medalist.yml",
      resultsDir: ".medalist/prime",
      env: env(first),
    });
    baseSha = commit(first, {
      "medalist.yml": config("baseline: { source: file, path: base-medals.json }"),
      "base-medals.json": gold,
    });
    gh.comments.clear();
    // The honest control, its results in the checkout (.medalist/results): regressed, exit 1.
    control = { ...(await pr({}, { "results-dir": ".medalist/results" })) };
    expect(control.code, control.stdout).toBe(1);
    expect(control.outputs.verdict).toBe("regressed");
    forged = forgedRecords(".medalist/results");
  }, T);
  afterAll(async () => {
    await gh?.stop();
    for (const d of [repo, events, keyDir]) if (d) rmSync(d, { recursive: true, force: true });
  });
  beforeEach(() => {
    gh.comments.clear();
    gh.files.clear();
  });

  /** The control's verdict and exit code, and nothing in the comment claims a medal. */
  function asControl(r: ActionRun & { comment: string }) {
    expect(r.code, r.stdout).toBe(control.code);
    expect(r.outputs.verdict).toBe(control.outputs.verdict);
    expect(r.outputs["medal-rate"]).toBe(control.outputs["medal-rate"]);
  }

  it("the honest control names nothing ignored", () => {
    expect(control.comment).not.toMatch(/run records? found in the checkout/);
  });

  it(
    "forged gold records in the checkout's results folder are ignored and named first",
    { timeout: T },
    async () => {
      expect(Object.keys(forged).filter((f) => f.endsWith("run.json"))).toHaveLength(6);
      const r = await pr(forged, { "results-dir": ".medalist/results" });
      asControl(r);
      expect(r.stdout).toContain("[head] 6 finished, 0 reused");
      const first = r.comment.split("\n")[0];
      expect(first).toBe(
        "> ⚠️ **6 run records found in the checkout were ignored** (.medalist/results/head/runs/toy-churn.s0/run.json, …): on a pull request Medalist reuses only runs this runner wrote and sealed, never files in the checkout.",
      );
    },
  );

  it(
    "the default results folder lies outside the checkout: the forged files are never read",
    { timeout: T },
    async () => {
      const temp = mkdtempSync(join(tmpdir(), "medalist-runner-temp-"));
      try {
        const r = await pr(forged, {}, { env: { RUNNER_TEMP: temp } });
        asControl(r);
        expect(r.outputs["results-path"]).toBe(join(temp, "medalist", "results", "head", "results.json"));
        expect(existsSync(r.outputs["results-path"])).toBe(true);
        expect(r.comment).not.toMatch(/found in the checkout/);
      } finally {
        rmSync(temp, { recursive: true, force: true });
      }
    },
  );

  it("bundle: the same through dist/index.js, as the runner starts it", { timeout: T }, async () => {
    assertDist();
    const r = await pr(forged, { "results-dir": ".medalist/results" }, { bundle: true });
    asControl(r);
    expect(r.comment.split("\n")[0]).toMatch(
      /^> ⚠️ \*\*6 run records found in the checkout were ignored\*\*/,
    );
  });

  describe("the staged workflow (plan, run --stage, decide, report)", () => {
    let store: FolderArtifacts;
    beforeEach(() => {
      store = new FolderArtifacts(mkdtempSync(join(tmpdir(), "medalist-runs-artifacts-")));
    });

    /** One step of the staged workflow on the pull request whose head is `head`. */
    const step = (
      head: string,
      name: string,
      inputs: Record<string, string>,
      more: Record<string, string> = {},
    ) =>
      runInProcess({
        workspace: repo,
        inputs: {
          config: "medalist.yml",
          step: name,
          "github-token": token,
          "runs-dir": "none",
          "allow-unsandboxed-agent": "true",
          ...inputs,
        },
        env: env(head, { ACTIONS_RUNTIME_TOKEN: "fake", ...more }),
        eventPath: event(baseSha, head),
        deps: { artifacts: () => store.api() },
      });

    /** plan → stage 1 → decide → stage 2 → report; `between` may change the artifacts before the report. */
    async function staged(head: string, runDir: string, between?: () => void) {
      const plan = await step(head, "plan", { shards: "1", stages: "2", "results-dir": ".medalist/plan" });
      expect(plan.code, plan.stdout).toBe(0);
      for (const k of [1, 2]) {
        const run = await step(head, "run", {
          shard: "1/1",
          stage: String(k),
          plan: plan.outputs.plan,
          "results-dir": runDir,
        });
        expect(run.code, run.stdout).toBe(0);
        const d = await step(head, "decide", {
          stage: String(k),
          stages: "2",
          "results-dir": `.medalist/decide-${k}`,
        });
        expect(d.code, d.stdout).toBe(0);
      }
      between?.();
      gh.comments.clear();
      const r = await step(head, "report", {
        stages: "2",
        comment: "always",
        "results-dir": mkdtempSync(join(tmpdir(), "medalist-runs-report-")),
      });
      return { ...r, comment: commentOf(gh) };
    }

    it(
      "forged records in the run step's checkout results folder: every run runs, the control's verdict",
      { timeout: T },
      async () => {
        const honest = await staged(commit(baseSha, {}), ".medalist/results");
        expect(honest.code, honest.stdout).toBe(1);
        expect(honest.outputs.verdict).toBe("regressed");
        const head = commit(baseSha, forged);
        const r = await staged(head, ".medalist/results");
        expect(r.code, r.stdout).toBe(honest.code);
        expect(r.outputs.verdict).toBe(honest.outputs.verdict);
        expect(r.stdout).not.toMatch(/[1-9]\d* reused/);
      },
    );

    it(
      "forged shard results in the artifacts are refused: their runs count as not run, never as the agent's",
      { timeout: T },
      async () => {
        const head = commit(baseSha, {});
        const r = await staged(head, mkdtempSync(join(tmpdir(), "medalist-runs-shard-")), () => {
          // Gold in every stage's results.json; the honest seal stays beside it.
          for (const k of [1, 2]) {
            const file = join(store.folder(`medalist-records-stage-${k}-shard-`), "head", "results.json");
            const doc = JSON.parse(readFileSync(file, "utf8"));
            for (const run of doc.runs) run.grade = { ...run.grade, gold_medal: true, any_medal: true };
            writeFileSync(file, JSON.stringify(doc));
          }
        });
        expect(r.outputs.verdict).not.toBe("no-regression");
        expect(r.code).toBe(1);
        expect(r.outputs["medal-rate"] ?? "").not.toBe("1.0000");
        expect(r.comment.split("\n")[0]).toContain(
          "**The results of stage 1 shard 1, stage 2 shard 1 were refused**: they carry no valid seal of this workflow run's run key, so their 6 runs count as not run.",
        );
        expect(r.stdout).toMatch(/the results of stage 1 shard 1 were refused: its seal does not match/);
      },
    );

    it(
      "shards sealed with another runner's key are refused; one run-key for all steps is accepted",
      { timeout: T },
      async () => {
        const head = commit(baseSha, {});
        const otherKey = mkdtempSync(join(tmpdir(), "medalist-runs-otherkey-"));
        // The run steps on another runner (its own key file); decide and report here.
        const plan = await step(head, "plan", { shards: "1", stages: "2", "results-dir": ".medalist/plan" });
        for (const k of [1, 2]) {
          const run = await step(
            head,
            "run",
            {
              shard: "1/1",
              stage: String(k),
              plan: plan.outputs.plan,
              "results-dir": join(otherKey, `r${k}`),
            },
            { MEDALIST_RUN_KEY_FILE: join(otherKey, "run-key") },
          );
          expect(run.code, run.stdout).toBe(0);
        }
        const refused = await step(head, "decide", {
          stage: "1",
          stages: "2",
          "results-dir": ".medalist/decide-x",
        });
        expect(refused.stdout).toMatch(
          /the results of stage 1 shard 1 were refused: its seal does not match/,
        );

        // The same with one secret for every step: accepted.
        store = new FolderArtifacts(mkdtempSync(join(tmpdir(), "medalist-runs-artifacts-")));
        const secret = "s3cret-".repeat(6);
        for (const k of [1, 2]) {
          const run = await step(
            head,
            "run",
            {
              shard: "1/1",
              stage: String(k),
              plan: plan.outputs.plan,
              "results-dir": join(otherKey, `q${k}`),
              "run-key": secret,
            },
            { MEDALIST_RUN_KEY_FILE: join(otherKey, "run-key") },
          );
          expect(run.code, run.stdout).toBe(0);
          const shown = run.stdout.split("\n").filter((l) => !l.startsWith("::add-mask::"));
          expect(shown.join("\n")).not.toContain(secret);
        }
        const ok = await step(head, "decide", {
          stage: "1",
          stages: "2",
          "results-dir": ".medalist/decide-y",
          "run-key": secret,
        });
        expect(ok.code, ok.stdout).toBe(0);
        expect(ok.stdout).not.toMatch(/refused/);
        rmSync(otherKey, { recursive: true, force: true });
      },
    );
  });
});
