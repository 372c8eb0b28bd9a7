import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DockerExecutor } from "../../src/execute/docker/executor.js";
import { cleanupSuite, sweepStale } from "../../src/execute/docker/cleanup.js";
import { LABEL } from "../../src/execute/docker/container.js";
import { schedule } from "../../src/execute/scheduler.js";
import type { ExecResult } from "../../src/execute/types.js";
import { containersOf, makeRun, requireDocker, shellSettings, TEST_IMAGE, uniqueSuite } from "./helpers.js";
import { attemptOn } from "../helpers/attempt.js";

const docker = await requireDocker();
const until = async (cond: () => Promise<boolean>, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 100));
  }
};
const running = async (suite: string) =>
  (await containersOf(docker!, suite)).filter((c) => c.State === "running").length;

describe.skipIf(!docker)("cancelling a suite", () => {
  it("aborting mid-run stops every container, starts nothing new, leaves no container", async () => {
    const suite = uniqueSuite("abort");
    const ac = new AbortController();
    const settings = shellSettings('trap "" TERM; while true; do sleep 1; done', { stopGraceSecs: 30 });
    const results: Record<string, ExecResult> = {};
    const tasks = ["a", "b", "c", "d"].map((id, i) => ({ id, expectedSecs: 10 - i, gpus: 0 }));
    const done = schedule(
      tasks,
      { gpuIds: [], maxParallel: 2 },
      async (t) => {
        results[t.id] = await attemptOn(
          new DockerExecutor(docker!, settings),
          await makeRun(suite, t.id),
          ac.signal,
        );
      },
      ac.signal,
    );
    await until(async () => (await running(suite)) === 2);
    const t0 = Date.now();
    ac.abort();
    await done;
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(Object.keys(results).sort()).toEqual(["a", "b"]);
    for (const r of Object.values(results))
      expect(r).toMatchObject({ outcome: "infra_error", error: "cancelled" });
    expect(await containersOf(docker!, suite)).toHaveLength(0);
  });

  it("SIGTERM to a suite process removes its containers within 15 s and keeps finished results", async () => {
    const suite = uniqueSuite("sigterm");
    const out = path.join(await mkdtemp(path.join(os.tmpdir(), "medalist-cancel-")), "results.json");
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "test/fixtures/docker/cancel-suite.ts", suite, out],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      await until(async () => output.includes("quick done") && (await running(suite)) === 2, 30_000);
      const t0 = Date.now();
      child.kill("SIGTERM");
      const code = await exited;
      const took = Date.now() - t0;
      expect(code, output).toBe(0);
      expect(took).toBeLessThan(15_000);
      expect(await containersOf(docker!, suite)).toHaveLength(0);
      const results = JSON.parse(await readFile(out, "utf8"));
      expect(results.quick.outcome).toBe("completed");
      expect(existsSync(path.join(results.quick.runDir, "submission", "submission.csv"))).toBe(true);
      expect(results["hang-1"]).toMatchObject({ outcome: "infra_error", error: "cancelled" });
      expect(results["never-started"]).toBeUndefined();
    } finally {
      child.kill("SIGKILL");
      await cleanupSuite(docker!, suite, { graceSecs: 0 });
    }
  });

  it("sweeps containers left by a dead process or past their deadline, not live ones", async () => {
    const suite = uniqueSuite("stale");
    const make = (run: string, owner: string, deadline: number) =>
      docker!.createContainer({
        Image: TEST_IMAGE,
        Cmd: ["sleep", "60"],
        name: `medalist-${suite}-${run}`,
        Labels: {
          [LABEL.suite]: suite,
          [LABEL.run]: run,
          [LABEL.owner]: owner,
          [LABEL.deadline]: String(deadline),
        },
      });
    const host = os.hostname();
    const later = Date.now() + 3_600_000;
    await (await make("dead-owner", `${host}:999999`, later)).start();
    await make("past-deadline", `elsewhere:1`, Date.now() - 1000);
    await make("live-owner", `${host}:${process.pid}`, later);
    await make("other-host", `elsewhere:1`, later);
    try {
      const removed = await sweepStale(docker!, { isAlive: (pid) => pid !== 999999 });
      // Another test file's setupDocker may sweep the same leftovers first: check what remains.
      for (const n of removed.filter((x) => x.includes(suite))) {
        expect([`medalist-${suite}-dead-owner`, `medalist-${suite}-past-deadline`]).toContain(n);
      }
      const left = (await containersOf(docker!, suite)).map((c) => c.Labels[LABEL.run]).sort();
      expect(left).toEqual(["live-owner", "other-host"]);
    } finally {
      await cleanupSuite(docker!, suite, { graceSecs: 0 });
    }
  });
});
