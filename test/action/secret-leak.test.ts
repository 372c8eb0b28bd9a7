// Issue 17, end to end through the action: an agent that writes its declared secret every way it
// can (stdout, stderr, across the run log's 64 KiB flush, logs/*.txt, code/*.py, metric names, a
// file name, base64, a binary file, the submission's values) leaves no trace of it in results.json,
// the report, the viewer, the uploaded artifacts, the job summary, the log or the PR comment.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ArtifactApi } from "../../src/action/artifacts.js";
import { FakeGitHub } from "../fixtures/github/server.js";
import { fakeCache } from "./fake-cache.js";
import { ROOT, runInProcess } from "./harness.js";

const SECRET = "sk-live-9f8e7d6c5b4a39281706";
const B64 = Buffer.from(SECRET).toString("base64");
const HEX = Buffer.from(SECRET).toString("hex");

const AGENT = `
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
const e = process.env;
const key = e.SECRET_KEY;
console.log("stdout " + key);
console.error("stderr " + key);
// The secret straddles the run log's 64 KiB flush.
process.stdout.write("x".repeat(65530) + key + "\\n");
console.log("b64 " + Buffer.from(key).toString("base64"));
mkdirSync(e.LOGS_DIR, { recursive: true });
mkdirSync(e.CODE_DIR, { recursive: true });
writeFileSync(join(e.LOGS_DIR, "notes.txt"), "the key is " + key + "\\n");
writeFileSync(join(e.LOGS_DIR, "hex.txt"), Buffer.from(key).toString("hex") + "\\n");
writeFileSync(join(e.LOGS_DIR, key + ".txt"), "named after the key\\n");
writeFileSync(join(e.LOGS_DIR, "metrics.jsonl"), JSON.stringify({ step: 1, [key]: 0.5, metric: key, value: 0.5 }) + "\\n");
writeFileSync(join(e.LOGS_DIR, "blob.bin"), Buffer.concat([Buffer.from([0, 255, 0]), Buffer.from(key)]));
writeFileSync(join(e.CODE_DIR, "solve.py"), 'KEY = "' + key + '"\\n');
mkdirSync(e.SUBMISSION_DIR, { recursive: true });
const [head, ...rows] = readFileSync(join(e.DATA_DIR, "sample_submission.csv"), "utf8").trim().split("\\n");
const cells = rows[0].split(",");
cells[cells.length - 1] = key;
writeFileSync(join(e.SUBMISSION_DIR, "submission.csv"), [head, cells.join(","), ...rows.slice(1)].join("\\n") + "\\n");
`;

/** Artifacts kept in memory: name → each uploaded file's path (relative) and bytes. */
class Recorded implements ArtifactApi {
  files: { artifact: string; path: string; data: Buffer }[] = [];
  upload = async (name: string, files: string[], root: string) => {
    for (const f of files)
      this.files.push({ artifact: name, path: relative(root, f), data: readFileSync(f) });
    return { id: this.files.length };
  };
  list = async () => [];
  download = async () => {};
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

const traces = (text: string) => [SECRET, B64.slice(4, 20), HEX.slice(8, 40)].filter((t) => text.includes(t));

describe("a declared secret written every way by the agent", () => {
  let ws: string;
  const gh = new FakeGitHub();
  const artifacts = new Recorded();
  let run: Awaited<ReturnType<typeof runInProcess>>;

  beforeAll(async () => {
    ws = mkdtempSync(join(tmpdir(), "medalist-leak-"));
    writeFileSync(join(ws, "leaky.mjs"), AGENT);
    cpSync(join(ROOT, "competitions", "toy-churn"), join(ws, "registry", "toy-churn"), { recursive: true });
    writeFileSync(
      join(ws, "medalist.yml"),
      [
        "name: leak",
        "competitions: { include: [toy-churn] }",
        "seeds: 1",
        "executor: local",
        `agent: { command: node leaky.mjs, secrets: [SECRET_KEY] }`,
        "limits: { time: 60s }",
        "dataDir: data",
        "registryDir: registry",
        "",
      ].join("\n"),
    );
    await gh.start();
    run = await runInProcess({
      workspace: ws,
      inputs: {
        config: "medalist.yml",
        "github-token": "ghs_leakTestToken",
        baseline: "none",
        comment: "always",
        "fail-on": "regression",
        "allow-fork-prs": "false",
        // No git checkout here: the pull request's own config judges it.
        "trust-pr-config": "true",
        "allow-unsandboxed-agent": "true",
        "data-dir": "",
        "results-dir": ".medalist/results",
        "runs-dir": "none",
      },
      env: { GITHUB_API_URL: gh.url, ACTIONS_RUNTIME_TOKEN: "fake", SECRET_KEY: SECRET },
      deps: { cache: fakeCache(), artifacts: () => artifacts },
    });
  }, 240_000);
  afterAll(async () => {
    await gh.stop();
    if (!process.env.KEEP) rmSync(ws, { recursive: true, force: true });
  });

  it("ran, graded the run (invalid submission) and uploaded its folder", () => {
    const results = JSON.parse(readFileSync(join(ws, ".medalist/results/head/results.json"), "utf8"));
    expect(results.runs).toHaveLength(1);
    expect(results.runs[0].outcome).toBe("completed");
    expect(results.runs[0].grade.valid_submission).toBe(false);
    expect(artifacts.files.some((f) => f.path === "toy-churn.s0/logs/notes.txt")).toBe(true);
  });

  it("leaves no trace in results, report, comparison or viewer", () => {
    const out = join(ws, ".medalist/results");
    const docs = walk(out).filter(
      (f) => /(results|comparison|run)\.json$|report\.md$/.test(f) || f.includes(`${join(out, "viewer")}/`),
    );
    expect(docs.some((f) => f.endsWith("report.md"))).toBe(true);
    expect(docs.some((f) => f.includes("/viewer/"))).toBe(true);
    for (const f of docs) {
      expect(traces(readFileSync(f, "utf8")), f).toEqual([]);
      expect(traces(f), f).toEqual([]);
    }
  });

  it("leaves no trace in any uploaded file or file name; the binary file stays on the runner", () => {
    expect(artifacts.files.length).toBeGreaterThan(3);
    for (const f of artifacts.files) {
      expect(traces(f.data.toString("latin1")), `${f.artifact}/${f.path}`).toEqual([]);
      expect(traces(f.path), f.path).toEqual([]);
    }
    expect(artifacts.files.some((f) => f.path.endsWith("blob.bin"))).toBe(false);
  });

  it("leaves no trace in the comment, the job summary or the job's log", () => {
    const bodies = gh.thread("acme", "agent", 7).map((c) => c.body);
    expect(bodies.length).toBe(1);
    for (const text of [...bodies, run.summary, run.stdout]) expect(traces(text)).toEqual([]);
  });
});
