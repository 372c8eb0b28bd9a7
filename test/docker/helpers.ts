import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Docker from "dockerode";
import type { DockerSettings } from "../../src/execute/docker/settings.js";
import type { RunSpec } from "../../src/execute/types.js";

export const TEST_IMAGE = process.env.MEDALIST_TEST_IMAGE ?? "medalist-test-busybox:1";

/**
 * A daemon with the test image, or why not. Tests skip with this reason; with
 * MEDALIST_REQUIRE_DOCKER=1 (CI) a missing daemon fails instead.
 */
export async function dockerForTests(): Promise<{ docker: Docker | null; reason: string }> {
  const docker = new Docker();
  try {
    await docker.ping();
  } catch (e) {
    return {
      docker: null,
      reason: `no Docker daemon reachable (${(e as Error).message}); run scripts/ci-docker.sh as root`,
    };
  }
  try {
    await docker.getImage(TEST_IMAGE).inspect();
  } catch {
    return { docker: null, reason: `test image ${TEST_IMAGE} missing; run scripts/docker-test-image.sh` };
  }
  return { docker, reason: "" };
}

export async function requireDocker(): Promise<Docker | null> {
  const { docker, reason } = await dockerForTests();
  if (!docker) {
    if (process.env.MEDALIST_REQUIRE_DOCKER === "1")
      throw new Error(`MEDALIST_REQUIRE_DOCKER=1 but ${reason}`);
    console.warn(`[test/docker] skipping Docker tests: ${reason}`);
  }
  return docker;
}

/** A competition's public and private folders, MLE-bench layout, and a run folder. */
export async function makeRun(suiteId: string, runId: string, over: Partial<RunSpec> = {}): Promise<RunSpec> {
  const root = await mkdtemp(path.join(os.tmpdir(), "medalist-docker-"));
  const prepared = path.join(root, "data", "toy-comp", "prepared");
  await mkdir(path.join(prepared, "public"), { recursive: true });
  await mkdir(path.join(prepared, "private"), { recursive: true });
  await writeFile(path.join(prepared, "public", "sample_submission.csv"), "id,target\n1,0\n2,0\n3,0\n");
  await writeFile(path.join(prepared, "public", "description.md"), "# Toy\n");
  await writeFile(path.join(prepared, "private", "answers.csv"), "id,target\n1,SECRET_ANSWER_1\n2,0\n3,1\n");
  const runDir = path.join(root, "runs", runId);
  await mkdir(runDir, { recursive: true });
  await writeFile(path.join(runDir, "instructions.txt"), "Predict target for each id.\n");
  return {
    runId,
    suiteId,
    competitionId: "toy-comp",
    seed: 0,
    publicDir: path.join(prepared, "public"),
    runDir,
    timeLimitSecs: 60,
    env: {},
    gpus: [],
    ...over,
  };
}

export function shellSettings(script: string, over: Partial<DockerSettings> = {}): DockerSettings {
  return {
    image: TEST_IMAGE,
    command: ["/bin/sh", "-c", script],
    limits: {},
    network: "bridge",
    stopGraceSecs: 1,
    ...over,
  };
}

export async function containersOf(docker: Docker, suiteId: string) {
  return docker.listContainers({ all: true, filters: { label: [`medalist.suite=${suiteId}`] } });
}

/**
 * What Docker stored for run `runId`'s container of `suiteId`, read while it runs: polls up to 30 s
 * for the container to appear (undefined if it never did).
 */
export async function inspectWhileRunning(
  docker: Docker,
  suiteId: string,
  runId: string,
): Promise<Docker.ContainerInspectInfo | undefined> {
  for (let i = 0; i < 300; i++) {
    const [c] = (await containersOf(docker, suiteId)).filter((x) => x.Labels["medalist.run"] === runId);
    const info = c
      ? await docker
          .getContainer(c.Id)
          .inspect()
          .catch(() => null)
      : null;
    if (info) return info;
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

export const uniqueSuite = (tag: string) => `test-${tag}-${process.pid}-${Date.now().toString(36)}`;

export const MLEBENCH_ENV_IMAGE = process.env.MEDALIST_MLEBENCH_ENV_IMAGE ?? "medalist-test-mlebench-env:1";

/**
 * The offline stand-in for MLE-bench's base image (python3, curl, conda shim, user nonroot), or
 * null with a warning; with MEDALIST_REQUIRE_DOCKER=1 a missing image fails instead.
 */
export async function requireMlebenchEnv(docker: Docker | null): Promise<string | null> {
  if (!docker) return null;
  try {
    await docker.getImage(MLEBENCH_ENV_IMAGE).inspect();
    return MLEBENCH_ENV_IMAGE;
  } catch {
    const reason = `image ${MLEBENCH_ENV_IMAGE} missing; run scripts/mlebench-standin-image.sh`;
    if (process.env.MEDALIST_REQUIRE_DOCKER === "1")
      throw new Error(`MEDALIST_REQUIRE_DOCKER=1 but ${reason}`);
    console.warn(`[test/docker] skipping MLE-bench-env tests: ${reason}`);
    return null;
  }
}

/**
 * The runtimes the runtime-parametrized tests run under: runc, and runsc (gVisor) when the daemon
 * has it registered. With MEDALIST_REQUIRE_DOCKER=1 (CI) a daemon without runsc fails instead.
 */
export async function testRuntimes(docker: Docker | null): Promise<string[]> {
  if (!docker) return [];
  const runtimes = Object.keys(
    ((await docker.info()) as { Runtimes?: Record<string, unknown> }).Runtimes ?? {},
  );
  if (runtimes.includes("runsc")) return ["runc", "runsc"];
  const reason = `the Docker daemon has no runsc runtime (it has ${runtimes.join(", ")}); run scripts/ci-docker.sh as root`;
  if (process.env.MEDALIST_REQUIRE_DOCKER === "1") throw new Error(`MEDALIST_REQUIRE_DOCKER=1 but ${reason}`);
  console.warn(`[test/docker] runsc variants skipped: ${reason}`);
  return ["runc"];
}
