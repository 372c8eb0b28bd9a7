import path from "node:path";
import type Docker from "dockerode";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupSuite } from "../../src/execute/docker/cleanup.js";
import { DockerExecutor } from "../../src/execute/docker/executor.js";
import { detectGpus } from "../../src/execute/gpu.js";
import { schedule } from "../../src/execute/scheduler.js";
import { makeRun, requireDocker, shellSettings, uniqueSuite } from "./helpers.js";
import { attemptOn } from "../helpers/attempt.js";

const docker = await requireDocker();
const fakeBin = path.resolve("test/fixtures/docker/bin");

/**
 * A daemon without the nvidia runtime refuses to start a container with a GPU request. This
 * wrapper creates each container as asked, records the HostConfig the daemon stored, then
 * recreates it without the request so the run can go on.
 */
function recordingDocker(
  real: Docker,
  seen: { run: string; deviceIds: string[]; driver?: string; caps?: string[][] }[],
): Docker {
  return new Proxy(real, {
    get(target, prop) {
      if (prop === "createContainer") {
        return async (opts: Docker.ContainerCreateOptions) => {
          const asked = await target.createContainer(opts);
          const req = (await asked.inspect()).HostConfig.DeviceRequests?.[0];
          seen.push({
            run: opts.Labels!["medalist.run"],
            deviceIds: req?.DeviceIDs ?? [],
            driver: req?.Driver,
            caps: req?.Capabilities,
          });
          await asked.remove({ force: true });
          const { DeviceRequests: _, ...host } = opts.HostConfig!;
          return target.createContainer({ ...opts, HostConfig: host });
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

describe.skipIf(!docker)("GPU requests (fake nvidia-smi reporting 2 GPUs)", () => {
  const suite = uniqueSuite("gpu");
  afterAll(() => cleanupSuite(docker!, suite, { graceSecs: 0 }));

  it("four one-GPU runs never share a GPU, and each container carries its own device id", async () => {
    const oldPath = process.env.PATH;
    process.env.PATH = `${fakeBin}:${oldPath}`;
    const gpus = await detectGpus().finally(() => (process.env.PATH = oldPath));
    expect(gpus).toMatchObject({ ids: ["0", "1"], model: "NVIDIA H100 80GB HBM3", source: "nvidia-smi" });

    const seen: { run: string; deviceIds: string[]; driver?: string; caps?: string[][] }[] = [];
    const ex = new DockerExecutor(recordingDocker(docker!, seen), shellSettings("sleep 1"));
    const spans: { run: string; gpu: string; start: number; end: number }[] = [];
    const tasks = ["r1", "r2", "r3", "r4"].map((id) => ({ id, expectedSecs: 60, gpus: 1 }));
    await schedule(tasks, { gpuIds: gpus.ids, maxParallel: 4 }, async (t, ids) => {
      const start = Date.now();
      const r = await attemptOn(ex, await makeRun(suite, t.id, { gpus: ids }));
      expect(r.outcome).toBe("completed");
      expect(r.details?.gpus).toBe(ids.join(","));
      spans.push({ run: t.id, gpu: ids[0], start, end: Date.now() });
    });

    expect(spans).toHaveLength(4);
    for (const a of spans) {
      for (const b of spans) {
        if (a !== b && a.gpu === b.gpu) expect(a.end <= b.start || b.end <= a.start).toBe(true);
      }
    }
    // Both GPUs were used, two runs each.
    expect(spans.filter((s) => s.gpu === "0")).toHaveLength(2);
    expect(spans.filter((s) => s.gpu === "1")).toHaveLength(2);
    // The daemon stored each run's own device id, with the nvidia driver and the gpu capability.
    expect(seen).toHaveLength(4);
    for (const s of seen) {
      const span = spans.find((x) => x.run === s.run)!;
      expect(s).toMatchObject({ deviceIds: [span.gpu], driver: "nvidia", caps: [["gpu"]] });
    }
  });
});
