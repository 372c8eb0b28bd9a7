// What gVisor costs: the same runs under runc and runsc (gVisor), interleaved, in one process.
// Agent start-up (a no-op run through the Docker executor, create to remove), a CPU-bound and two
// IO-bound toy workloads timed inside the container, and the localhost:5000 format-check round
// trip (runc: the sidecar; runsc: the relay in the agent's sandbox). Ratios are runsc / runc.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Docker from "dockerode";
import { cleanupSuite } from "../src/execute/docker/cleanup.js";
import { runAttempt } from "../src/execute/attempt.js";
import { DockerExecutor } from "../src/execute/docker/executor.js";
import { sidecarRoot } from "../src/execute/container/validate-sidecar.js";
import { runPaths, type RunSpec } from "../src/execute/types.js";
import { startValidationServer } from "../src/execute/validation-server.js";

const IMAGE = process.env.MEDALIST_MLEBENCH_ENV_IMAGE ?? "medalist-test-mlebench-env:1";
const RUNS = Number(process.env.BENCH_SANDBOX_RUNS ?? 5);
const RUNTIMES = ["runc", "runsc"] as const;

/** The workloads, timed inside the container; one JSON line on stdout. */
const WORKLOAD = `import json, os, time, urllib.request
def timed(f):
    t = time.perf_counter(); f(); return (time.perf_counter() - t) * 1000
def cpu():
    s = 0
    for i in range(3_000_000):
        s += i * i % 7
def big_file():
    p = "/home/logs/big.bin"; block = os.urandom(1 << 20)
    with open(p, "wb") as f:
        for _ in range(64):
            f.write(block)
        f.flush(); os.fsync(f.fileno())
    with open(p, "rb") as f:
        while f.read(1 << 20):
            pass
    os.remove(p)
def small_files():
    d = "/home/logs/small"; os.makedirs(d)
    for i in range(1000):
        with open("%s/%d.txt" % (d, i), "w") as f:
            f.write("x" * 100)
    for n in os.listdir(d):
        os.stat(os.path.join(d, n)); os.remove(os.path.join(d, n))
    os.rmdir(d)
body = b"--b\\r\\ncontent-disposition: form-data; name=\\"file\\"; filename=\\"s.csv\\"\\r\\ncontent-type: text/csv\\r\\n\\r\\nid,target\\n1,0\\n2,0\\n3,0\\n\\r\\n--b--\\r\\n"
def validate():
    req = urllib.request.Request("http://localhost:5000/validate", data=body, headers={"content-type": "multipart/form-data; boundary=b"})
    with urllib.request.urlopen(req, timeout=60) as r:
        assert b"valid" in r.read().lower()
# The relay starts with the agent (docker exec): wait until it answers, as an agent would.
for _ in range(100):
    try:
        validate(); break
    except OSError:
        time.sleep(0.1)
out = {"cpu": timed(cpu), "bigFile": timed(big_file), "smallFiles": timed(small_files)}
rounds = [timed(validate) for _ in range(10)]
out["validate"] = sorted(rounds)[len(rounds) // 2]
print("BENCH " + json.dumps(out), flush=True)
`;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

type Metric = "startup" | "cpu" | "bigFile" | "smallFiles" | "validate";

export async function benchSandbox(): Promise<string> {
  const title = "## Sandbox cost: runc vs runsc (gVisor) (bench/sandbox.ts)";
  const docker = new Docker();
  try {
    await docker.ping();
    await docker.getImage(IMAGE).inspect();
    const info = (await docker.info()) as { Runtimes?: Record<string, unknown> };
    if (!Object.keys(info.Runtimes ?? {}).includes("runsc"))
      throw new Error("the daemon has no runsc runtime");
  } catch (e) {
    return `${title}\n\nSkipped: ${(e as Error).message}. Run scripts/ci-docker.sh (it registers runsc).`;
  }
  const root = await mkdtemp(path.join(os.tmpdir(), "medalist-bench-sandbox-"));
  const publicDir = path.join(root, "public");
  await mkdir(publicDir);
  const sample = path.join(publicDir, "sample_submission.csv");
  await writeFile(sample, "id,target\n1,0\n2,0\n3,0\n");
  const suiteId = `bench-sandbox-${process.pid}`;
  const server = await startValidationServer({ requestsPerRun: 1000 });
  const sockets = sidecarRoot();
  const executor = (runtime: string, command: string[], local: boolean) => {
    const ex = new DockerExecutor(docker, {
      image: IMAGE,
      command,
      entrypoint: "none",
      limits: { memory: 2 * 1024 ** 3, cpus: 1, pids: 4096 },
      network: "none",
      stopGraceSecs: 1,
      runtime,
      serveLocalhost5000: local,
    });
    if (local) ex.localValidate = { server, root: sockets.dir };
    return ex;
  };
  let n = 0;
  const spec = (extra: Partial<RunSpec> = {}): RunSpec => {
    const runId = `r${++n}`;
    return {
      runId,
      suiteId,
      competitionId: "bench",
      seed: 0,
      publicDir,
      runDir: path.join(root, "runs", runId),
      timeLimitSecs: 300,
      env: {},
      gpus: [],
      ...extra,
    };
  };
  const results: Record<string, Record<Metric, number[]>> = {};
  for (const rt of RUNTIMES)
    results[rt] = { startup: [], cpu: [], bigFile: [], smallFiles: [], validate: [] };
  const startup = async (rt: string) => {
    const ex = executor(
      rt,
      ["/bin/sh", "-c", "cp /home/data/sample_submission.csv /home/submission/"],
      false,
    );
    const t0 = performance.now();
    const r = await runAttempt(spec(), undefined, ex.driver());
    if (r.outcome !== "completed") throw new Error(`no-op run under ${rt} ended ${r.outcome}: ${r.error}`);
    return performance.now() - t0;
  };
  const workload = async (rt: string) => {
    const s = spec();
    s.validationUrl = server.register("bench", sample, s.runId);
    await mkdir(s.runDir, { recursive: true });
    const ex = executor(rt, ["python3", "-c", WORKLOAD], true);
    const r = await runAttempt(s, undefined, ex.driver());
    const log = await readFile(runPaths(s.runDir).logFile, "utf8");
    const line = /BENCH (\{.*\})/.exec(log);
    if (r.outcome !== "completed" || !line)
      throw new Error(`the workload under ${rt} ended ${r.outcome}: ${r.error ?? log.slice(-500)}`);
    return JSON.parse(line[1]) as Record<Exclude<Metric, "startup">, number>;
  };
  try {
    for (const rt of RUNTIMES) {
      await startup(rt);
      await workload(rt);
    }
    // Interleaved, so drift on the runner affects both alike.
    for (let i = 0; i < RUNS; i++)
      for (const rt of RUNTIMES) {
        results[rt].startup.push(await startup(rt));
        const w = await workload(rt);
        for (const k of ["cpu", "bigFile", "smallFiles", "validate"] as const) results[rt][k].push(w[k]);
      }
  } finally {
    await cleanupSuite(docker, suiteId, { graceSecs: 0 }).catch(() => {});
    await server.close();
    sockets.remove();
    await rm(root, { recursive: true, force: true });
  }
  const rows: [Metric, string][] = [
    ["startup", "agent start-up: a no-op run, create to remove"],
    ["cpu", "CPU-bound: 3 M Python loop iterations"],
    ["bigFile", "IO: write, fsync and read back 64 MiB in /home/logs"],
    ["smallFiles", "IO: create, stat and remove 1000 small files in /home/logs"],
    ["validate", "localhost:5000/validate round trip (runc: sidecar; runsc: relay)"],
  ];
  const ms = (x: number) => `${x.toFixed(x < 10 ? 1 : 0)} ms`;
  return [
    title,
    "",
    `${RUNS} runs of each per runtime, interleaved, image \`${IMAGE}\`, network none, 1 CPU and 2 GiB per container. ` +
      "Start-up is timed by Medalist around the whole run; the workloads are timed inside the container " +
      "(Python's perf_counter) and the round trip is the median of 10 posts of a 3-row CSV per run.",
    "",
    "| what | runc (median) | runsc (median) | runsc / runc |",
    "| --- | --- | --- | --- |",
    ...rows.map(([k, label]) => {
      const a = median(results.runc[k]);
      const b = median(results.runsc[k]);
      return `| ${label} | ${ms(a)} | ${ms(b)} | **${(b / a).toFixed(2)}×** |`;
    }),
  ].join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await benchSandbox());
