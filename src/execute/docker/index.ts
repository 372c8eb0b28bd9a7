import { join } from "node:path";
import type Docker from "dockerode";
import type { Backend } from "../backend.js";
import type { DockerSuiteConfig } from "./config.js";
import { cleanupSuite, sweepStale } from "./cleanup.js";
import { connectDocker, daemonAddress } from "./client.js";
import { DaemonWatch } from "./daemon-watch.js";
import { runPolicy } from "../../config/run-policy.js";
import { DOCKER_CONFIG, DockerSchema } from "../../config/blocks/docker.js";
import { existsSync } from "node:fs";
import { SetupFailure } from "../setup-failure.js";
import { AgentBuildError } from "../container/image.js";
import { dockerSelfTest } from "./self-test.js";
import { setupDocker } from "./setup.js";
import { dockerMachineCheck } from "./check.js";
import { weakRuntimeOf } from "./pr-gate.js";
import { imageEngine } from "./engine.js";
import { unmountLeftovers } from "./folder-fs.js";

/**
 * Each run in its own container. open() does the per-suite work: daemon, GPUs, the agent image,
 * the format-check endpoint. close() (also on cancel) removes every container of the suite and
 * stops the endpoint. sweep() removes containers of crashed suites before open.
 */
export const dockerBackend: Backend<"docker", typeof DockerSchema> = {
  ...DOCKER_CONFIG,
  unsandboxed: () => null,
  // Settings that change what runs; the newer ones only when set, so earlier identities stay valid.
  identityFacts: (c) => {
    const { network, entrypoint, runtime } = c.block;
    return {
      network,
      ...(entrypoint !== undefined ? { entrypoint } : {}),
      ...(runtime !== undefined && runtime !== "auto" ? { runtime } : {}),
    };
  },
  machineCheck: dockerMachineCheck,
  weakSandbox: (c) => weakRuntimeOf(c.block),
  imageEngine: async () => imageEngine(await connectDocker({ attempts: 2 })),
  async open(ctx) {
    // The schema gives every config this executor's block (defaulted), so the cast only names it.
    const config = ctx.config as DockerSuiteConfig;
    const { agent, log } = ctx;
    let setup: Awaited<ReturnType<typeof setupDocker>>;
    // Kept with the runs: the results folder's build.log (one per side: base-, head-).
    const buildLogFile = ctx.outDir
      ? join(ctx.outDir, `${ctx.label.replace(/[^A-Za-z0-9_.-]/g, "_")}-build.log`)
      : undefined;
    try {
      setup = await setupDocker({ ...config, agent }, { baseDir: ctx.baseDir, log, buildLogFile });
    } catch (e) {
      // The image did not build or cannot run: the suite's setup failed, no run is the agent's.
      if (e instanceof AgentBuildError)
        throw new SetupFailure(
          `${e.what}: ${e.message}`,
          buildLogFile && existsSync(buildLogFile) ? buildLogFile : null,
        );
      throw e;
    }
    const { docker, executor, validation } = setup;
    const watch = new DaemonWatch(
      docker,
      ctx.suiteId,
      runPolicy(config).reconnectSecs,
      daemonAddress(docker.modem as Docker.DockerOptions),
      log,
    );
    await watch.open();
    executor.daemon = watch;
    const cleanup = () => cleanupSuite(docker, ctx.suiteId).catch(() => []);
    const onAbort = () => void cleanup();
    ctx.signal?.addEventListener("abort", onAbort, { once: true });
    let closed: Promise<void> | null = null;
    return {
      name: "docker",
      resources: setup.resources,
      perRun: setup.perRun,
      facts: {
        image: setup.image.ref,
        imageDigest: setup.image.digest,
        imageId: setup.image.id,
        gpuModel: setup.gpus.model,
        runtime: setup.runtime.name,
      },
      validationUrl: validation
        ? (competitionId, sample, runId, grader) => validation.register(competitionId, sample, runId, grader)
        : undefined,
      driver: () => executor.driver(),
      close: () =>
        (closed ??= (async () => {
          ctx.signal?.removeEventListener("abort", onAbort);
          watch.close();
          await cleanup();
          await setup.close();
        })()),
    };
  },
  async sweep(ctx) {
    // A process killed mid-suite leaves its runs' folder filesystems mounted: the resume resets those folders.
    if (ctx.outDir !== undefined) {
      const left = await unmountLeftovers(ctx.outDir);
      if (left.length > 0)
        ctx.log(
          `unmounted ${left.length} run folder filesystem(s) left by an earlier suite: ${left.join(", ")}`,
        );
    }
    // No daemon: nothing to sweep here, and open() says what is wrong in one line.
    const daemon = await connectDocker({ attempts: 1 }).catch(() => null);
    if (!daemon) return [];
    const swept = await sweepStale(daemon).catch(() => []);
    if (swept.length > 0)
      ctx.log(`removed ${swept.length} container(s) left by an earlier suite: ${swept.join(", ")}`);
    return swept;
  },
  selfTest: dockerSelfTest,
};
