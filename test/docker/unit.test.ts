import { readFile } from "node:fs/promises";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { containerEnv, containerName, containerOptions } from "../../src/execute/docker/container.js";
import { demux } from "../../src/execute/docker/demux.js";
import { Masker } from "../../src/execute/mask.js";
import { RunLog } from "../../src/execute/run-log.js";
import { buildTag, dockerSettings } from "../../src/execute/docker/settings.js";
import { gpuModel, parseNvidiaSmi } from "../../src/execute/gpu.js";
import type { RunSpec } from "../../src/execute/types.js";
import { attemptOn } from "../helpers/attempt.js";

const spec: RunSpec = {
  runId: "spaceship-titanic__seed1",
  suiteId: "suite-abc",
  competitionId: "spaceship-titanic",
  seed: 1,
  publicDir: "/data/spaceship-titanic/prepared/public",
  runDir: "/runs/r1",
  timeLimitSecs: 3600,
  env: { MODEL: "gpt", OPENAI_API_KEY: "sk-x", COMPETITION_ID: "spoofed" },
  gpus: ["2", "3"],
  validationUrl: "http://172.17.0.1:4000/t/validate",
};

const settings = dockerSettings(
  configSchema().parse({
    competitions: { include: ["spaceship-titanic"] },
    executor: "docker",
    agent: { image: "agent:1", command: "python run.py" },
    limits: { time: "1h", cpus: 4, memory: "16g", shmSize: "2g", pids: 512, gpus: 2 },
    run: { stopGraceSecs: 7 },
  }),
  "/repo",
);

describe("container options", () => {
  it("maps the config to settings", () => {
    expect(settings).toMatchObject({
      image: "agent:1",
      command: ["/bin/sh", "-c", "python run.py"],
      limits: { cpus: 4, memory: 16 * 1024 ** 3, shmSize: 2 * 1024 ** 3, pids: 512 },
      network: "bridge",
      stopGraceSecs: 7,
    });
    expect(buildTag("My Suite/1")).toBe("medalist-agent:my-suite-1");
  });

  it("mounts the contract's paths, limits, labels, GPUs; never privileged", () => {
    const o = containerOptions(spec, settings, "sha256:abc", { owner: "host:1", now: 0 });
    expect(o.name).toBe("medalist-suite-abc-spaceship-titanic__seed1");
    expect(o.Image).toBe("sha256:abc");
    expect(o.Labels).toEqual({
      "medalist.suite": "suite-abc",
      "medalist.run": "spaceship-titanic__seed1",
      "medalist.competition": "spaceship-titanic",
      "medalist.seed": "1",
      "medalist.owner": "host:1",
      "medalist.deadline": String((3600 + 7 + 300) * 1000),
    });
    const h = o.HostConfig!;
    expect(h.Mounts).toEqual([
      { Type: "bind", Source: spec.publicDir, Target: "/home/data", ReadOnly: true },
      { Type: "bind", Source: "/runs/r1/submission", Target: "/home/submission", ReadOnly: false },
      { Type: "bind", Source: "/runs/r1/logs", Target: "/home/logs", ReadOnly: false },
      { Type: "bind", Source: "/runs/r1/code", Target: "/home/code", ReadOnly: false },
      { Type: "bind", Source: "/runs/r1/instructions.txt", Target: "/home/instructions.txt", ReadOnly: true },
    ]);
    expect(h).toMatchObject({
      NanoCpus: 4e9,
      Memory: 16 * 1024 ** 3,
      MemorySwap: 16 * 1024 ** 3,
      ShmSize: 2 * 1024 ** 3,
      PidsLimit: 512,
      NetworkMode: "bridge",
      Privileged: false,
      DeviceRequests: [{ Driver: "nvidia", DeviceIDs: ["2", "3"], Capabilities: [["gpu"]] }],
    });
    expect(h.Binds).toBeUndefined();
    expect(JSON.stringify(o)).not.toContain("docker.sock");
    expect(containerOptions({ ...spec, gpus: [] }, settings, "x").HostConfig!.DeviceRequests).toBeUndefined();
  });

  it("a read-only root by default, its writable places as named volumes; limits.disk.root: writable opts out", () => {
    expect(settings.readOnlyRoot).toEqual({ bytes: 16 * 1024 ** 3, paths: [] });
    const volumes = [{ name: "v0", target: "/home/agent" }];
    const h = containerOptions(spec, { ...settings, limits: { ...settings.limits, root: 1 } }, "x", {
      volumes,
    }).HostConfig!;
    expect(h.ReadonlyRootfs).toBe(true);
    expect(h.StorageOpt).toBeUndefined();
    expect(h.Mounts).toContainEqual({ Type: "volume", Source: "v0", Target: "/home/agent", ReadOnly: false });
    const mle = dockerSettings(
      configSchema().parse({
        competitions: { include: ["x"] },
        executor: "docker",
        agent: { mlebench: { agentsDir: "agents", id: "aide" } },
        limits: { disk: { root: "2g", writable: ["/opt/conda/envs/agent", "/home/agent"] } },
      }),
      "/repo",
    );
    expect(mle.readOnlyRoot).toEqual({
      bytes: 2 * 1024 ** 3,
      paths: ["/home/agent", "/opt/conda/envs/agent"],
    });
    const rw = dockerSettings(
      configSchema().parse({
        competitions: { include: ["x"] },
        executor: "docker",
        agent: { image: "a:1", command: "x" },
        limits: { disk: { root: "writable" } },
      }),
      "/repo",
    );
    expect(rw.readOnlyRoot).toBeUndefined();
    const w = containerOptions(spec, { ...rw, limits: { root: 5 } }, "x").HostConfig!;
    expect(w.ReadonlyRootfs).toBe(false);
    expect(w.StorageOpt).toEqual({ size: "5" });
  });

  it("passes only the contract's variables and spec.env; the contract wins", () => {
    expect(containerEnv(spec, "bridge").sort()).toEqual(
      [
        "CODE_DIR=/home/code",
        "COMPETITION_ID=spaceship-titanic",
        "DATA_DIR=/home/data",
        "INSTRUCTIONS_FILE=/home/instructions.txt",
        "LOGS_DIR=/home/logs",
        "MEDALIST_VALIDATION_URL=http://172.17.0.1:4000/t/validate",
        "MODEL=gpt",
        "OPENAI_API_KEY=sk-x",
        "SEED=1",
        "SUBMISSION_DIR=/home/submission",
        "TIME_LIMIT_SECS=3600",
      ].sort(),
    );
    expect(containerEnv(spec, "none").some((e) => e.startsWith("MEDALIST_VALIDATION_URL="))).toBe(false);
  });

  it("makes valid, bounded container names", () => {
    expect(containerName("s", "a b/c")).toBe("medalist-s-a-b-c");
    const long = containerName("s".repeat(100), "r".repeat(100));
    expect(long.length).toBeLessThanOrEqual(120);
    expect(long).not.toBe(containerName("s".repeat(100), "r".repeat(99) + "x"));
  });
});

describe("nvidia-smi parsing", () => {
  it("parses the query output", async () => {
    const out = await readFile("test/fixtures/docker/nvidia-smi-mixed.txt", "utf8");
    const gpus = parseNvidiaSmi(out);
    expect(gpus).toHaveLength(3);
    expect(gpus[0]).toEqual({
      index: "0",
      uuid: "GPU-5f2b3c1e-8a7d-4e2b-9c1a-3d4e5f6a7b8c",
      name: "NVIDIA A10G",
      memoryMiB: 23028,
    });
    expect(gpuModel(gpus)).toBe("2× NVIDIA A10G, 1× Tesla T4");
    expect(gpuModel(gpus.slice(0, 2))).toBe("NVIDIA A10G");
    expect(gpuModel([])).toBeNull();
    expect(parseNvidiaSmi("\n")).toEqual([]);
    expect(parseNvidiaSmi("0, GPU-x, NVIDIA H200, [N/A]\n")[0].memoryMiB).toBeNull();
    expect(() => parseNvidiaSmi("No devices were found\n")).toThrow(/unexpected/);
  });
});

describe("run log", () => {
  it("demultiplexes Docker's stream into timestamped, masked lines", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "medalist-runlog-"));
    const log = new RunLog(path.join(dir, "run.log"), new Masker(["sk-secret"]));
    const stream = new PassThrough();
    const frame = (type: number, text: string) => {
      const body = Buffer.from(text);
      const head = Buffer.alloc(8);
      head[0] = type;
      head.writeUInt32BE(body.length, 4);
      return Buffer.concat([head, body]);
    };
    const done = demux(stream, (s, t) => log.output(s, t));
    const all = Buffer.concat([
      frame(1, "2026-01-01T00:00:00.000000001Z hello key=sk-secret\n"),
      frame(2, "2026-01-01T00:00:00.000000002Z oops\n"),
      frame(1, "2026-01-01T00:00:01.000000000Z no newline"),
    ]);
    stream.write(all.subarray(0, 5)); // a header split across chunks
    stream.end(all.subarray(5));
    await done;
    await log.close();
    expect(await readFile(path.join(dir, "run.log"), "utf8")).toBe(
      "2026-01-01T00:00:00.000000001Z stdout hello key=***\n" +
        "2026-01-01T00:00:00.000000002Z stderr oops\n" +
        "2026-01-01T00:00:01.000000000Z stdout no newline\n",
    );
  });

  it("stops writing past its size limit, saying so", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "medalist-runlog-"));
    const log = new RunLog(path.join(dir, "run.log"), new Masker([]), 200);
    for (let i = 0; i < 20; i++) log.output("stdout", `line ${i}\n`);
    await log.close();
    const text = await readFile(path.join(dir, "run.log"), "utf8");
    expect(text).toContain("truncated at 200 bytes");
    expect(text).not.toContain("line 19");
  });
});

describe("executor without a daemon", () => {
  it("retries when the daemon does not answer, then reports infra_error", async () => {
    const { default: Docker } = await import("dockerode");
    const { DockerExecutor } = await import("../../src/execute/docker/executor.js");
    const lines: string[] = [];
    const ex = new DockerExecutor(new Docker({ socketPath: "/nonexistent/docker.sock" }), {
      image: "x:1",
      limits: {},
      network: "none",
      stopGraceSecs: 1,
    });
    const dir = await mkdtemp(path.join(os.tmpdir(), "medalist-nodaemon-"));
    const { executeWithRetries } = await import("../../src/suite/retry.js");
    const { result: r, attempts } = await executeWithRetries(
      (s) => attemptOn(ex, s),
      { ...spec, runDir: dir, publicDir: dir, gpus: [] },
      { retries: 2, delayMs: 5 },
      { onRetry: (n) => lines.push(`retry ${n}`) },
    );
    expect(r).toMatchObject({ outcome: "infra_error", exitCode: null });
    expect(attempts).toBe(3);
    expect(r.error).toMatch(/ENOENT|connect/);
    expect(lines).toHaveLength(2);
  });

  it("does not start anything once the suite is cancelled", async () => {
    const { default: Docker } = await import("dockerode");
    const { DockerExecutor } = await import("../../src/execute/docker/executor.js");
    const ex = new DockerExecutor(new Docker({ socketPath: "/nonexistent/docker.sock" }), {
      image: "x:1",
      limits: {},
      network: "none",
      stopGraceSecs: 1,
    });
    const ac = new AbortController();
    ac.abort();
    const r = await attemptOn(ex, spec, ac.signal);
    expect(r).toMatchObject({
      outcome: "infra_error",
      error: "cancelled",
      cancelled: true,
    });
  });
});
