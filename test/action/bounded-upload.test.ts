// The run/ sub-action bounds each run's files before its shard artifact is zipped, as the run store
// does: a 2 GiB sparse file (a zip reads every byte of its holes) is left out with one sentence, and
// the run's result still reaches the report job.
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ArtifactApi } from "../../src/action/artifacts.js";
import { boundRuns } from "../../src/action/bounded-upload.js";
import { ROOT, runInProcess } from "./harness.js";

const GiB = 1024 ** 3;

describe("bounded shard uploads", () => {
  const dirs: string[] = [];
  const tmp = (p: string) => {
    const d = mkdtempSync(join(tmpdir(), p));
    dirs.push(d);
    return d;
  };
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("boundRuns keeps the records and the smallest files, and names what it left out", () => {
    const root = tmp("medalist-bound-");
    const run = join(root, "head", "runs", "c.s0");
    mkdirSync(join(run, "logs"), { recursive: true });
    writeFileSync(join(root, "head", "results.json"), "{}");
    for (const f of ["run.json", "run.seal", "logs/a.txt"]) writeFileSync(join(run, f), "x".repeat(100));
    writeFileSync(join(run, "logs/b.txt"), "y".repeat(500));
    truncateSync(join(run, "logs/a.txt"), 300); // 300 bytes apparent, partly a hole
    const files = [
      "head/results.json",
      "head/runs/c.s0/run.json",
      "head/runs/c.s0/run.seal",
      "head/runs/c.s0/logs/a.txt",
      "head/runs/c.s0/logs/b.txt",
    ].map((f) => join(root, f));
    const { files: kept, notes } = boundRuns(root, files, { maxBytes: 550, maxFiles: 100 });
    expect(kept.map((f) => relative(root, f)).sort()).toEqual([
      "head/results.json",
      "head/runs/c.s0/logs/a.txt",
      "head/runs/c.s0/run.json",
      "head/runs/c.s0/run.seal",
    ]);
    expect(notes).toEqual([
      "head/runs/c.s0: 1 file (500 bytes, the largest \"logs/b.txt\") left out of the shard's upload: a run's files are bounded to 550 bytes and 100 files; its result is uploaded",
    ]);
  });

  it(
    "the run step leaves a 2 GiB sparse file out of the artifact quickly and keeps the run's result",
    { timeout: 120_000 },
    async () => {
      const ws = tmp("medalist-bound-ws-");
      cpSync(join(ROOT, "competitions", "toy-churn"), join(ws, "registry", "toy-churn"), { recursive: true });
      mkdirSync(join(ws, "agent"));
      // The agent submits the sample and leaves a 2 GiB sparse file in its logs.
      writeFileSync(
        join(ws, "agent", "agent.mjs"),
        `import { copyFileSync, writeFileSync, truncateSync } from "node:fs";
copyFileSync(process.env.DATA_DIR + "/sample_submission.csv", process.env.SUBMISSION_DIR + "/submission.csv");
const big = process.env.LOGS_DIR + "/big.bin";
writeFileSync(big, "");
truncateSync(big, ${2 * GiB});
`,
      );
      writeFileSync(
        join(ws, "medalist.yml"),
        [
          "name: bounded",
          "competitions: { include: [toy-churn] }",
          "seeds: 1",
          "executor: local",
          "agent: { command: node agent.mjs, cwd: agent }",
          `limits: { time: 60s, disk: { logs: ${3 * GiB} } }`,
          "dataDir: data",
          "registryDir: registry",
          "baseline: { source: none }",
          "",
        ].join("\n"),
      );
      const store = tmp("medalist-bound-store-");
      const uploaded: { name: string; files: string[] }[] = [];
      const api: ArtifactApi = {
        // As the zip does: every byte of every file is read.
        upload: async (name, files, root) => {
          for (const f of files) {
            const to = join(store, relative(root, f));
            mkdirSync(dirname(to), { recursive: true });
            writeFileSync(to, readFileSync(f));
          }
          uploaded.push({ name, files: files.map((f) => relative(root, f)) });
          return { id: 1 };
        },
      };
      const pushEvent = join(ws, "push.json");
      writeFileSync(
        pushEvent,
        JSON.stringify({ repository: { full_name: "acme/agent", default_branch: "main" } }),
      );
      const results = join(tmp("medalist-bound-results-"), "results");
      const t0 = Date.now();
      const r = await runInProcess({
        workspace: ws,
        inputs: {
          config: "medalist.yml",
          step: "run",
          shard: "1/1",
          "runs-dir": "none",
          "results-dir": results,
          "allow-unsandboxed-agent": "true",
        },
        env: {
          GITHUB_EVENT_NAME: "push",
          GITHUB_REF: "refs/heads/main",
          ACTIONS_RUNTIME_TOKEN: "fake",
          MEDALIST_RUN_KEY_FILE: join(tmp("medalist-bound-key-"), "run-key"),
          MEDALIST_MAX_UPLOAD_RUN_BYTES: String(64 * 1024 ** 2),
        },
        eventPath: pushEvent,
        deps: { artifacts: () => api },
      });
      const secs = (Date.now() - t0) / 1000;
      expect(r.code, r.stdout).toBe(0);
      // The sparse file really was there, 2 GiB apparent.
      expect(statSync(join(results, "head/runs/toy-churn.s0/logs/big.bin")).size).toBe(2 * GiB);
      expect(uploaded).toHaveLength(1);
      const names = uploaded[0].files;
      expect(names).not.toContain("head/runs/toy-churn.s0/logs/big.bin");
      for (const f of [
        "head/results.json",
        "head/results.seal",
        "head/runs/toy-churn.s0/run.json",
        "head/runs/toy-churn.s0/run.seal",
      ])
        expect(names).toContain(f);
      expect(r.stdout).toContain(
        "medalist: head/runs/toy-churn.s0: 1 file (2.0 GiB, the largest \"logs/big.bin\") left out of the shard's upload: a run's files are bounded to 64.0 MiB and 100000 files; its result is uploaded",
      );
      // The result travels: the uploaded results.json holds the graded run.
      const doc = JSON.parse(readFileSync(join(store, "head/results.json"), "utf8"));
      expect(doc.runs).toHaveLength(1);
      expect(doc.runs[0].outcome).toBe("completed");
      expect(doc.runs[0].grade).not.toBeNull();
      expect(secs).toBeLessThan(90);
    },
  );
});
