// Run identity with a real Docker daemon: the image's content decides reuse.
import { describe, expect, it, onTestFinished } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Docker from "dockerode";
import { runSuite } from "../../src/suite/run.js";
import { validateConfig } from "../../src/config/load.js";

const IMAGE = "medalist-test-busybox:1";

async function daemon(): Promise<Docker | null> {
  const docker = new Docker();
  try {
    await docker.ping();
    await docker.getImage(IMAGE).inspect();
    return docker;
  } catch (e) {
    if (process.env.MEDALIST_REQUIRE_DOCKER === "1")
      throw new Error(`Docker or ${IMAGE} unavailable: ${(e as Error).message}`);
    console.warn(`[test/suite] skipping the Docker identity test: ${(e as Error).message}`);
    return null;
  }
}

const docker = await daemon();

describe.skipIf(!docker)("run identity with the Docker executor (real daemon)", () => {
  it("rebuilding the image from another Dockerfile re-executes the runs", { timeout: 240_000 }, async () => {
    // A minimal build context: two Dockerfiles and nothing else.
    const context = mkdtempSync(join(tmpdir(), "medalist-ctx-"));
    const body = `FROM ${IMAGE}\nCMD ["sh", "-c", "cp /home/data/sample_submission.csv /home/submission/submission.csv"]\n`;
    writeFileSync(join(context, "Dockerfile.a"), body);
    writeFileSync(join(context, "Dockerfile.b"), `${body}LABEL variant=b\n`);
    const outDir = mkdtempSync(join(tmpdir(), "medalist-docker-out-"));
    const dataDir = mkdtempSync(join(tmpdir(), "medalist-docker-data-"));
    const go = async (dockerfile: string) => {
      const lines: string[] = [];
      const config = validateConfig(
        {
          name: `identity-${process.pid}`,
          competitions: { include: ["toy-churn"] },
          seeds: 1,
          executor: "docker",
          agent: { build: { context, dockerfile } },
          limits: { time: 60, memory: "256m" },
          dataDir,
          docker: { network: "none" },
          run: { retries: 0 },
        },
        "test",
      );
      const results = await runSuite({
        config,
        baseDir: context,
        outDir,
        label: "head",
        log: (l) => lines.push(l),
      });
      return { results, lines, started: lines.filter((l) => / started/.test(l)) };
    };

    // The tag the build leaves (medalist-agent:<suite name>) is this test's own: removed at the end.
    onTestFinished(async () => {
      await docker!
        .getImage(`medalist-agent:identity-${process.pid}`)
        .remove({ force: true })
        .catch(() => {});
    });
    const a = await go("Dockerfile.a");
    expect(a.results.runs[0].outcome, a.lines.join("\n")).toBe("completed");
    expect(a.started).toHaveLength(1);
    const again = await go("Dockerfile.a");
    expect(again.started).toHaveLength(0);
    expect(again.results.runs[0].reused).toBe(true);

    const b = await go("Dockerfile.b");
    expect(b.results.agent.imageDigest).not.toBe(a.results.agent.imageDigest);
    expect(b.started).toEqual([expect.stringContaining("(the agent's code changed)")]);
    expect(b.results.runs[0].reused).toBeUndefined();
    expect(b.results.runs[0].identity).not.toBe(a.results.runs[0].identity);
    // The scores in results.json now come from the image that results.json names.
    expect(b.results.runs[0].details.imageId).toBe(b.results.agent.imageDigest);
  });
});
