import type { ExecutorBackend, OpenExecutor } from "../lifecycle.js";
import { cleanupSuite } from "./cleanup.js";
import { AgentBuildError } from "./image.js";
import { setupDocker } from "./setup.js";

/**
 * Each run in its own container. open() does the per-suite work: daemon, sweep of crashed suites'
 * leftovers, GPUs, the agent image, the format-check endpoint. close() (also on cancel) removes
 * every container of the suite and stops the endpoint.
 */
export const dockerBackend: ExecutorBackend = {
  name: "docker",
  async open(ctx): Promise<OpenExecutor> {
    const { config, agent, log } = ctx;
    let setup: Awaited<ReturnType<typeof setupDocker>>;
    try {
      setup = await setupDocker({ ...config, agent }, { baseDir: ctx.baseDir, log });
    } catch (e) {
      if (e instanceof AgentBuildError) return imageDidNotBuild(ctx.config.concurrency, e.message);
      throw e;
    }
    const { docker, executor, validation } = setup;
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
      },
      validationUrl: validation
        ? (competitionId, sample, runId, grader) => validation.register(competitionId, sample, runId, grader)
        : undefined,
      execute: (spec, signal) => executor.execute(spec, signal),
      close: () =>
        (closed ??= (async () => {
          ctx.signal?.removeEventListener("abort", onAbort);
          await cleanup();
          await setup.close();
        })()),
    };
  },
};

/** The PR's own Dockerfile failed: every run is the agent's failure (no medal), not infrastructure. */
function imageDidNotBuild(concurrency: number, cause: string): OpenExecutor {
  const error = `the agent image did not build: ${cause}`;
  return {
    name: "docker",
    resources: { gpuIds: [], maxParallel: concurrency },
    perRun: { gpus: 0 },
    facts: { image: null, imageDigest: null, gpuModel: null },
    execute: async () => ({ outcome: "failed", exitCode: null, durationMs: 0, error }),
    close: async () => {},
  };
}
