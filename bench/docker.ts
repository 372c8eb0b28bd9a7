// Orchestration overhead per no-op run: Medalist's Docker executor (create, start, wait, collect,
// grade stub) against `docker run --rm` of the same image and command, in the same process.
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Docker from "dockerode";
import { cleanupSuite } from "../src/execute/docker/cleanup.js";
import { runAttempt } from "../src/execute/attempt.js";
import { DockerExecutor } from "../src/execute/docker/executor.js";
import { runPaths, type RunSpec } from "../src/execute/types.js";

const IMAGE = process.env.MEDALIST_TEST_IMAGE ?? "medalist-test-busybox:1";
const RUNS = Number(process.env.BENCH_DOCKER_RUNS ?? 15);
// The agent writes the sample submission back: the least a run can do and still be graded.
const AGENT = "cp /home/data/sample_submission.csv /home/submission/submission.csv";

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Stand-in for grading: read the submission and count its rows. */
async function gradeStub(file: string): Promise<number> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text.split("\n").filter(Boolean).length - 1;
}

export async function benchDocker(): Promise<string> {
  const title = "## Docker executor overhead per run";
  const docker = new Docker();
  try {
    await docker.ping();
    await docker.getImage(IMAGE).inspect();
  } catch (e) {
    return `${title}\n\nSkipped: no Docker daemon with ${IMAGE} (${(e as Error).message}). Run scripts/ci-docker.sh.`;
  }

  const root = await mkdtemp(path.join(os.tmpdir(), "medalist-bench-docker-"));
  const publicDir = path.join(root, "public");
  await mkdir(publicDir);
  await writeFile(path.join(publicDir, "sample_submission.csv"), "id,target\n1,0\n2,0\n");
  const suiteId = `bench-${process.pid}`;
  const ex = new DockerExecutor(docker, {
    image: IMAGE,
    command: ["/bin/sh", "-c", AGENT],
    limits: {},
    network: "bridge",
    stopGraceSecs: 1,
  });
  await ex.prepareImage();

  const medalist = async (i: number) => {
    const spec: RunSpec = {
      runId: `noop-${i}`,
      suiteId,
      competitionId: "bench",
      seed: 0,
      publicDir,
      runDir: path.join(root, "runs", String(i)),
      timeLimitSecs: 60,
      env: {},
      gpus: [],
    };
    const t0 = performance.now();
    const r = await runAttempt(spec, undefined, ex.driver());
    const rows = await gradeStub(runPaths(spec.runDir).submissionFile);
    const ms = performance.now() - t0;
    if (r.outcome !== "completed" || rows !== 2)
      throw new Error(`no-op run ${i} ended ${r.outcome}: ${r.error}`);
    return ms;
  };
  const plain = async (i: number) => {
    const out = path.join(root, "plain", String(i));
    await mkdir(out, { recursive: true });
    const t0 = performance.now();
    const p = spawnSync(
      "docker",
      [
        "run",
        "--rm",
        "-v",
        `${publicDir}:/home/data:ro`,
        "-v",
        `${out}:/home/submission`,
        IMAGE,
        "/bin/sh",
        "-c",
        AGENT,
      ],
      { stdio: "ignore" },
    );
    const ms = performance.now() - t0;
    if (p.status !== 0) throw new Error(`docker run --rm exited ${p.status}`);
    return ms;
  };

  const a: number[] = [];
  const b: number[] = [];
  try {
    await medalist(-1);
    await plain(-1);
    // Interleave so drift in the daemon affects both alike.
    for (let i = 0; i < RUNS; i++) {
      a.push(await medalist(i));
      b.push(await plain(i));
    }
  } finally {
    await cleanupSuite(docker, suiteId, { graceSecs: 0 }).catch(() => {});
    await rm(root, { recursive: true, force: true });
  }
  const ratio = median(a) / median(b);
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  return [
    title,
    "",
    `${RUNS} no-op runs each, interleaved, image \`${IMAGE}\`; the agent copies the sample submission. ` +
      "Medalist: create, start, follow logs, wait, inspect, remove, then read the submission (grade stub). " +
      "Floor: `docker run --rm` with the same mounts and command (CLI included). Goal: ≤ 1.5× the floor.",
    "",
    "| path | median | min | max |",
    "| --- | --- | --- | --- |",
    `| Medalist Docker executor | ${ms(median(a))} | ${ms(Math.min(...a))} | ${ms(Math.max(...a))} |`,
    `| \`docker run --rm\` | ${ms(median(b))} | ${ms(Math.min(...b))} | ${ms(Math.max(...b))} |`,
    "",
    `Ratio (medians): **${ratio.toFixed(2)}×** the floor.`,
  ].join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await benchDocker());
