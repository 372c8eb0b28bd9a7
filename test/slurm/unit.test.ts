import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { orphans } from "../../src/execute/slurm/cleanup.js";
import { jobComment, parseComment, planJob } from "../../src/execute/slurm/job.js";
import type { CommandRunner } from "../../src/execute/slurm/runner.js";
import { classify, parseJobId, parseSacct, phaseOf, type JobRecord } from "../../src/execute/slurm/sacct.js";
import { slurmSettings } from "../../src/execute/slurm/settings.js";
import { JobTracker } from "../../src/execute/slurm/tracker.js";
import type { RunSpec } from "../../src/execute/types.js";

const base = {
  competitions: { include: ["toy-tabular"] },
  agent: { command: "python agent.py", env: { MODEL: "x" } },
  executor: "slurm" as const,
  slurm: { sharedDir: "/shared/ci" },
};

function settings(
  over: Record<string, unknown> = {},
  limits: Record<string, unknown> = {},
  agent = base.agent,
) {
  const config = configSchema().parse({
    ...base,
    agent,
    limits: { time: 600, ...limits },
    slurm: { ...base.slurm, ...over },
  });
  return slurmSettings(config, config.agent, "/repo", "login1:4242", "head-abc12345-xyz");
}

const spec: RunSpec = {
  runId: "toy-tabular-s0",
  suiteId: "head-abc12345-xyz",
  competitionId: "toy-tabular",
  seed: 0,
  publicDir: "/shared/ci/data/toy-tabular/prepared/public",
  runDir: "/shared/ci/out/runs/toy-tabular-s0",
  timeLimitSecs: 600,
  env: { MODEL: "x", API_KEY: "sk-secret" },
  gpus: [],
  secretEnv: ["API_KEY"],
};

describe("config", () => {
  it("executor slurm needs a shared folder and reports its path", () => {
    const r = configSchema().safeParse({ ...base, slurm: {} });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join("."))).toContain("slurm.sharedDir");
  });

  it("container modes need an image", () => {
    const r = configSchema().safeParse({ ...base, slurm: { sharedDir: "/s", mode: "docker" } });
    expect(r.error!.issues.map((i) => i.path.join("."))).toContain("agent.image");
  });

  it("rejects an unknown key in the slurm block with its path", () => {
    const r = configSchema().safeParse({ ...base, slurm: { sharedDir: "/s", partion: "gpu" } });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error!.issues)).toContain("partion");
  });
});

describe("sbatch arguments", () => {
  it("maps limits, GPUs and the cluster options; --time is the limit plus grace", () => {
    const s = settings(
      {
        partition: "gpu",
        account: "ml",
        qos: "ci",
        constraint: "a100",
        sbatchArgs: ["--reservation=r1"],
        graceSecs: 120,
      },
      { cpus: 3.5, memory: "1.5g", gpus: 2 },
    );
    const p = planJob(spec, s, { PATH: "/usr/bin", SECRET_OF_RUNNER: "no" });
    expect(p.args).toEqual([
      "--parsable",
      "--no-requeue",
      "--job-name=medalist-head-abc12345-xyz-toy-tabular-s0",
      "--comment=medalist suite=head-abc12345-xyz run=toy-tabular-s0 owner=login1:4242",
      "--output=/shared/ci/out/runs/toy-tabular-s0/.slurm-stdout",
      "--error=/shared/ci/out/runs/toy-tabular-s0/.slurm-stderr",
      "--open-mode=append",
      "--chdir=/shared/ci/out/runs/toy-tabular-s0",
      "--time=12",
      "--ntasks=1",
      "--cpus-per-task=4",
      "--mem=1536M",
      "--gres=gpu:2",
      "--partition=gpu",
      "--account=ml",
      "--qos=ci",
      "--constraint=a100",
      "--export=ALL",
      "--reservation=r1",
      "/shared/ci/out/runs/toy-tabular-s0/slurm-job.sh",
    ]);
    // Secrets travel in sbatch's environment, never on its command line; the runner's others stay home.
    expect(p.args.join(" ")).not.toContain("sk-secret");
    expect(p.env.API_KEY).toBe("sk-secret");
    expect(p.env.SECRET_OF_RUNNER).toBeUndefined();
    expect(p.env.DATA_DIR).toBe(spec.publicDir);
    expect(p.env.TIME_LIMIT_SECS).toBe("600");
  });

  it("--gpus with a type", () => {
    const p = planJob(spec, settings({ gpuFlag: "gpus", gpuType: "h100" }, { gpus: 1 }));
    expect(p.args).toContain("--gpus=h100:1");
    expect(p.args.some((a) => a.startsWith("--gres"))).toBe(false);
  });

  it("command mode checks the shared folder, records node facts, then execs the agent", () => {
    const p = planJob(spec, settings());
    expect(p.script).toContain("if [ ! -f '/shared/ci/.medalist-shared-head-abc12345-xyz' ]");
    expect(p.script).toContain("exit 97");
    expect(p.script).toContain('echo "cuda_visible_devices=${CUDA_VISIBLE_DEVICES:-}"');
    expect(p.script).toContain("cd '/repo' || exit 96");
    expect(p.script).toContain("exec '/bin/sh' '-c' 'python agent.py'");
    expect(p.script).not.toContain("sk-secret");
  });

  it("docker mode mounts public data read-only, never the private folder, and passes env by name", () => {
    const s = settings({ mode: "docker" }, { memory: "2g", gpus: 1 }, {
      image: "agent:1",
      env: {},
    } as never);
    const p = planJob(spec, s);
    expect(p.script).toContain("-v '/shared/ci/data/toy-tabular/prepared/public:/home/data:ro'");
    expect(p.script).not.toContain("private");
    expect(p.script).toContain("--memory 2147483648 --memory-swap 2147483648");
    expect(p.script).toContain('--gpus "device=$CUDA_VISIBLE_DEVICES"');
    expect(p.script).toContain("-e API_KEY");
    expect(p.script).not.toContain("sk-secret");
    expect(p.env.DATA_DIR).toBe("/home/data");
    expect(p.script).toContain('trap \'docker stop -t 10 "$name"');
    // Locked down as with the Docker executor: no capabilities, no new privileges, not root.
    expect(p.script).toContain("--security-opt no-new-privileges --cap-drop ALL --user ");
    expect(p.script).not.toMatch(/--user 0(:|\s)/);
  });

  it("docker mode: a read-only root with sized /tmp and /var/tmp and volumes for the writable places; limits.disk.root: writable keeps the root", () => {
    const img = { image: "agent:1", env: {} } as never;
    const p = planJob(
      spec,
      settings({ mode: "docker" }, { memory: "2g", disk: { writable: ["/opt/venv"] } }, img),
    );
    // /tmp defaults to a quarter of the memory limit, at most 1 GiB (as the Docker executor's).
    expect(p.script).toContain(
      "--read-only --tmpfs '/tmp:rw,nosuid,nodev,size=536870912,mode=1777' --tmpfs '/var/tmp:rw,nosuid,nodev,size=536870912,mode=1777'" +
        " --mount 'type=volume,\"dst=/home/agent\"' --mount 'type=volume,\"dst=/opt/venv\"' ${home:+--mount type=volume,dst=$home}",
    );
    // The container's anonymous volumes are removed with it.
    expect(p.script.match(/docker rm -f -v "\$name"/g)).toHaveLength(2);
    const sized = planJob(spec, settings({ mode: "docker" }, { disk: { tmp: "64m" } }, img));
    expect(sized.script).toContain("--tmpfs '/tmp:rw,nosuid,nodev,size=67108864,mode=1777'");
    const writable = planJob(spec, settings({ mode: "docker" }, { disk: { root: "writable" } }, img));
    expect(writable.script).not.toContain("--read-only");
    expect(writable.script).not.toContain("--tmpfs");
    expect(writable.script).not.toContain("$home");
  });

  it("docker mode: the image's HOME gets a place of its own only when it is a plain absolute path not already writable or reserved", () => {
    const img = { image: "agent:1", env: {} } as never;
    const p = planJob(spec, settings({ mode: "docker" }, { disk: { writable: ["/opt/venv"] } }, img));
    const lines = p.script.split("\n");
    const from = lines.findIndex((l) => l.startsWith('while [ "${home%/}"'));
    const to = lines.findLastIndex((l) => l.startsWith('case "$home"'));
    expect(from).toBeGreaterThan(0);
    const filter = lines.slice(from, to + 1).join("\n");
    const picked = (home: string) =>
      execFileSync("/bin/sh", ["-c", `home=$1\n${filter}\nprintf %s "$home"`, "sh", home], {
        encoding: "utf8",
      });
    expect(picked("/home/me/")).toBe("/home/me");
    expect(picked("/root")).toBe("/root");
    for (const h of [
      "/",
      "/home",
      "/home/agent",
      "/opt/venv",
      "/tmp",
      "/tmp/x",
      "/home/logs/h",
      "/home/data",
      "/dev/shm",
      "/nonexistent",
      "relative",
      "/home/../etc",
      "/a,b",
      "/a b",
      "/x;touch /pwned",
      "/$(id)",
    ])
      expect(picked(h), h).toBe("");
  });

  it("apptainer and pyxis modes", () => {
    const img = { image: "docker://agent:1", command: ["python", "a.py"], env: {} } as never;
    const a = planJob(spec, settings({ mode: "apptainer" }, { gpus: 1 }, img));
    expect(a.script).toContain('export APPTAINERENV_API_KEY="$API_KEY"');
    expect(a.script).toMatch(
      /exec 'apptainer' exec --containall --cleanenv --no-home --nv --bind '.*:\/home\/data:ro/,
    );
    const y = planJob(spec, settings({ mode: "pyxis" }, {}, img));
    expect(y.script).toContain("exec srun --ntasks=1 --container-image='docker://agent:1'");
    expect(y.script).toContain("'python' 'a.py'");
  });

  it("quotes hostile values for the shell", () => {
    const p = planJob({ ...spec, runDir: "/shared/ci/out/it's $(rm -rf /)" }, settings());
    expect(p.script).toContain(`facts='/shared/ci/out/it'\\''s $(rm -rf /)/.medalist-node'`);
  });
});

describe("sacct", () => {
  const out = [
    "2|FAILED|0:9|1|vm||medalist-a",
    "2.batch|CANCELLED by 0|0:9|1|vm|434749440|batch",
    "3|COMPLETED|0:0|3|vm||medalist-b",
    "3.batch|COMPLETED|0:0|3|vm|3260416|batch",
    "4|NODE_FAIL|0:0|1|vm||medalist-c",
    "4.batch|CANCELLED||1|vm||batch",
    "5|PENDING|0:0|0|None assigned||medalist-d",
    "6|FAILED|3:0|12|gpu01|1.5G|medalist-e",
  ].join("\n");
  const jobs = parseSacct(out);
  const ctx = { timeLimitSecs: 60, facts: {} };

  it("folds steps into their job and keeps the peak memory", () => {
    expect([...jobs.keys()]).toEqual(["2", "3", "4", "5", "6"]);
    expect(jobs.get("2")).toMatchObject({ state: "FAILED", exitCode: 0, signal: 9, maxRssBytes: 434749440 });
    expect(jobs.get("6")!.maxRssBytes).toBe(1.5 * 2 ** 30);
    expect(phaseOf(jobs.get("5")!.state)).toBe("waiting");
    expect(phaseOf("RUNNING")).toBe("running");
    expect(phaseOf("OUT_OF_MEMORY")).toBe("ended");
  });

  it("maps Slurm's states to outcomes", () => {
    const job = (state: string, over: Partial<JobRecord> = {}): JobRecord => ({
      jobId: "1",
      state,
      exitCode: 0,
      signal: 0,
      elapsedSecs: 5,
      nodeList: "gpu01",
      name: "medalist-x",
      maxRssBytes: null,
      ...over,
    });
    expect(classify(job("COMPLETED"), ctx)).toEqual({ outcome: "completed", exitCode: 0 });
    expect(classify(job("FAILED", { exitCode: 3 }), ctx)).toMatchObject({
      outcome: "failed",
      exitCode: 3,
      error: "agent exited with code 3",
    });
    expect(classify(job("TIMEOUT"), ctx).outcome).toBe("timed_out");
    expect(classify(job("OUT_OF_MEMORY", { exitCode: 0, signal: 9 }), ctx).outcome).toBe("oom");
    for (const s of ["NODE_FAIL", "BOOT_FAIL", "PREEMPTED"]) {
      expect(classify(job(s), ctx)).toMatchObject({ outcome: "infra_error", retryable: true });
    }
    // A cancel from outside (Medalist's own are worded by the attempt wrapper): the cause named, retried.
    expect(classify(job("CANCELLED", { cancelledBy: "1001" }), ctx)).toEqual({
      outcome: "infra_error",
      exitCode: 0,
      error:
        "the job was cancelled outside Medalist (scancel by uid 1001, a user or an administrator) on gpu01",
      retryable: true,
    });
    expect(parseSacct("7|CANCELLED by 0|0:15|2|vm||medalist-f").get("7")).toMatchObject({
      state: "CANCELLED",
      cancelledBy: "0",
    });
    // Accounting-based memory enforcement: SIGKILL at a peak over the limit.
    expect(classify(jobs.get("2")!, { ...ctx, memoryBytes: 100 * 2 ** 20 })).toMatchObject({
      outcome: "oom",
      error: "killed by Slurm at 415 MiB peak memory, over the 100 MiB limit",
    });
    // A SIGKILL below the limit is not an out-of-memory.
    expect(classify(jobs.get("2")!, { ...ctx, memoryBytes: 2 ** 30 }).outcome).toBe("failed");
    expect(classify(job("FAILED", { exitCode: 97 }), { ...ctx, facts: null })).toMatchObject({
      outcome: "infra_error",
      retryable: false,
    });
    // An agent that exits 97 itself (facts written) failed.
    expect(classify(job("FAILED", { exitCode: 97 }), ctx).outcome).toBe("failed");
    expect(
      classify(job("FAILED", { exitCode: 137 }), { ...ctx, facts: { container_oom: "true" } }).outcome,
    ).toBe("oom");
  });

  it("reads sbatch --parsable", () => {
    expect(parseJobId("123\n")).toBe("123");
    expect(parseJobId("123;cluster2\n")).toBe("123");
    expect(parseJobId("Submitted batch job 5")).toBeNull();
  });
});

describe("leftovers", () => {
  it("finds jobs of dead owners on this host only", () => {
    const c = (run: string, owner: string) => jobComment("s1", run, owner);
    const q = [
      `11|${c("a", "login1:100")}`,
      `12|${c("b", "login1:200")}`,
      `13|${c("c", "login2:100")}`,
      "14|someone else's job",
      `15|${c("d", `login1:${process.pid}`)}`,
    ].join("\n");
    expect(orphans(q, "login1", (pid) => pid === 200)).toEqual(["11"]);
    expect(parseComment(c("a", "login1:100"))).toEqual({ suite: "s1", run: "a", owner: "login1:100" });
  });
});

describe("tracker", () => {
  it("makes one sacct call per poll for all jobs and backs off while nothing changes", async () => {
    const calls: string[][] = [];
    let state = "RUNNING";
    const runner: CommandRunner = {
      run: async (cmd, args) => {
        calls.push([cmd, ...args]);
        const ids = args[args.length - 1].split(",");
        return {
          code: 0,
          stdout: ids.map((id) => `${id}|${state}|0:0|1|n||job-${id}`).join("\n"),
          stderr: "",
        };
      },
    };
    const t = new JobTracker(runner, { minSecs: 0.01, maxSecs: 0.08 });
    const seen: string[] = [];
    const ended = new Promise<void>((resolve) => {
      t.watch("7", (j) => {
        seen.push(j.state);
        if (j.state === "COMPLETED") {
          t.unwatch("7");
          resolve();
        }
      });
    });
    t.watch("8", () => {});
    await new Promise((r) => setTimeout(r, 400));
    const n = calls.length;
    // Backed off: far fewer polls than 400 ms / 10 ms.
    expect(n).toBeLessThan(20);
    expect(calls.every((c) => c[0] === "sacct" && c.at(-1) === "7,8")).toBe(true);
    state = "COMPLETED";
    await ended;
    t.unwatch("8");
    expect(seen.at(-1)).toBe("COMPLETED");
  });

  it("ignores an older job with the same id (ids reset) until its own record shows up", async () => {
    let calls = 0;
    const runner: CommandRunner = {
      run: async () => ({
        code: 0,
        stdout: ++calls < 3 ? "9|COMPLETED|0:0|5|n||older-job" : "9|RUNNING|0:0|1|n||medalist-new",
        stderr: "",
      }),
    };
    const t = new JobTracker(runner, { minSecs: 0.01, maxSecs: 0.02 });
    const job = await new Promise<JobRecord>((resolve) => t.watch("9", resolve, "medalist-new"));
    t.unwatch("9");
    expect(job).toMatchObject({ state: "RUNNING", name: "medalist-new" });
    expect(calls).toBe(3);
  });

  it("reports a job sacct never lists as LOST (retryable infra error), not a hang", async () => {
    const runner: CommandRunner = { run: async () => ({ code: 0, stdout: "", stderr: "" }) };
    const t = new JobTracker(runner, { minSecs: 0.01, maxSecs: 0.02 }, () => {}, 0.1);
    const job = await new Promise<JobRecord>((resolve) => t.watch("9", resolve));
    t.unwatch("9");
    expect(job.state).toBe("LOST");
    expect(phaseOf("LOST")).toBe("ended");
    const c = classify(job, { timeLimitSecs: 1, facts: null });
    expect(c).toMatchObject({ outcome: "infra_error", retryable: true });
  });
});
