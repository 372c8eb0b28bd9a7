// A representative subset of executor.test.ts under gVisor (runsc), with what reads differently there.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { folderFsProblem } from "../../src/execute/docker/folder-fs.js";
import { kernelLimitEvents, kernelRecords } from "../../src/execute/docker/kernel-log.js";
import { cleanupSuite } from "../../src/execute/docker/cleanup.js";
import { DockerExecutor, GVISOR_LIMITS } from "../../src/execute/docker/executor.js";
import { runPaths } from "../../src/execute/types.js";
import {
  containersOf,
  inspectWhileRunning,
  makeRun,
  requireDocker,
  shellSettings,
  testRuntimes,
  uniqueSuite,
} from "./helpers.js";
import { attemptOn } from "../helpers/attempt.js";

const docker = await requireDocker();
const runsc = (await testRuntimes(docker)).includes("runsc");
const suite = uniqueSuite("runsc");
const T = 120_000;
const fsProblem = docker ? await folderFsProblem() : "no daemon";
const under = (script: string, over: Parameters<typeof shellSettings>[1] = {}) =>
  new DockerExecutor(docker!, shellSettings(script, { runtime: "runsc", network: "none", ...over }));

describe.skipIf(!docker || !runsc)("DockerExecutor under runsc (gVisor)", () => {
  afterAll(async () => {
    await cleanupSuite(docker!, suite, { graceSecs: 0 });
  });

  it("runs an agent that writes a submission, in gVisor's kernel", { timeout: T }, async () => {
    const spec = await makeRun(suite, "completes");
    const r = await attemptOn(
      under(
        "uname -r > /home/logs/kernel.txt; cp /home/data/sample_submission.csv /home/submission/submission.csv; echo done",
      ),
      spec,
    );
    expect(r.outcome).toBe("completed");
    const p = runPaths(spec.runDir);
    expect(await readFile(p.submissionFile, "utf8")).toBe("id,target\n1,0\n2,0\n3,0\n");
    // gVisor answers with its own kernel version, not the runner's.
    expect((await readFile(path.join(p.logsDir, "kernel.txt"), "utf8")).trim()).toBe("4.4.0");
    expect(await readFile(p.logFile, "utf8")).toContain(GVISOR_LIMITS);
    expect(await containersOf(docker!, suite)).toHaveLength(0);
  });

  it("reports a crash with its exit code, and a hang at its time limit", { timeout: T }, async () => {
    const crash = await attemptOn(under("exit 3"), await makeRun(suite, "crashes"));
    expect(crash).toMatchObject({ outcome: "failed", exitCode: 3 });
    const spec = await makeRun(suite, "hangs", { timeLimitSecs: 2 });
    const t0 = Date.now();
    const hang = await attemptOn(
      under('trap "" TERM; while true; do sleep 1; done', { stopGraceSecs: 1 }),
      spec,
    );
    expect(hang).toMatchObject({ outcome: "timed_out", exitCode: 137 });
    expect(Date.now() - t0).toBeLessThan(30_000);
  });

  it("does not let the agent read the private answers, nor write its data", { timeout: T }, async () => {
    const spec = await makeRun(suite, "snoops");
    const script = [
      "cd /home/logs",
      "cat /home/data/../private/answers.csv > direct.txt 2>&1; echo rc=$? >> direct.txt",
      "grep -rl SECRET_ANSWER_1 /home /tmp /root /etc /var 2>/dev/null > grep.txt",
      "touch /home/data/x 2> ro.txt; echo rc=$? >> ro.txt",
    ].join("; ");
    expect((await attemptOn(under(script), spec)).outcome).toBe("completed");
    const read = (f: string) => readFile(path.join(runPaths(spec.runDir).logsDir, f), "utf8");
    expect(await read("direct.txt")).toMatch(/No such file[\s\S]*rc=1/);
    expect((await read("grep.txt")).trim()).toBe("");
    // gVisor checks the folder's permissions before the mount's read-only flag.
    expect(await read("ro.txt")).toMatch(/(Read-only file system|Permission denied)[\s\S]*rc=1/);
  });

  it(
    "2 GiB into /tmp, a memory hog and a fork bomb each stop with the limit named under gVisor; another run completes",
    { timeout: 240_000 },
    async () => {
      const MiB = 1024 ** 2;
      const ex = (script: string, over: Parameters<typeof shellSettings>[1] = {}) => {
        const e = under(script, {
          limits: { memory: 256 * MiB, pids: 128, tmp: 16 * MiB },
          quotaPollMs: 500,
          ...over,
        });
        e.folderFilesystems = fsProblem === null;
        return e;
      };
      const tmpSpec = await makeRun(suite, "fill-tmp", { timeLimitSecs: 120 });
      const oomSpec = await makeRun(suite, "oom", { timeLimitSecs: 120 });
      const bombSpec = await makeRun(suite, "fork-bomb", { timeLimitSecs: 120 });
      const okSpec = await makeRun(suite, "well-behaved", { timeLimitSecs: 120 });
      const tmpRun = attemptOn(
        ex(
          "dd if=/dev/zero of=/tmp/big bs=1M count=2048 2> /home/logs/dd.txt; echo rc=$? >> /home/logs/dd.txt; sleep 100",
        ),
        tmpSpec,
      );
      // What Docker stored for the running container: its mounts, and the volumes made for /tmp and /var/tmp.
      const info = await inspectWhileRunning(docker!, suite, "fill-tmp");
      const tmpMounts = (info?.HostConfig.Mounts ?? []).filter((m) => m.Target.endsWith("tmp"));
      const tmpVolumes = (info?.Mounts ?? [])
        .filter((m) => m.Destination.endsWith("tmp"))
        .map((m) => m.Name ?? "");
      const [tmp, oom, bomb, ok] = await Promise.all([
        tmpRun,
        attemptOn(
          ex('x=0123456789abcdef; while true; do x="$x$x"; done', {
            limits: { memory: 64 * MiB, pids: 128, tmp: 16 * MiB },
          }),
          oomSpec,
        ),
        // Under gVisor limits.pids counts the sandbox's own host threads and processes (about 40 at rest).
        attemptOn(ex("i=0; while [ $i -lt 300 ]; do sleep 60 & i=$((i+1)); done; wait"), bombSpec),
        attemptOn(ex("sleep 3; echo id,target > /home/submission/submission.csv"), okSpec),
      ]);
      const logOf = (spec: { runDir: string }) => readFile(runPaths(spec.runDir).logFile, "utf8");
      expect(ok.outcome, await logOf(okSpec)).toBe("completed");

      // Killed at the limit: named from the kernel's log (Docker does not always say OOMKilled under runsc).
      expect(oom, await logOf(oomSpec)).toMatchObject({ outcome: "oom", error: "oom: memory limit 64 MiB" });
      expect(oom.exitCode).toBe(137);
      // The kernel's own record of it, which names the run's container cgroup when Docker does not.
      if (kernelRecords() !== null) expect(kernelLimitEvents(oom.details!.containerId)?.oom).toBe(true);

      expect(bomb.outcome, await logOf(bombSpec)).toBe("failed");
      if (kernelRecords() !== null)
        expect(bomb.error).toMatch(
          /^pids: limit 128 reached \(the kernel refused a fork to the agent's gVisor sandbox/,
        );
      // Without the kernel's log (not root) the sandbox's end is all there is.
      else expect(bomb.error).toBe("agent exited with code 2");

      const tmpLog = await logOf(tmpSpec);
      // The size is the daemon's: a tmpfs volume it mounts on the runner, in docker inspect.
      expect(tmpMounts).toEqual(
        ["/tmp", "/var/tmp"].map((Target) =>
          expect.objectContaining({
            Type: "volume",
            Target,
            VolumeOptions: expect.objectContaining({
              DriverConfig: {
                Name: "local",
                Options: { type: "tmpfs", device: "tmpfs", o: `size=${16 * MiB},mode=1777,nosuid,nodev` },
              },
            }),
          }),
        ),
      );
      expect(await readFile(path.join(runPaths(tmpSpec.runDir).logsDir, "dd.txt"), "utf8")).toMatch(
        /No space left on device[\s\S]*rc=1/,
      );
      if (process.getuid?.() === 0) {
        expect(tmp.outcome, tmpLog).toBe("failed");
        expect(tmp.error).toBe("disk: /tmp limit 16 MiB reached (limits.disk.tmp; it is full)");
        expect(tmp.durationMs).toBeLessThan(60_000);
      } else {
        // The runner cannot read the daemon's volume folders: the write is refused, the run goes on.
        console.warn("[test/docker] not root: a full /tmp is not seen under runsc here");
        expect(tmp.outcome).toBe("timed_out");
      }
      // The anonymous volumes went with the containers.
      for (const name of tmpVolumes) await expect(docker!.getVolume(name).inspect()).rejects.toThrow();
    },
  );

  it.skipIf(kernelRecords() === null)(
    "a limits.pids too small for the sandbox itself fails its start, naming limits.pids, and is not retried",
    { timeout: T },
    async () => {
      const spec = await makeRun(suite, "pids-too-small");
      const r = await attemptOn(under("echo never", { limits: { memory: 256 * 1024 ** 2, pids: 24 } }), spec);
      const log = await readFile(runPaths(spec.runDir).logFile, "utf8");
      expect(r.outcome, log).toBe("infra_error");
      expect(r.error).toMatch(
        /^starting the container failed: the kernel refused a fork to the gVisor sandbox at limits\.pids 24, before the agent ran/,
      );
      expect(log).not.toContain("never");
    },
  );

  it.skipIf(fsProblem !== null)(
    "a full-speed /home/logs writer meets its own loop-mounted filesystem's end under runsc",
    { timeout: T },
    async () => {
      const MiB = 1024 ** 2;
      const quota = { submission: 16 * MiB, logs: 16 * MiB, code: 16 * MiB };
      const spec = await makeRun(suite, "fill-logs", { timeLimitSecs: 90, quota });
      const ex = under("dd if=/dev/zero of=/home/logs/big bs=1M count=2048; sleep 60", {
        limits: { memory: 256 * MiB },
        quotaPollMs: 500,
      });
      ex.folderFilesystems = true;
      const r = await attemptOn(ex, spec);
      expect(r.outcome).toBe("failed");
      expect(r.error).toMatch(/^disk: \/home\/logs (quota 16 MiB reached|went over its 16\.0 MiB quota)/);
      const logsDir = runPaths(spec.runDir).logsDir;
      const onDisk = Number(execFileSync("du", ["-sB1", logsDir], { encoding: "utf8" }).split("\t")[0]);
      expect(onDisk).toBeLessThanOrEqual(16 * MiB);
      const log = await readFile(runPaths(spec.runDir).logFile, "utf8");
      expect(log).toContain("/home/logs 16 MiB, /home/code 16 MiB, each its own filesystem");
      expect(log).toContain("No space left on device");
    },
  );
});
