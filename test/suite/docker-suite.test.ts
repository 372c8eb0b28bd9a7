import { describe, expect, it } from "vitest";
import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import Docker from "dockerode";
import { runSuite } from "../../src/suite/run.js";
import { validateConfig } from "../../src/config/load.js";

const root = resolve(import.meta.dirname, "..", "..");
const NODE_IMAGE = "medalist-test-node:1";

async function daemon(): Promise<Docker | null> {
  const docker = new Docker();
  try {
    await docker.ping();
    await docker.getImage(NODE_IMAGE).inspect();
    return docker;
  } catch (e) {
    if (process.env.MEDALIST_REQUIRE_DOCKER === "1")
      throw new Error(`Docker or ${NODE_IMAGE} unavailable: ${(e as Error).message}`);
    console.warn(`[test/suite] skipping the Docker suite test: ${(e as Error).message}`);
    return null;
  }
}

const docker = await daemon();

/** A temporary build context holding only what the agent image copies. */
function agentContext(): string {
  const ctx = mkdtempSync(join(tmpdir(), "medalist-agent-ctx-"));
  copyFileSync(join(root, "test/fixtures/agent-image/Dockerfile"), join(ctx, "Dockerfile"));
  cpSync(join(root, "examples/agents"), join(ctx, "examples/agents"), { recursive: true });
  return ctx;
}

describe.skipIf(!docker)("runSuite with the Docker executor (real daemon)", () => {
  it("builds the agent image, runs each seed in a container, grades outside it, leaves no container", async () => {
    const outDir = mkdtempSync(join(tmpdir(), "medalist-docker-out-"));
    const config = validateConfig(
      {
        name: "docker-e2e",
        competitions: { include: ["toy-churn", "toy-species"] },
        seeds: 1,
        executor: "docker",
        agent: {
          // A minimal build context: the Dockerfile and the example agents, nothing else.
          build: { context: agentContext() },
          env: { AGENT_MODE: "test" },
        },
        limits: { time: 60, memory: "512m", cpus: 1 },
        dataDir: mkdtempSync(join(tmpdir(), "medalist-docker-data-")),
        docker: { network: "none" },
        run: { retries: 0 },
      },
      "test",
    );
    const lines: string[] = [];
    const results = await runSuite({
      config,
      baseDir: root,
      outDir,
      label: "head",
      log: (l) => lines.push(l),
    });
    expect(results.environment.executor).toBe("docker");
    expect(results.agent.imageDigest).toMatch(/^sha256:/);
    for (const run of results.runs) {
      expect(run.outcome, lines.join("\n")).toBe("completed");
      expect(run.grade?.valid_submission).toBe(true);
      expect(existsSync(join(outDir, run.runDir, "logs", "agent.log"))).toBe(true);
      expect(readFileSync(join(outDir, run.runDir, "run.log"), "utf8")).toContain("strong agent on");
    }
    const left = await docker!.listContainers({ all: true, filters: { label: ["medalist.suite"] } });
    expect(left.filter((c) => (c.Labels["medalist.suite"] ?? "").startsWith("head-"))).toEqual([]);
  }, 240_000);

  it("records the runs of an agent whose own Dockerfile does not build as not run, never the agent's", async () => {
    const ctx = mkdtempSync(join(tmpdir(), "medalist-broken-agent-"));
    writeFileSync(
      join(ctx, "Dockerfile"),
      `FROM ${NODE_IMAGE}\nRUN echo "step output"; echo "the real cause" >&2; exit 3\n`,
    );
    const outDir = mkdtempSync(join(tmpdir(), "medalist-docker-out-"));
    const config = validateConfig(
      {
        name: "docker-broken",
        competitions: { include: ["toy-churn"] },
        seeds: 2,
        executor: "docker",
        agent: { build: { context: ctx } },
        limits: { time: 60 },
        dataDir: mkdtempSync(join(tmpdir(), "medalist-docker-data-")),
        docker: { network: "none", buildNetwork: "none" },
      },
      "test",
    );
    const results = await runSuite({ config, baseDir: root, outDir, label: "head" });
    expect(results.runs).toHaveLength(2);
    for (const run of results.runs) {
      expect(run.outcome).toBe("infra_error");
      expect(run.attempts).toBe(0);
      expect(run.error).toMatch(
        /^not run: setup failed: the agent image did not build: step 2\/\d \(RUN echo "step output"; echo "the real cause" >&2; exit 3\) exited with code 3: the real cause$/,
      );
      expect(run.grade).toBeNull();
      expect(run.details).toMatchObject({ notRun: "true", setup: "failed", buildLog: "head-build.log" });
    }
    expect(readFileSync(join(outDir, "head-build.log"), "utf8")).toContain("returned a non-zero code: 3");
  }, 240_000);
});
