// A suite whose setup fails (the agent image does not build, its base image is missing) is the
// suite's failure, said once: one line with the real cause, every run not run (never the agent's
// failure, never in the medal rate), a non-zero exit without a baseline, the build log kept and
// linked from the viewer. Real daemon; upstream's agents/dummy layout (the project's own fixture).
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { summarize } from "../../src/compare/compare.js";
import { SuiteResultsSchema } from "../../src/results/schema.js";
import { runCli } from "../helpers/cli.js";
import { requireDocker, requireMlebenchEnv } from "./helpers.js";

const docker = await requireDocker();
const standin = await requireMlebenchEnv(docker);
const ROOT = resolve(import.meta.dirname, "..", "..");
const work = mkdtempSync(join(tmpdir(), "medalist-setup-failure-"));

/** The dummy agent's folder with its FROM line replaced, and a config for it (1 competition, 2 seeds). */
function project(name: string, from: string): { dir: string; config: string } {
  const dir = mkdtempSync(join(work, `${name}-`));
  cpSync(join(ROOT, "test/fixtures/mlebench-upstream/agents"), join(dir, "agents"), { recursive: true });
  const file = join(dir, "agents", "dummy", "Dockerfile");
  writeFileSync(file, readFileSync(file, "utf8").replace(/^FROM mlebench-env$/m, `FROM ${from}`));
  const config = join(dir, "medalist.yml");
  writeFileSync(
    config,
    [
      `name: ${name}`,
      "competitions: { include: [toy-churn] }",
      "seeds: 2",
      "executor: docker",
      "agent:",
      "  mlebench: { agentsDir: agents, id: dummy }",
      "limits: { time: 120 }",
      `dataDir: ${join(dir, "data")}`,
      "docker: { network: none, buildNetwork: none }",
      "",
    ].join("\n"),
  );
  return { dir, config };
}

describe.skipIf(!standin)("a suite whose setup fails", () => {
  afterAll(async () => {
    for (const tag of ["medalist-agent:setup-pip", "medalist-agent:setup-base"])
      await docker!
        .getImage(tag)
        .remove({ force: true })
        .catch(() => {});
    rmSync(work, { recursive: true, force: true });
  });

  it("an image whose RUN step fails (no pip in the base): one cause line, exit 1, no run the agent's, the build log linked", async () => {
    const { dir, config } = project("setup-pip", standin!);
    const out = join(dir, "out");
    const r = await runCli("run", "--config", config, "--out", out);
    expect(r.code, r.all).toBe(1);
    const lines = r.stderr.split("\n").filter((l) => l.trim() !== "");
    const summary = r.stdout.split("\n").filter((l) => l.trim() !== "");
    // The one line that says why (in the terminal summary): the failing step, its exit code and its own error line.
    const cause = [...lines, ...summary].filter((l) => l.includes("setup failed"));
    expect(cause).toHaveLength(1);
    expect(cause[0]).toMatch(
      /^Gate: failed — Incomplete: 2 head runs never ran because the suite's setup failed: the agent image did not build: step \d+\/\d+ \(RUN conda run -n \$\{CONDA_ENV_NAME\} pip install -r \$\{AGENT_DIR\}\/requirements\.txt && conda clean -afy\) exited with code 127: \S*conda: line \d+: exec: pip: not found\. They count as not comparable and the gate does not pass\.$/,
    );
    // The verdict is the summary's last line.
    expect(summary.at(-1)).toMatch(/^Verdict: .*; gate failed; exit code 1\.$/);
    expect(lines.some((l) => l.startsWith("build log: ") && l.endsWith(join("head", "head-build.log")))).toBe(
      true,
    );
    const report = readFileSync(join(out, "report.md"), "utf8");
    expect(report).not.toContain("Nothing was compared, so the gate passes");
    expect(report).toContain("The gate fails: runs are missing (below).");
    // Every run not run for that cause: no grade, no attempt, outside the medal rate.
    const results = SuiteResultsSchema.parse(
      JSON.parse(readFileSync(join(out, "head", "results.json"), "utf8")),
    );
    expect(results.runs).toHaveLength(2);
    for (const run of results.runs) {
      expect(run).toMatchObject({ outcome: "infra_error", attempts: 0, grade: null });
      expect(run.details).toMatchObject({ notRun: "true", setup: "failed", buildLog: "head-build.log" });
      expect(run.error).toMatch(
        /^not run: setup failed: the agent image did not build: step .*exec: pip: not found$/,
      );
    }
    expect(summarize(results).medalRate).toBeNull();
    expect(existsSync(join(out, "head", "runs"))).toBe(false);
    // The build log is kept, and each run page of the viewer links its page.
    expect(readFileSync(join(out, "head", "head-build.log"), "utf8")).toContain(
      "returned a non-zero code: 127",
    );
    const pages = readdirSync(join(out, "viewer", "runs"));
    expect(pages).toHaveLength(2);
    for (const p of pages) {
      const html = readFileSync(join(out, "viewer", "runs", p), "utf8");
      expect(html).toContain(
        `<p id="build-log">The image's build output: <a href="../build-head.html">head-build.log</a></p>`,
      );
      expect(html).toContain("Not run: the suite&#39;s setup failed before any run started");
      expect(html).not.toContain("exited with code unknown");
    }
    expect(readFileSync(join(out, "viewer", "build-head.html"), "utf8")).toContain("exec: pip: not found");
  }, 300_000);

  it("a missing base image: its name and the command that builds it, exit 1", async () => {
    const { dir, config } = project("setup-base", "mlebench-env:medalist-test-absent");
    const out = join(dir, "out");
    const r = await runCli("run", "--config", config, "--out", out);
    expect(r.code, r.all).toBe(1);
    const cause = (r.stderr + "\n" + r.stdout).split("\n").filter((l) => l.includes("setup failed"));
    expect(cause).toHaveLength(1);
    expect(cause[0]).toMatch(
      /^Gate: failed — Incomplete: 2 head runs never ran because the suite's setup failed: the agent image did not build: the base image mlebench-env:medalist-test-absent \(FROM, step 1\/\d+\) is not on this runner and could not be pulled \(.+\); build it with: medalist mlebench-env build \(docs\/mlebench\.md\)\. They count as not comparable and the gate does not pass\.$/,
    );
  }, 300_000);

  it("a shard whose setup fails exits 1 with the cause, its results written", async () => {
    const { dir, config } = project("setup-pip", standin!);
    const out = join(dir, "out");
    const r = await runCli("run", "--config", config, "--out", out, "--shard", "1/1");
    expect(r.code, r.all).toBe(1);
    const lines = r.stderr.split("\n").filter((l) => l.trim() !== "");
    expect(lines.filter((l) => l.includes("setup failed"))).toEqual([lines.at(-1)]);
    expect(lines.at(-1)).toMatch(
      /^medalist: Incomplete: 2 head runs never ran because the suite's setup failed: .*exec: pip: not found\. .* Exit code 1\.$/,
    );
    const results = SuiteResultsSchema.parse(
      JSON.parse(readFileSync(join(out, "head", "results.json"), "utf8")),
    );
    expect(results.runs.map((x) => x.details.setup)).toEqual(["failed", "failed"]);
  }, 300_000);

  it("mlebench-env build --from a checkout whose environment/Dockerfile cannot build offline: one sentence, exit 1", async () => {
    const checkout = mkdtempSync(join(work, "mle-bench-"));
    mkdirSync(join(checkout, "environment"));
    writeFileSync(
      join(checkout, "environment", "Dockerfile"),
      "FROM medalist-test-absent-base:0\nRUN true\n",
    );
    const r = await runCli("mlebench-env", "build", "--from", checkout, "--tag", "medalist-test-unused:0");
    expect(r.code, r.all).toBe(1);
    expect(r.stderr.split("\n").at(-1)).toMatch(
      /^medalist mlebench-env: upstream's environment\/Dockerfile did not build: the base image medalist-test-absent-base:0 \(FROM, step 1\/\d+\) is not on this runner and could not be pulled \(.+\); docker pull it where a registry is reachable, or docker load it on the runner; it needs the network \(Docker Hub, apt, Miniconda, PyPI\)\. Without one, run medalist mlebench-env build without --from$/,
    );
  }, 120_000);

  it("mlebench-env build with a base image that is not here: one sentence, exit 2", async () => {
    const r = await runCli(
      "mlebench-env",
      "build",
      "--base",
      "medalist-test-no-such-image:0",
      "--tag",
      "medalist-test-unused:0",
    );
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      "medalist mlebench-env: --base medalist-test-no-such-image:0: no such image on this Docker daemon; docker pull or docker load it first (any image with bash and python3)",
    );
  }, 60_000);
});
