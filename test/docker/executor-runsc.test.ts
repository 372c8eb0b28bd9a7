// A representative subset of executor.test.ts under gVisor (runsc), with what reads differently there.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { folderFsProblem } from "../../src/execute/docker/folder-fs.js";
import { cleanupSuite } from "../../src/execute/docker/cleanup.js";
import { DockerExecutor, GVISOR_LIMITS } from "../../src/execute/docker/executor.js";
import { runPaths } from "../../src/execute/types.js";
import { containersOf, makeRun, requireDocker, shellSettings, testRuntimes, uniqueSuite } from "./helpers.js";
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
    "holds the memory and /tmp limits; the run's log says how they read under gVisor",
    { timeout: T },
    async () => {
      const oom = await attemptOn(
        under('x=0123456789abcdef; while true; do x="$x$x"; done', {
          limits: { memory: 64 * 1024 ** 2 },
        }),
        await makeRun(suite, "oom"),
      );
      // Killed at the limit; Docker does not always say out of memory under runsc (GVISOR_LIMITS says so).
      expect(oom.exitCode).toBe(137);
      expect(["oom", "failed"]).toContain(oom.outcome);
      const spec = await makeRun(suite, "tmp");
      const tmp = await attemptOn(
        under(
          "dd if=/dev/zero of=/tmp/big bs=1M count=64 2> /home/logs/dd.txt; echo rc=$? >> /home/logs/dd.txt; du -m /tmp/big >> /home/logs/dd.txt",
          { limits: { tmp: 16 * 1024 ** 2 } },
        ),
        spec,
      );
      expect(tmp.outcome).toBe("completed");
      const dd = await readFile(path.join(runPaths(spec.runDir).logsDir, "dd.txt"), "utf8");
      expect(dd).toMatch(/No space left on device[\s\S]*rc=1\n16\t\/tmp\/big/);
    },
  );

  it.skipIf(fsProblem !== null)(
    "a full-speed /home/logs writer meets its own loop-mounted filesystem's end under runsc",
    { timeout: T },
    async () => {
      const MiB = 1024 ** 2;
      const quota = { submission: 16 * MiB, logs: 16 * MiB, code: 16 * MiB };
      const spec = await makeRun(suite, "fill-logs", { timeLimitSecs: 90, quota });
      const ex = under("dd if=/dev/zero of=/home/logs/big bs=1M count=256; sleep 60", {
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
