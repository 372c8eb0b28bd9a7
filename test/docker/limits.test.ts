// Limits by default, against the real daemon: what every container gets (docker inspect), and a
// hostile agent that fills /tmp, writes /home/logs at full speed or forks without end is stopped
// with a cause naming the limit, while another run of the same suite completes.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import { readFile } from "node:fs/promises";
import path from "node:path";

import { afterAll, describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { cleanupSuite } from "../../src/execute/docker/cleanup.js";
import { DockerExecutor } from "../../src/execute/docker/executor.js";
import { folderFsProblem } from "../../src/execute/docker/folder-fs.js";
import { kernelRecords } from "../../src/execute/docker/kernel-log.js";
import { DEFAULT_PIDS, DEFAULT_ROOT, memoryReserve } from "../../src/execute/docker/limits.js";
import { setupDocker } from "../../src/execute/docker/setup.js";
import type { DockerSuiteConfig } from "../../src/execute/docker/config.js";
import { describeFailure } from "../../src/execute/failure.js";
import { runPaths, type ExecResult, type RunSpec } from "../../src/execute/types.js";
import {
  inspectWhileRunning,
  makeRun,
  requireDocker,
  shellSettings,
  TEST_IMAGE,
  uniqueSuite,
} from "./helpers.js";
import { attemptOn } from "../helpers/attempt.js";

const docker = await requireDocker();
const suite = uniqueSuite("limits");
const MiB = 1024 ** 2;
const GiB = 1024 ** 3;
// Kernel-enforced folder quotas need root and loop mounts; elsewhere the poll is the bound.
const fsProblem = docker ? await folderFsProblem() : "no daemon";

/** The HostConfig Docker stored for the run's container, read while it runs. */
const hostConfigOf = async (runId: string) =>
  (await inspectWhileRunning(docker!, suite, runId))?.HostConfig as unknown as
    Record<string, unknown> | undefined;

const failureOf = async (spec: RunSpec, r: ExecResult) =>
  describeFailure(r, await readFile(runPaths(spec.runDir).logFile, "utf8"));

describe.skipIf(!docker)("limits on every agent container (real daemon)", () => {
  afterAll(async () => {
    await cleanupSuite(docker!, suite, { graceSecs: 0 });
  });

  it("a config without limits gets memory, CPUs, pids and sized /tmp from the runner, in docker inspect", async () => {
    const input = {
      competitions: { include: ["toy-comp"] },
      executor: "docker",
      concurrency: 2,
      agent: { image: TEST_IMAGE, command: "sleep 2" },
      docker: { gpuIds: [] },
    };
    const config = configSchema().parse(input) as unknown as DockerSuiteConfig;
    const lines: string[] = [];
    const total = 16 * GiB;
    const setup = await setupDocker(config, {
      baseDir: ".",
      log: (l) => lines.push(l),
      validation: false,
      hostCpus: 2,
      hostMemory: total,
    });
    try {
      const memory = Math.floor((total - memoryReserve(total)) / 2 / MiB) * MiB;
      expect(setup.executor.settings.limits).toMatchObject({ memory, cpus: 1, pids: DEFAULT_PIDS, tmp: GiB });
      expect(lines.join("\n")).toContain(
        "limits per run: memory 7.2 GiB* (no swap), 1 CPU(s)*, 4096 processes*, /tmp and /var/tmp 1 GiB* each",
      );
      const spec = await makeRun(suite, "defaults");
      const running = attemptOn(setup.executor, spec);
      const host = await hostConfigOf("defaults");
      expect((await running).outcome).toBe("completed");
      expect(host).toMatchObject({
        Memory: memory,
        MemorySwap: memory,
        NanoCpus: 1e9,
        PidsLimit: DEFAULT_PIDS,
      });
      // runc: the container's own tmpfs; gVisor (auto picks runsc where the daemon has it): a tmpfs
      // volume the daemon mounts on the runner, so the watch can see it. Either way sized in inspect.
      if (setup.executor.settings.runtime === "runsc")
        expect(
          (host?.Mounts as { Target: string; VolumeOptions?: unknown }[]).filter((m) =>
            m.Target.endsWith("tmp"),
          ),
        ).toEqual(
          ["/tmp", "/var/tmp"].map((Target) =>
            expect.objectContaining({
              Target,
              VolumeOptions: expect.objectContaining({
                DriverConfig: {
                  Name: "local",
                  Options: { type: "tmpfs", device: "tmpfs", o: `size=${GiB},mode=1777,nosuid,nodev` },
                },
              }),
            }),
          ),
        );
      else
        expect(host).toMatchObject({
          Tmpfs: {
            "/tmp": `rw,nosuid,nodev,size=${GiB},mode=1777`,
            "/var/tmp": `rw,nosuid,nodev,size=${GiB},mode=1777`,
          },
        });
      // The root filesystem is read-only; its writable places are listed once in the suite log.
      expect(host).toMatchObject({ ReadonlyRootfs: true });
      expect(host?.StorageOpt ?? null).toBeNull();
      expect(setup.executor.settings.readOnlyRoot?.bytes).toBe(DEFAULT_ROOT);
      expect(
        lines.filter((l) => l.startsWith("read-only root filesystem; writable: /tmp, /var/tmp, /dev/shm,")),
      ).toHaveLength(1);
      // Set values are kept as they are.
      const set = configSchema().parse({
        ...input,
        limits: { memory: "300m", cpus: 0.5, pids: 100, disk: { tmp: "8m" } },
      }) as unknown as DockerSuiteConfig;
      const s2 = await setupDocker(set, { baseDir: ".", validation: false, hostCpus: 2, hostMemory: total });
      expect(s2.executor.settings.limits).toMatchObject({
        memory: 300 * MiB,
        cpus: 0.5,
        pids: 100,
        tmp: 8 * MiB,
      });
      await s2.close();
    } finally {
      await setup.close();
    }
  }, 120_000);

  it("2 GiB into /tmp, a full-speed /home/logs writer and a fork bomb each stop with the limit named; another run completes", async () => {
    const limits = { memory: 512 * MiB, pids: 64, tmp: 32 * MiB, cpus: 1 };
    const quota = { submission: 16 * MiB, logs: 16 * MiB, code: 16 * MiB };
    const ex = (script: string) => {
      const e = new DockerExecutor(docker!, shellSettings(script, { limits, quotaPollMs: 500 }));
      e.folderFilesystems = fsProblem === null;
      return e;
    };
    const tmpSpec = await makeRun(suite, "fill-tmp", { timeLimitSecs: 120 });
    const logsSpec = await makeRun(suite, "fill-logs", { timeLimitSecs: 120, quota });
    const codeSpec = await makeRun(suite, "fill-code", { timeLimitSecs: 120, quota });
    const bombSpec = await makeRun(suite, "fork-bomb", { timeLimitSecs: 120 });
    const okSpec = await makeRun(suite, "well-behaved", { timeLimitSecs: 120 });
    const [tmp, logs, code, bomb, ok] = await Promise.all([
      attemptOn(ex("dd if=/dev/zero of=/tmp/big bs=1M count=2048; sleep 100"), tmpSpec),
      // Full speed, past the quota, then a sparse file too: neither may land on the runner's disk.
      attemptOn(
        ex("dd if=/dev/zero of=/home/logs/big bs=1M count=256; truncate -s 1G /home/logs/sparse; sleep 100"),
        logsSpec,
      ),
      attemptOn(ex("dd if=/dev/zero of=/home/code/big bs=1M count=256; sleep 100"), codeSpec),
      // The agent's own shell forks once (the bomb) and then runs builtins only: a fork it could not
      // make would end it with exit code 2 before the watch read pids.events (seen on a loaded runner).
      attemptOn(ex("(f() { f | f & }; f) & while :; do :; done"), bombSpec),
      attemptOn(ex("sleep 3; echo id,target > /home/submission/submission.csv"), okSpec),
    ]);
    expect(ok.outcome).toBe("completed");

    expect(tmp.outcome).toBe("failed");
    expect(tmp.error).toBe("disk: /tmp limit 32 MiB reached (limits.disk.tmp; it is full)");
    expect((await failureOf(tmpSpec, tmp))?.cause).toMatch(/^disk: \/tmp limit 32 MiB reached/);
    expect(tmp.durationMs).toBeLessThan(60_000);

    expect(bomb.outcome).toBe("failed");
    expect(bomb.error).toMatch(/^pids: limit 64 reached/);
    expect((await failureOf(bombSpec, bomb))?.cause).toMatch(/^pids: limit 64 reached/);

    expect(logs.outcome).toBe("failed");
    const logsDir = runPaths(logsSpec.runDir).logsDir;
    const onDisk = Number(
      execFileSync("du", ["-sb", "--apparent-size", logsDir], { encoding: "utf8" }).split("\t")[0],
    );
    const allocated = Number(execFileSync("du", ["-sB1", logsDir], { encoding: "utf8" }).split("\t")[0]);
    if (fsProblem === null) {
      // The sparse file is over the quota the moment it exists: the poll or the watch says so first.
      expect(logs.error).toMatch(/^disk: \/home\/logs (quota 16 MiB reached|went over its 16\.0 MiB quota)/);
      // The kernel stopped the writer at the quota: no more than it is on the runner's disk.
      expect(onDisk).toBeLessThanOrEqual(16 * MiB);
      expect(allocated).toBeLessThanOrEqual(16 * MiB);
      expect(await readFile(runPaths(logsSpec.runDir).logFile, "utf8")).toContain(
        "folder quotas: /home/submission 16 MiB, /home/logs 16 MiB, /home/code 16 MiB, each its own filesystem",
      );
      // A dense writer alone: the kernel refused the writes, the watch read that the folder is full.
      expect(code.outcome).toBe("failed");
      // The watch (the filesystem is full) or the poll (past the quota) says so first; both name it.
      expect(code.error).toMatch(
        /^disk: \/home\/code (quota 16 MiB reached \(its filesystem is full\)|went over its 16\.0 MiB quota)/,
      );
      expect(await readFile(runPaths(codeSpec.runDir).logFile, "utf8")).toContain("No space left on device");
      expect((await failureOf(codeSpec, code))?.cause).toMatch(
        /^disk: \/home\/code (quota 16 MiB reached|went over its 16\.0 MiB quota)/,
      );
      expect(statSync(path.join(runPaths(codeSpec.runDir).codeDir, "big")).size).toBeLessThanOrEqual(
        16 * MiB,
      );
      // Nothing stays mounted.
      expect(await readFile("/proc/self/mountinfo", "utf8")).not.toContain(logsSpec.runDir);
    } else {
      console.warn(
        `[test/docker] folder filesystems unavailable (${fsProblem}): the poll stopped the writer`,
      );
      expect(logs.error).toMatch(/^disk: \/home\/logs went over its 16\.0 MiB quota/);
    }
  }, 240_000);

  it.skipIf(kernelRecords() === null)(
    "an agent whose own shell dies on a refused fork (exit 2) is named from the kernel's log",
    async () => {
      const spec = await makeRun(suite, "shell-dies", { timeLimitSecs: 120 });
      // busybox sh exits 2 ("can't fork") within milliseconds, before the once-a-second watch looks,
      // and Docker removes the container's cgroup (and its pids.events) with it.
      const r = await attemptOn(
        new DockerExecutor(
          docker!,
          shellSettings("while :; do sleep 60 & done", { limits: { memory: 256 * MiB, pids: 32, cpus: 1 } }),
        ),
        spec,
      );
      const log = await readFile(runPaths(spec.runDir).logFile, "utf8");
      expect(r.outcome, log).toBe("failed");
      expect(r.exitCode).toBe(2);
      expect(r.error).toBe(
        "pids: limit 32 reached (the agent tried to run more processes than limits.pids allows)",
      );
      expect(log).toContain("can't fork");
    },
    120_000,
  );

  it("an image build runs with a memory limit (the runner less its reserve), no swap", async () => {
    const ctx = mkdtempSync(path.join(os.tmpdir(), "medalist-build-limits-"));
    writeFileSync(
      path.join(ctx, "Dockerfile"),
      `FROM ${TEST_IMAGE}\nRUN echo "fresh ${Date.now()}" && echo "limit=$(cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max)"\n`,
    );
    const total = 8 * GiB;
    const lines: string[] = [];
    const config = configSchema().parse({
      competitions: { include: ["toy-comp"] },
      executor: "docker",
      agent: { build: { context: ctx }, command: "true" },
      docker: { gpuIds: [] },
    }) as unknown as DockerSuiteConfig;
    const setup = await setupDocker(config, {
      baseDir: ctx,
      log: (l) => lines.push(l),
      validation: false,
      hostCpus: 2,
      hostMemory: total,
    });
    await setup.close();
    expect(lines).toContain(`limit=${total - memoryReserve(total)}`);
  }, 180_000);

  it("docker.buildNetwork: none builds without a network; the build's output is kept in its own file", async () => {
    const ctx = mkdtempSync(path.join(os.tmpdir(), "medalist-build-net-"));
    const build = async (docker: Record<string, unknown>) => {
      // A fresh RUN each time: a cached step would print nothing.
      writeFileSync(
        path.join(ctx, "Dockerfile"),
        `FROM ${TEST_IMAGE}\nRUN echo "fresh ${Date.now()} ${JSON.stringify(docker)}" && echo "eth=$(grep -c eth0 /proc/net/dev)"\n`,
      );
      const lines: string[] = [];
      const file = path.join(ctx, `build-${Object.keys(docker).length}.log`);
      const config = configSchema().parse({
        competitions: { include: ["toy-comp"] },
        executor: "docker",
        agent: { build: { context: ctx }, command: "true" },
        docker: { gpuIds: [], network: "none", ...docker },
      }) as unknown as DockerSuiteConfig;
      const setup = await setupDocker(config, {
        baseDir: ctx,
        log: (l) => lines.push(l),
        validation: false,
        buildLogFile: file,
      });
      await setup.close();
      return { lines, kept: readFileSync(file, "utf8") };
    };
    const none = await build({ buildNetwork: "none" });
    expect(none.lines).toContain("eth=0");
    expect(none.kept).toContain("eth=0");
    const bridge = await build({});
    expect(bridge.lines).toContain("eth=1");
    expect(bridge.lines.join("\n")).toMatch(
      /with the bridge network \(docker\.buildNetwork\), although the runs get none/,
    );
  }, 180_000);

  it.skipIf(fsProblem !== null)(
    "a retry finds what the earlier attempt left in logs/, inside the folder's filesystem",
    async () => {
      const quota = { submission: 16 * MiB, logs: 16 * MiB, code: 16 * MiB };
      const spec = await makeRun(suite, "retry", { quota, attempt: 2 });
      const logs = runPaths(spec.runDir).logsDir;
      mkdirSync(logs, { recursive: true });
      writeFileSync(path.join(logs, "first.txt"), "from attempt 1\n", { mode: 0o666 });
      chmodSync(path.join(logs, "first.txt"), 0o666);
      const ex = new DockerExecutor(
        docker!,
        shellSettings(
          "cp /home/logs/first.txt /home/logs/seen.txt && echo again >> /home/logs/first.txt && df -k /home/logs | tail -1",
          {
            limits: { memory: 256 * MiB },
          },
        ),
      );
      ex.folderFilesystems = true;
      const r = await attemptOn(ex, spec);
      expect(r.outcome).toBe("completed");
      expect(readFileSync(path.join(logs, "seen.txt"), "utf8")).toBe("from attempt 1\n");
      expect(readFileSync(path.join(logs, "first.txt"), "utf8")).toBe("from attempt 1\nagain\n");
      // The agent wrote into a filesystem of the quota's size (18 MiB with ext4's room), now gone.
      expect(await readFile(runPaths(spec.runDir).logFile, "utf8")).toMatch(
        /stdout \/dev\/loop\d+\s+1\d{4}\s/,
      );
      expect(await readFile("/proc/self/mountinfo", "utf8")).not.toContain(spec.runDir);
    },
    120_000,
  );

  it("an agent past its memory limit: oom, the cause names the limit", async () => {
    const spec = await makeRun(suite, "oom");
    const ex = new DockerExecutor(
      docker!,
      shellSettings('x=0123456789abcdef; while true; do x="$x$x"; done', { limits: { memory: 32 * MiB } }),
    );
    const r = await attemptOn(ex, spec);
    expect(r.outcome).toBe("oom");
    expect(r.error).toBe("oom: memory limit 32 MiB");
    expect((await failureOf(spec, r))?.cause).toBe("oom: memory limit 32 MiB (exit 137)");
  }, 120_000);
});
