// A read-only root by default, against the real daemon, under runc and runsc: docker inspect shows
// it with the other default limits; a write to / fails; /home/agent and HOME keep the image's files
// and are writable; filling them past limits.disk.root stops that run with the limit named while
// another run of the suite completes; nothing (volume, mount) is left behind.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { cleanupSuite, sweepStale } from "../../src/execute/docker/cleanup.js";
import type { DockerSuiteConfig } from "../../src/execute/docker/config.js";
import { folderFsProblem, scratchFs } from "../../src/execute/docker/folder-fs.js";
import { DEFAULT_PIDS, DEFAULT_ROOT } from "../../src/execute/docker/limits.js";
import { setupDocker } from "../../src/execute/docker/setup.js";
import { DockerExecutor } from "../../src/execute/docker/executor.js";
import { describeFailure } from "../../src/execute/failure.js";
import { runPaths } from "../../src/execute/types.js";
import {
  inspectWhileRunning,
  makeRun,
  requireDocker,
  shellSettings,
  TEST_IMAGE,
  testRuntimes,
  uniqueSuite,
} from "./helpers.js";
import { attemptOn } from "../helpers/attempt.js";

const docker = await requireDocker();
const runtimes = await testRuntimes(docker);
const fsProblem = docker ? await folderFsProblem() : "no daemon";
const MiB = 1024 ** 2;
const GiB = 1024 ** 3;
const T = 240_000;
const suites: string[] = [];

/** An agent image with files of its own in /home/agent and in its user's HOME (/home/me). */
function agentContext(): string {
  const ctx = mkdtempSync(path.join(os.tmpdir(), "medalist-rootfs-img-"));
  writeFileSync(
    path.join(ctx, "Dockerfile"),
    [
      `FROM ${TEST_IMAGE}`,
      "RUN mkdir -p /home/agent/sub /home/me/.cache && echo from-image > /home/agent/sub/f && echo cached > /home/me/.cache/c" +
        " && echo 'me:x:1000:1000::/home/me:/bin/sh' >> /etc/passwd && chown -R 1000:1000 /home/agent /home/me",
      "",
    ].join("\n"),
  );
  return ctx;
}

function config(runtime: string, over: Record<string, unknown> = {}): DockerSuiteConfig {
  return configSchema().parse({
    competitions: { include: ["toy-comp"] },
    executor: "docker",
    agent: { build: { context: agentContext() }, command: 'eval "$AGENT_SCRIPT"' },
    docker: { gpuIds: [], runtime, network: "none", user: "1000:1000", buildNetwork: "none" },
    ...over,
  }) as unknown as DockerSuiteConfig;
}

async function volumesOf(suite: string) {
  return (await docker!.listVolumes({ filters: { label: [`medalist.suite=${suite}`] } })).Volumes ?? [];
}

describe.skipIf(!docker)("a read-only root by default (real daemon)", () => {
  afterAll(async () => {
    for (const s of suites) await cleanupSuite(docker!, s, { graceSecs: 0 });
  });

  for (const runtime of runtimes) {
    it(
      `${runtime}: docker inspect shows a read-only root with memory, pids and CPUs; / refuses writes; /home/agent and HOME keep the image's files; a full root area stops its run with the limit named, another run completes`,
      async () => {
        const suite = uniqueSuite(`rootfs-${runtime}`);
        suites.push(suite);
        const lines: string[] = [];
        const setup = await setupDocker(
          config(runtime, {
            limits: { memory: "256m", disk: { root: "32m", writable: ["/home/agent"] } },
          }),
          { baseDir: ".", log: (l) => lines.push(l), validation: false, hostCpus: 2, hostMemory: 8 * GiB },
        );
        try {
          const ro = setup.executor.settings.readOnlyRoot;
          expect(ro).toEqual({ bytes: 32 * MiB, paths: ["/home/agent", "/home/me"] });
          expect(lines).toContainEqual(
            expect.stringMatching(
              /^read-only root filesystem; writable: \/tmp, \/var\/tmp, \/dev\/shm, \/home\/submission, \/home\/logs, \/home\/code, \/home\/agent, \/home\/me/,
            ),
          );
          const exec = setup.executor;
          // Each run's script comes in its environment (the command evals it).
          const okSpec = await makeRun(suite, "writes", {
            timeLimitSecs: 120,
            env: {
              AGENT_SCRIPT:
                "cat /home/agent/sub/f $HOME/.cache/c; echo new > /home/agent/new && echo h > $HOME/h && echo wrote-places;" +
                " if echo x > /rootwrite; then echo ROOT-WRITABLE; else echo root-refused; fi;" +
                " if echo x > /etc/x; then echo ETC-WRITABLE; else echo etc-refused; fi;" +
                " echo t > /tmp/t && echo s > /dev/shm/s && echo id,target > /home/submission/submission.csv && echo wrote-tmp; sleep 4",
            },
          });
          const fillSpec = await makeRun(suite, "fills", {
            timeLimitSecs: 120,
            env: { AGENT_SCRIPT: "dd if=/dev/zero of=/home/agent/big bs=1M count=200; sleep 100" },
          });
          const okRun = attemptOn(exec, okSpec);
          const fillRun = attemptOn(exec, fillSpec);
          // What Docker stored for the running container.
          const host = (await inspectWhileRunning(docker!, suite, "writes"))?.HostConfig;
          const volumesWhileRunning = (await volumesOf(suite)).length;
          const [ok, fill] = await Promise.all([okRun, fillRun]);
          const okLog = await readFile(runPaths(okSpec.runDir).logFile, "utf8");
          expect(ok.outcome, okLog).toBe("completed");
          expect(host).toMatchObject({
            ReadonlyRootfs: true,
            Memory: 256 * MiB,
            PidsLimit: DEFAULT_PIDS,
            NanoCpus: 2e9,
            Runtime: runtime,
          });
          expect(volumesWhileRunning).toBeGreaterThan(0);
          expect(okLog).toContain("from-image");
          expect(okLog).toContain("cached");
          expect(okLog).toContain("wrote-places");
          expect(okLog).toContain("root-refused");
          expect(okLog).toContain("etc-refused");
          expect(okLog).toContain("wrote-tmp");
          expect(okLog).not.toContain("WRITABLE");
          // runc says EROFS; gVisor says EROFS too, or EACCES where the user could not write there anyway.
          expect(okLog).toMatch(/\/rootwrite: (Read-only file system|Permission denied)/);
          expect(okLog).toContain(
            'read-only root filesystem: the agent can write only to /tmp, /var/tmp, /dev/shm, /home/submission, /home/logs, /home/code, /home/agent, /home/me; a write elsewhere fails with "Read-only file system"',
          );

          const fillLog = await readFile(runPaths(fillSpec.runDir).logFile, "utf8");
          if (fsProblem === null) {
            expect(fill.outcome, fillLog).toBe("failed");
            expect(fill.error).toBe(
              "disk: limits.disk.root 32 MiB reached (/home/agent, /home/me, the writable places of the read-only root: its filesystem is full)",
            );
            expect((await describeFailure(fill, fillLog))?.cause).toMatch(
              /^disk: limits\.disk\.root 32 MiB reached/,
            );
            expect(fillLog).toContain("No space left on device");
            expect(fill.durationMs).toBeLessThan(60_000);
          } else console.warn(`[test/docker] root area not bounded here (${fsProblem})`);
          // Nothing left: no volume, no mount, no folder.
          expect(await volumesOf(suite)).toHaveLength(0);
          expect(await readFile("/proc/self/mountinfo", "utf8")).not.toMatch(/medalist-fs-[^ ]*\/mnt /);
        } finally {
          await setup.close();
        }
      },
      T,
    );
  }

  it(
    "a run's volumes and their filesystem left behind (keepContainers) are removed by the suite's cleanup",
    async () => {
      const suite = uniqueSuite("rootfs-cleanup");
      suites.push(suite);
      const ex = new DockerExecutor(
        docker!,
        shellSettings("echo kept > /home/agent/k", {
          keepContainers: true,
          readOnlyRoot: { bytes: 16 * MiB, paths: ["/home/agent"] },
        }),
      );
      ex.folderFilesystems = fsProblem === null;
      const spec = await makeRun(suite, "kept");
      const r = await attemptOn(ex, spec);
      expect(r.outcome).toBe("completed");
      const [v] = await volumesOf(suite);
      const work = v?.Labels?.["medalist.scratch"] ?? "";
      expect(path.basename(work)).toMatch(/^medalist-fs-/);
      expect(readFileSync(path.join(work, "mnt", "w0", "k"), "utf8")).toBe("kept\n");
      if (fsProblem === null)
        expect(await readFile("/proc/self/mountinfo", "utf8")).toContain(`${work}/mnt `);
      await cleanupSuite(docker!, suite, { graceSecs: 0 });
      expect(await volumesOf(suite)).toHaveLength(0);
      expect(existsSync(work)).toBe(false);
      expect(await readFile("/proc/self/mountinfo", "utf8")).not.toContain(work);
    },
    T,
  );

  it(
    "the sweep removes a dead Medalist's run volumes past their deadline, and unmounts their filesystem",
    async () => {
      const suite = uniqueSuite("rootfs-sweep");
      const fs = await scratchFs(8 * MiB, fsProblem === null);
      mkdirSync(path.join(fs.dir, "w0"));
      await docker!.createVolume({
        Name: `${suite}-w0`,
        Driver: "local",
        DriverOpts: { type: "none", o: "bind", device: path.join(fs.dir, "w0") },
        Labels: {
          "medalist.suite": suite,
          "medalist.owner": "another-host:1",
          "medalist.deadline": String(Date.now() - 1000),
          "medalist.scratch": fs.work,
        },
      });
      expect(await volumesOf(suite)).toHaveLength(1);
      await sweepStale(docker!);
      expect(await volumesOf(suite)).toHaveLength(0);
      expect(existsSync(fs.work)).toBe(false);
      expect(await readFile("/proc/self/mountinfo", "utf8")).not.toContain(fs.work);
    },
    T,
  );

  it(
    "defaults: a read-only root of 16 GiB; limits.disk.root: writable keeps the root writable",
    async () => {
      const suite = uniqueSuite("rootfs-defaults");
      suites.push(suite);
      const base = {
        competitions: { include: ["toy-comp"] },
        executor: "docker",
        agent: { image: TEST_IMAGE, command: "echo x > /written && echo root-written" },
        docker: { gpuIds: [], runtime: "runc", user: "0:0" },
      };
      const run = async (over: Record<string, unknown>, runId: string) => {
        const setup = await setupDocker(
          configSchema().parse({ ...base, ...over }) as unknown as DockerSuiteConfig,
          {
            baseDir: ".",
            validation: false,
          },
        );
        try {
          const spec = await makeRun(suite, runId);
          const r = await attemptOn(setup.executor, spec);
          return { setup, r, log: await readFile(runPaths(spec.runDir).logFile, "utf8") };
        } finally {
          await setup.close();
        }
      };
      const ro = await run({}, "default");
      expect(ro.setup.executor.settings.readOnlyRoot?.bytes).toBe(DEFAULT_ROOT);
      expect(ro.r.outcome).toBe("failed");
      expect(ro.log).toContain("/written: Read-only file system");
      expect(ro.log).toContain("read-only root filesystem: the agent can write only to");
      const rw = await run({ limits: { disk: { root: "writable" } } }, "writable");
      expect(rw.setup.executor.settings.readOnlyRoot).toBeUndefined();
      expect(rw.r.outcome).toBe("completed");
      expect(rw.log).toContain("root-written");
    },
    T,
  );
});
