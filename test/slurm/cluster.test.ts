import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateConfig } from "../../src/config/load.js";
import type { SuiteContext } from "../../src/execute/lifecycle.js";
import { schedule } from "../../src/execute/scheduler.js";
import { slurmBackend } from "../../src/execute/slurm/index.js";
import { jobComment, jobName, planJob } from "../../src/execute/slurm/job.js";
import { slurmSettings } from "../../src/execute/slurm/settings.js";
import { defaultAgentUser } from "../../src/execute/contract.js";
import { openSlurm, type SlurmExecutor } from "../../src/execute/slurm/executor.js";
import type { ExecResult, RunSpec } from "../../src/execute/types.js";
import { runSuite } from "../../src/suite/run.js";
import { lockCluster, queuedJobs, requireSlurm, resumeNode, sacctState, scontrol, until } from "./helpers.js";
import { attemptOn } from "../helpers/attempt.js";

// The tests share one single-node cluster: they run one after another (one file, sequential).
const node = requireSlurm();
const root = resolve(import.meta.dirname, "..", "..");
const shared = mkdtempSync(join(tmpdir(), "medalist-slurm-shared-"));
const dataDir = join(shared, "data");
const opened: SlurmExecutor[] = [];
let n = 0;

const FAST = { poll: { minSecs: 0.5, maxSecs: 2 }, graceSecs: 60 };

function configFor(extra: Record<string, unknown> = {}, slurm: Record<string, unknown> = {}) {
  return validateConfig(
    {
      name: "slurm-test",
      competitions: { include: ["toy-churn"] },
      seeds: 1,
      agent: { command: "node examples/agents/strong/agent.mjs" },
      limits: { time: 60 },
      dataDir,
      executor: "slurm",
      run: { stopGraceSecs: 2, retries: 2 },
      slurm: { sharedDir: shared, ...FAST, ...slurm },
      ...extra,
    },
    "test",
  );
}

async function open(config: ReturnType<typeof configFor>, signal?: AbortSignal) {
  const ctx: SuiteContext = {
    config,
    agent: config.agent,
    baseDir: root,
    suiteId: `t${process.pid}-${++n}-${Date.now().toString(36)}`,
    label: "head",
    log: () => {},
    signal,
  };
  const ex = await openSlurm(ctx);
  opened.push(ex);
  return { ex, suiteId: ctx.suiteId };
}

/** A run folder and public data inside the shared folder. */
function spec(suiteId: string, runId: string, over: Partial<RunSpec> = {}): RunSpec {
  const publicDir = join(shared, "pub");
  mkdirSync(publicDir, { recursive: true });
  const runDir = join(shared, "runs", suiteId, runId);
  mkdirSync(runDir, { recursive: true });
  writeFileSync(join(runDir, "instructions.txt"), "x\n");
  return {
    runId,
    suiteId,
    competitionId: "toy-churn",
    seed: 0,
    publicDir,
    runDir,
    timeLimitSecs: 60,
    env: {},
    gpus: [],
    ...over,
  };
}

/** The suite's containers on this machine's Docker daemon (ids, one per line; "" when none). */
const dockerContainers = (suiteId: string) =>
  spawnSync("docker", ["ps", "-aq", "--filter", `label=medalist.suite=${suiteId}`]).stdout.toString();

/** Waits until the suite's containers are gone. */
const containersGone = (suiteId: string) =>
  until(() => dockerContainers(suiteId) === "", 15_000, "container gone");

let unlock = () => {};
beforeAll(async () => {
  if (node) unlock = await lockCluster();
}, 600_000);

afterAll(async () => {
  for (const ex of opened) await ex.close();
  if (node) resumeNode(node);
  unlock();
}, 60_000);

describe.skipIf(!node)("executor slurm on a real cluster", () => {
  it("runs a toy suite end to end with the same results as the local executor", async () => {
    const extra = { competitions: { include: ["toy-churn", "toy-species"] }, seeds: 2, concurrency: 4 };
    // runSuite opens the backend named by executor: slurm (the factory), as the CLI and the action do.
    const viaSlurm = await runSuite({
      config: configFor(extra),
      baseDir: root,
      outDir: mkdtempSync(join(shared, "out-")),
      label: "head",
    });
    const local = await runSuite({
      config: configFor({ ...extra, executor: "local" }),
      baseDir: root,
      outDir: mkdtempSync(join(tmpdir(), "medalist-local-")),
      label: "head",
    });
    const view = (r: typeof local) =>
      r.runs.map((x) => ({
        id: x.runId,
        outcome: x.outcome,
        score: x.grade?.score,
        medal: x.grade?.any_medal,
      }));
    expect(view(viaSlurm)).toEqual(view(local));
    expect(viaSlurm.runs).toHaveLength(4);
    expect(viaSlurm.runs.every((r) => r.outcome === "completed" && r.grade?.valid_submission)).toBe(true);
    expect(viaSlurm.environment.executor).toBe("slurm");
    expect(viaSlurm.runs[0].details).toMatchObject({ node, slurmState: "COMPLETED" });
    expect(viaSlurm.runs[0].details.slurmJobId).toMatch(/^\d+$/);
  }, 240_000);

  it("stops a hanging agent at its time limit: timed_out, and no job left in squeue", async () => {
    const config = configFor({ agent: { command: "trap '' TERM; while :; do sleep 1; done" } });
    const { ex, suiteId } = await open(config);
    const t0 = Date.now();
    const r = await attemptOn(ex, spec(suiteId, "hang", { timeLimitSecs: 3 }));
    expect(r).toMatchObject({ outcome: "timed_out", error: expect.stringContaining("time limit of 3s") });
    expect(Date.now() - t0).toBeLessThan(60_000);
    // Slurm may still list it as COMPLETING for a moment while it reaps the processes.
    await until(() => queuedJobs(`suite=${suiteId} `).length === 0, 15_000, "job gone from squeue");
    expect(sacctState(r.details!.slurmJobId)).toMatch(/^CANCELLED/);
  }, 120_000);

  it("reports an agent over its memory limit as oom (memory enforced by Slurm's accounting)", async () => {
    const config = configFor({
      agent: { command: `python3 -c "a = bytearray(400 << 20); import time; time.sleep(10)"` },
      limits: { time: 60, memory: "100m" },
    });
    const { ex, suiteId } = await open(config);
    const r = await attemptOn(ex, spec(suiteId, "hog"));
    expect(r.outcome).toBe("oom");
    expect(r.oomKilled).toBe(true);
    expect(r.error).toMatch(/peak memory, over the 100 MiB limit/);
  }, 120_000);

  it("a node that goes down mid-run gives infra_error, and the caller's retry completes the run", async () => {
    const agent =
      'if [ ! -f "$CODE_DIR/.tried" ]; then touch "$CODE_DIR/.tried"; sleep 60; fi; exec node examples/agents/strong/agent.mjs';
    const config = configFor({ agent: { command: agent } });
    const lines: string[] = [];
    const outDir = mkdtempSync(join(shared, "out-"));
    const done = runSuite({
      config,
      baseDir: root,
      outDir,
      label: "head",
      log: (l) => lines.push(l),
      retryDelayMs: 200,
    });
    // runSuite names its own suite id; the owner (this process) finds the job.
    const mine = `owner=${hostname()}:${process.pid}`;
    await until(() => queuedJobs(mine).some((l) => l.includes("|RUNNING|")), 60_000, "first job running");
    // The agent itself has started (RUNNING in squeue comes before the job script runs).
    const tried = join(outDir, "runs", "toy-churn.s0", "code", ".tried");
    await until(() => existsSync(tried), 60_000, "first attempt's agent started");
    scontrol("update", `nodename=${node}`, "state=down", "reason=medalist-test");
    await until(() => lines.some((l) => l.includes("infrastructure error")), 60_000, "infra error seen");
    // Slurm refuses to resume a node while it still reaps the killed job: try until it takes.
    await until(
      () => {
        try {
          resumeNode(node!);
          return true;
        } catch {
          return false;
        }
      },
      30_000,
      "node resumed",
    );
    const results = await done;
    const run = results.runs[0];
    expect(lines.find((l) => l.includes("infrastructure error"))).toMatch(/Slurm ended the job: NODE_FAIL/);
    expect(run).toMatchObject({ outcome: "completed", attempts: 2 });
    expect(run.grade?.valid_submission).toBe(true);
  }, 240_000);

  it("cancelling the suite removes every job from squeue within 15 s", async () => {
    const ac = new AbortController();
    const config = configFor(
      { agent: { command: "trap '' TERM; while :; do sleep 1; done" } },
      { maxConcurrent: 3 },
    );
    const { ex, suiteId } = await open(config, ac.signal);
    const results: ExecResult[] = [];
    const tasks = ["a", "b", "c"].map((id) => ({ id, expectedSecs: 1, gpus: 0, cpus: 0 }));
    const all = schedule(
      tasks,
      ex.resources,
      async (t) => void results.push(await attemptOn(ex, spec(suiteId, t.id), ac.signal)),
      ac.signal,
    );
    // Two run on the 2-CPU node, the third waits in the queue.
    await until(
      () => queuedJobs(`suite=${suiteId} `).filter((l) => l.includes("|RUNNING|")).length >= 2,
      60_000,
      "2 running",
    );
    expect(queuedJobs(`suite=${suiteId} `)).toHaveLength(3);
    const t0 = Date.now();
    ac.abort();
    await until(() => queuedJobs(`suite=${suiteId} `).length === 0, 15_000, "all jobs gone");
    const gone = Date.now() - t0;
    await all;
    await ex.close();
    expect(gone).toBeLessThan(15_000);
    expect(results).toHaveLength(3);
    expect(results.every((r) => r.cancelled === true && r.outcome === "infra_error")).toBe(true);
    console.log(`[test/slurm] cancel: every job gone from squeue ${gone} ms after the abort`);
  }, 120_000);

  it("two runs asking for 1 GPU each on a 1-GPU node never overlap", async () => {
    const agent =
      'echo "$(date +%s.%N) $CUDA_VISIBLE_DEVICES" > "$LOGS_DIR/start"; sleep 3; date +%s.%N > "$LOGS_DIR/end"';
    const config = configFor(
      { agent: { command: agent }, limits: { time: 60, gpus: 1 } },
      { maxConcurrent: 2 },
    );
    const { ex, suiteId } = await open(config);
    const specs = [spec(suiteId, "g1"), spec(suiteId, "g2")];
    const rs = await Promise.all(specs.map((s) => attemptOn(ex, s)));
    expect(rs.map((r) => r.outcome)).toEqual(["completed", "completed"]);
    const span = specs.map((s) => {
      const [start, cvd] = readFileSync(join(s.runDir, "logs", "start"), "utf8")
        .trim()
        .split(" ");
      return { start: Number(start), end: Number(readFileSync(join(s.runDir, "logs", "end"), "utf8")), cvd };
    });
    expect(span.map((s) => s.cvd)).toEqual(["0", "0"]);
    expect(rs.map((r) => r.details?.cudaVisibleDevices)).toEqual(["0", "0"]);
    const [a, b] = span.sort((x, y) => x.start - y.start);
    expect(b.start).toBeGreaterThanOrEqual(a.end);
  }, 120_000);

  it("cancels the jobs a crashed suite left behind when the next suite opens", async () => {
    // A process that ran and is gone: its jobs are orphans.
    const dead = spawnSync("true").pid!;
    const comment = jobComment("crashed-suite", "r1", `${hostname()}:${dead}`);
    const id = execFileSync(
      "sbatch",
      [
        "--parsable",
        `--comment=${comment}`,
        "--job-name=medalist-crashed",
        `--output=${shared}/crashed.log`,
        "--wrap",
        "sleep 300",
      ],
      { encoding: "utf8" },
    ).trim();
    await until(() => queuedJobs("suite=crashed-suite ").length === 1, 15_000, "orphan queued");
    const lines: string[] = [];
    const config = configFor();
    // The descriptor's sweep runs before open (execute/backends.ts), as for every executor.
    await slurmBackend.sweep({ config, log: (l) => lines.push(l) });
    const ex = await openSlurm({
      config,
      agent: config.agent,
      baseDir: root,
      suiteId: `t${process.pid}-sweep`,
      label: "head",
      log: (l) => lines.push(l),
    });
    opened.push(ex);
    expect(lines).toContain(`cancelled 1 Slurm job(s) left by a crashed suite: ${id}`);
    await until(() => queuedJobs("suite=crashed-suite ").length === 0, 15_000, "orphan gone");
  }, 60_000);

  const image = "medalist-test-busybox:1";
  const hasDocker = spawnSync("docker", ["image", "inspect", image]).status === 0;
  it.skipIf(!hasDocker)(
    "docker mode: the agent runs in a container on the node, public data read-only",
    async () => {
      const agent =
        'cp /home/data/sample.csv /home/submission/submission.csv; ls /home > /home/logs/ls; touch /home/data/x 2>/dev/null && echo writable > /home/logs/data; echo "$COMPETITION_ID" > /home/logs/cid';
      const config = configFor(
        { agent: { image, command: ["/bin/sh", "-c", agent] }, limits: { time: 60, memory: "256m" } },
        { mode: "docker" },
      );
      const { ex, suiteId } = await open(config);
      const sp = spec(suiteId, "in-docker");
      writeFileSync(join(sp.publicDir, "sample.csv"), "id,y\n1,0\n");
      const r = await attemptOn(ex, sp);
      expect(r.outcome).toBe("completed");
      expect(readFileSync(join(sp.runDir, "submission", "submission.csv"), "utf8")).toBe("id,y\n1,0\n");
      expect(readFileSync(join(sp.runDir, "logs", "ls"), "utf8").split("\n")).toEqual(
        expect.arrayContaining(["data", "submission", "logs", "code", "instructions.txt"]),
      );
      expect(existsSync(join(sp.runDir, "logs", "data"))).toBe(false);
      expect(readFileSync(join(sp.runDir, "logs", "cid"), "utf8").trim()).toBe("toy-churn");
      // The container is gone after the job.
      expect(dockerContainers(suiteId)).toBe("");
    },
    120_000,
  );

  it.skipIf(!hasDocker)(
    "docker mode: a read-only root; /home/agent and HOME keep the image's files and are writable; /tmp is refused at its size; the volumes go with the container",
    async () => {
      // An MLE-bench-style image: files of its own in /home/agent and in the container user's HOME
      // (from /etc/passwd: the job runs as the runner's uid, or 65534 for root).
      const [uid, gid] = defaultAgentUser().split(":");
      const tag = `medalist-test-slurm-ro:${process.pid}`;
      const ctx = mkdtempSync(join(tmpdir(), "medalist-slurm-ro-"));
      writeFileSync(
        join(ctx, "Dockerfile"),
        [
          `FROM ${image}`,
          "RUN mkdir -p /home/agent/sub /home/me/.cache && echo from-image > /home/agent/sub/f && echo cached > /home/me/.cache/c" +
            ` && { echo 'me:x:${uid}:${gid}::/home/me:/bin/sh'; grep -v '^[^:]*:[^:]*:${uid}:' /etc/passwd; } > /p && cat /p > /etc/passwd && rm /p` +
            ` && chown -R ${uid}:${gid} /home/agent /home/me`,
          "",
        ].join("\n"),
      );
      const built = spawnSync("docker", ["build", "--network", "none", "-q", "-t", tag, ctx], {
        encoding: "utf8",
      });
      expect(built.status, built.stderr).toBe(0);
      try {
        const agent = [
          "cat /home/agent/sub/f $HOME/.cache/c > /home/logs/kept",
          "echo new > /home/agent/new && echo h > $HOME/h && echo ok > /home/logs/places",
          "touch /x 2>/dev/null || echo / >> /home/logs/refused",
          "touch /etc/x 2>/dev/null || echo /etc >> /home/logs/refused",
          "touch /usr/x 2>/dev/null || echo /usr >> /home/logs/refused",
          "head -c 40m /dev/zero > /tmp/big 2>/home/logs/tmp-err; echo $? > /home/logs/tmp-rc; wc -c < /tmp/big > /home/logs/tmp-size",
          "cp /home/data/sample.csv /home/submission/submission.csv",
          "echo ready > /home/logs/ready",
          // The test inspects the running container, then lets it end.
          "i=0; while [ ! -e /home/code/go ] && [ $i -lt 900 ]; do sleep 0.1; i=$((i+1)); done",
        ].join("; ");
        const config = configFor(
          {
            agent: { image: tag, command: ["/bin/sh", "-c", agent] },
            limits: { time: 120, memory: "256m", disk: { tmp: "16m" } },
          },
          { mode: "docker" },
        );
        const { ex, suiteId } = await open(config);
        const sp = spec(suiteId, "docker-ro", { timeLimitSecs: 120 });
        writeFileSync(join(sp.publicDir, "sample.csv"), "id,y\n1,0\n");
        const running = attemptOn(ex, sp);
        await until(() => existsSync(join(sp.runDir, "logs", "ready")), 90_000, "agent ready");
        const name = jobName(suiteId, sp.runId);
        const inspect = spawnSync(
          "docker",
          [
            "inspect",
            "-f",
            "{{.HostConfig.ReadonlyRootfs}}|{{range .Mounts}}{{.Type}}={{.Destination}}={{.Name}} {{end}}|{{json .HostConfig.Tmpfs}}",
            name,
          ],
          { encoding: "utf8" },
        );
        expect(inspect.status, inspect.stderr).toBe(0);
        const [readOnly, mounts, tmpfs] = inspect.stdout.trim().split("|");
        expect(readOnly).toBe("true");
        const volumes = mounts
          .split(" ")
          .filter((m) => m.startsWith("volume="))
          .map((m) => m.split("="));
        expect(volumes.map((v) => v[1]).sort()).toEqual(["/home/agent", "/home/me"]);
        expect(JSON.parse(tmpfs)).toEqual({
          "/tmp": "rw,nosuid,nodev,size=16777216,mode=1777",
          "/var/tmp": "rw,nosuid,nodev,size=16777216,mode=1777",
        });
        writeFileSync(join(sp.runDir, "code", "go"), "");
        const r = await running;
        expect(r.outcome).toBe("completed");
        const logs = (f: string) => readFileSync(join(sp.runDir, "logs", f), "utf8");
        expect(logs("kept")).toBe("from-image\ncached\n");
        expect(logs("places")).toBe("ok\n");
        expect(logs("refused").split("\n").filter(Boolean)).toEqual(["/", "/etc", "/usr"]);
        expect(logs("tmp-rc").trim()).not.toBe("0");
        // busybox's head says "I/O error"; the write stopped at the size: /tmp is full at 16 MiB.
        expect(logs("tmp-err")).toMatch(/error/i);
        expect(Number(logs("tmp-size").trim())).toBeLessThanOrEqual(16 * 1024 ** 2);
        expect(Number(logs("tmp-size").trim())).toBeGreaterThan(15 * 1024 ** 2);
        expect(readFileSync(join(sp.runDir, "run.log"), "utf8")).toContain(
          "read-only root filesystem: the agent can write only to /tmp, /var/tmp, /dev/shm, /home/submission, /home/logs, /home/code, /home/agent, /home/me",
        );
        // The container and its volumes are gone after the job.
        await containersGone(suiteId);
        for (const [, , vol] of volumes)
          expect(spawnSync("docker", ["volume", "inspect", vol]).status).not.toBe(0);
      } finally {
        spawnSync("docker", ["rmi", "-f", tag]);
      }
    },
    240_000,
  );

  it.skipIf(!hasDocker)(
    "docker mode: the job script finds HOME from the image's ENV HOME, and none for a HOME of /",
    () => {
      const ctx = mkdtempSync(join(tmpdir(), "medalist-slurm-home-"));
      const lookup = (env: string) => {
        const tag = `medalist-test-slurm-home:${process.pid}`;
        writeFileSync(join(ctx, "Dockerfile"), `FROM ${image}\nENV HOME=${env}\n`);
        const built = spawnSync("docker", ["build", "--network", "none", "-q", "-t", tag, ctx], {
          encoding: "utf8",
        });
        expect(built.status, built.stderr).toBe(0);
        try {
          const s = slurmSettings(
            configFor({ agent: { image: tag, command: "true" } }, { mode: "docker" }) as never,
            { image: tag, command: "true" } as never,
            root,
            "h:1",
            "s",
          );
          const lines = planJob(spec("s", "home"), s).script.split("\n");
          const from = lines.findIndex((l) => l.startsWith("image="));
          const to = lines.findLastIndex((l) => l.startsWith('case "$home"'));
          const body = `${lines.slice(from, to + 1).join("\n")}\nprintf %s "$home"`;
          return execFileSync("/bin/sh", ["-c", body], { encoding: "utf8" });
        } finally {
          spawnSync("docker", ["rmi", "-f", tag]);
        }
      };
      expect(lookup("/work/me/")).toBe("/work/me");
      expect(lookup("/")).toBe("");
    },
    120_000,
  );

  it.skipIf(!hasDocker)(
    "docker mode: a hanging container is stopped at the limit, nothing left",
    async () => {
      const config = configFor(
        { agent: { image, command: ["/bin/sh", "-c", "trap '' TERM; while :; do sleep 1; done"] } },
        { mode: "docker" },
      );
      const { ex, suiteId } = await open(config);
      const r = await attemptOn(ex, spec(suiteId, "docker-hang", { timeLimitSecs: 3 }));
      expect(r.outcome).toBe("timed_out");
      await until(() => queuedJobs(`suite=${suiteId} `).length === 0, 15_000, "job gone");
      await containersGone(suiteId);
    },
    120_000,
  );

  it.skipIf(!hasDocker)(
    "docker mode: a container over its memory limit is oom",
    async () => {
      const config = configFor(
        {
          agent: { image, command: ["/bin/sh", "-c", "head -c 400m /dev/zero | tail > /dev/null"] },
          limits: { time: 60, memory: "64m" },
        },
        { mode: "docker" },
      );
      const { ex, suiteId } = await open(config);
      const r = await attemptOn(ex, spec(suiteId, "docker-hog"));
      expect(r).toMatchObject({
        outcome: "oom",
        error: expect.stringContaining("container ran out of memory"),
      });
    },
    120_000,
  );

  it("SIGINT to `medalist run` cancels every job of the suite within 15 s", async () => {
    const dir = mkdtempSync(join(shared, "cli-"));
    const cfg = join(dir, "medalist.json");
    writeFileSync(
      cfg,
      JSON.stringify({
        name: "slurm-cli-cancel",
        competitions: { include: ["toy-churn", "toy-species", "toy-house-prices"] },
        seeds: 1,
        agent: { command: "trap '' TERM; while :; do sleep 1; done" },
        limits: { time: 120 },
        dataDir,
        executor: "slurm",
        slurm: { sharedDir: shared, maxConcurrent: 3, poll: { minSecs: 0.5, maxSecs: 2 } },
      }),
    );
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "src/cli.ts", "run", "--config", cfg, "--out", join(dir, "out")],
      {
        cwd: root,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const mine = "medalist suite=head-";
    try {
      await until(
        () => queuedJobs(mine).filter((l) => l.includes("|RUNNING|")).length >= 2,
        90_000,
        "2 running",
      );
      expect(queuedJobs(mine)).toHaveLength(3);
      const t0 = Date.now();
      child.kill("SIGINT");
      await until(() => queuedJobs(mine).length === 0, 15_000, "every job gone");
      const gone = Date.now() - t0;
      await exited;
      expect(output).toContain("SIGINT received");
      console.log(`[test/slurm] CLI SIGINT: every job gone from squeue ${gone} ms after the signal`);
    } finally {
      child.kill("SIGKILL");
    }
  }, 180_000);

  it("fails closed with the reason: a bad partition, a run folder or data outside sharedDir", async () => {
    const { ex, suiteId } = await open(configFor({}, { partition: "no-such-partition" }));
    const r = await attemptOn(ex, spec(suiteId, "bad-partition"));
    expect(r).toMatchObject({ outcome: "infra_error", retryable: false });
    expect(r.error).toMatch(/^sbatch failed: .*invalid partition/i);

    const outside = mkdtempSync(join(tmpdir(), "medalist-not-shared-"));
    const r2 = await attemptOn(ex, { ...spec(suiteId, "outside"), runDir: outside });
    expect(r2).toMatchObject({ outcome: "infra_error", retryable: false });
    expect(r2.error).toContain(`the run folder ${outside} is not inside slurm.sharedDir`);

    const bad = configFor({ dataDir: join(outside, "data") });
    await expect(
      openSlurm({ config: bad, agent: bad.agent, baseDir: root, suiteId: "x", label: "head", log: () => {} }),
    ).rejects.toThrow(/^dataDir: .* is not inside slurm.sharedDir/);
  }, 60_000);

  it("runs shards: each shard submits only its own runs, and the merge has them all", async () => {
    const dir = mkdtempSync(join(shared, "shards-"));
    writeFileSync(
      join(dir, "medalist.json"),
      JSON.stringify({
        name: "slurm-shards",
        competitions: { include: ["toy-churn", "toy-species"] },
        seeds: 1,
        agent: { command: `node ${root}/examples/agents/strong/agent.mjs` },
        limits: { time: 60 },
        dataDir,
        executor: "slurm",
        slurm: { sharedDir: shared, poll: { minSecs: 0.5, maxSecs: 2 } },
      }),
    );
    const cli = (...args: string[]) =>
      // The bundled CLI (CI checks that dist/ is fresh before the tests).
      spawnSync(process.execPath, [join(root, "dist/cli.js"), ...args], {
        cwd: dir,
        encoding: "utf8",
        timeout: 120_000,
      });
    const plan = cli("plan", "--config", "medalist.json", "--shards", "2", "--json", "--out", "plan.json");
    expect(plan.status, plan.stderr).toBe(0);
    for (const i of [1, 2]) {
      const r = cli(
        "run",
        "--config",
        "medalist.json",
        "--shard",
        `${i}/2`,
        "--plan",
        "plan.json",
        "--out",
        `s${i}`,
      );
      expect(r.status, r.stderr).toBe(0);
      const shard = JSON.parse(readFileSync(join(dir, `s${i}`, "head", "results.json"), "utf8"));
      expect(shard.runs).toHaveLength(1);
      expect(shard.runs[0].details.slurmJobId).toMatch(/^\d+$/);
    }
    const merged = cli("merge", "--out", "merged.json", "s1/head/results.json", "s2/head/results.json");
    expect(merged.status, merged.stderr).toBe(0);
    const all = JSON.parse(readFileSync(join(dir, "merged.json"), "utf8"));
    expect(all.runs.map((r: { outcome: string }) => r.outcome)).toEqual(["completed", "completed"]);
  }, 240_000);
});
