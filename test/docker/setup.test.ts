import path from "node:path";
import { describe, expect, it } from "vitest";
import { configSchema, type ConfigInput } from "../../src/config/schema.js";
import { dockerResources, setupDocker } from "../../src/execute/docker/setup.js";
import { requireDocker, TEST_IMAGE } from "./helpers.js";

const config = (over: Partial<ConfigInput> = {}) =>
  configSchema().parse({
    competitions: { include: ["x"] },
    executor: "docker",
    agent: { image: TEST_IMAGE },
    ...over,
  });

describe("dockerResources", () => {
  it("fits runs by GPUs, else by CPUs, else by concurrency", () => {
    expect(dockerResources(config({ limits: { gpus: 1 } }), ["0", "1", "2", "3"], 16).resources).toEqual({
      gpuIds: ["0", "1", "2", "3"],
      maxParallel: 4,
      cpus: undefined,
    });
    expect(dockerResources(config({ limits: { gpus: 2, cpus: 4 } }), ["0", "1", "2"], 16)).toEqual({
      resources: { gpuIds: ["0", "1", "2"], maxParallel: 1, cpus: 16 },
      perRun: { gpus: 2, cpus: 4 },
    });
    expect(dockerResources(config({ limits: { cpus: 3 } }), [], 8).resources.maxParallel).toBe(2);
    expect(dockerResources(config({ concurrency: 5 }), [], 8).resources.maxParallel).toBe(5);
  });

  it("says clearly when the runner is too small", () => {
    expect(() => dockerResources(config({ limits: { gpus: 1 } }), [], 8)).toThrow(/needs 1 GPU\(s\).*has 0/);
    expect(() => dockerResources(config({ limits: { cpus: 32 } }), [], 8)).toThrow(
      /needs 32 CPU\(s\).*has 8/,
    );
  });
});

describe("connecting", () => {
  it("fails with one clear message when no daemon answers", async () => {
    await expect(
      setupDocker(config(), {
        baseDir: ".",
        connect: { docker: { socketPath: "/nonexistent/docker.sock" }, attempts: 2, delayMs: 10 },
      }),
    ).rejects.toThrow(/no Docker daemon answers at \/nonexistent\/docker.sock/);
  });
});

const docker = await requireDocker();

describe.skipIf(!docker)("setupDocker", () => {
  it("connects, sweeps, finds the image and starts format checks", async () => {
    const lines: string[] = [];
    const setup = await setupDocker(config({ docker: { gpuIds: [] } }), {
      baseDir: path.resolve("."),
      log: (l) => lines.push(l),
    });
    try {
      expect(setup.image.digest).toMatch(/^sha256:/);
      expect(setup.gpus).toMatchObject({ ids: [], source: "config" });
      expect(setup.validation?.url).toMatch(/^http:\/\/\d+\.\d+\.\d+\.\d+:\d+$/);
      expect(lines.some((l) => l.startsWith("agent image"))).toBe(true);
    } finally {
      await setup.close();
    }
  });

  it("fails with one clear message when the image is missing", async () => {
    await expect(
      setupDocker(config({ agent: { image: "medalist-no-such-image:0" } }), { baseDir: "." }),
    ).rejects.toThrow(/image medalist-no-such-image:0 is not on this runner/);
  });
});
