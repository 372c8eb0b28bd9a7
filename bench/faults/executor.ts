// Executor faults, injected for real into toy suites run by the bundled CLI (`medalist run`, base and
// head): the medalist process killed (kill -9) mid-suite, the Docker daemon restarted (SIGTERM) or
// killed (kill -9) and started again while agents run. Each trial injects at a seeded random moment,
// then runs the same command again (the resume), and compares every run and the verdict with one
// undisturbed run of the same suite. The Docker faults hit a private daemon (scripts/fault-docker.sh),
// never the machine's shared one.
import { execFile, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { coinSuite } from "../../test/helpers/coin-suite.js";
import type { FaultOptions, FaultRow } from "./types.js";

const ROOT = resolve(import.meta.dirname, "..", "..");
const FAULT_DOCKER = join(ROOT, "scripts", "fault-docker.sh");
const FAULT_SOCKET = "/run/medalist-faults/docker.sock";
const IMAGE = "medalist-test-busybox:1";
const KEY = "faults-bench-run-key-0123456789abcdef0123456789";
const run = promisify(execFile);

/** A seeded generator in [0, 1) (mulberry32). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What one suite left: each run's outcome and medal by side and id, and the verdict. */
export interface SuiteOutcome {
  runs: { key: string; value: string }[];
  verdict: string;
}

interface Medals {
  gold_medal: boolean;
  silver_medal: boolean;
  bronze_medal: boolean;
}

/** The run's medal in one word, from its grade ("none" without one). */
export function medal(g: Medals | null): string {
  return g?.gold_medal ? "gold" : g?.silver_medal ? "silver" : g?.bronze_medal ? "bronze" : "none";
}

export function readOutcome(out: string): SuiteOutcome | null {
  const runs: SuiteOutcome["runs"] = [];
  for (const side of ["base", "head"]) {
    const file = join(out, side, "results.json");
    if (!existsSync(file)) continue;
    const r = JSON.parse(readFileSync(file, "utf8")) as {
      runs: { runId: string; outcome: string; grade: Medals | null }[];
    };
    for (const x of r.runs) runs.push({ key: `${side}/${x.runId}`, value: `${x.outcome}/${medal(x.grade)}` });
  }
  const cmp = join(out, "comparison.json");
  if (!existsSync(cmp)) return runs.length > 0 ? { runs, verdict: "(none)" } : null;
  return { runs, verdict: (JSON.parse(readFileSync(cmp, "utf8")) as { verdict: string }).verdict };
}

/** Lost, double-counted and different runs of `got` against the undisturbed `ref`. */
export function tally(ref: SuiteOutcome, got: SuiteOutcome | null) {
  const want = new Map(ref.runs.map((r) => [r.key, r.value]));
  if (!got) return { lost: want.size, doubleCounted: 0, different: 0 };
  const seen = new Map<string, number>();
  for (const r of got.runs) seen.set(r.key, (seen.get(r.key) ?? 0) + 1);
  let lost = 0;
  let doubleCounted = 0;
  let different = 0;
  for (const [key, value] of want) {
    const n = seen.get(key) ?? 0;
    const mine = got.runs.find((r) => r.key === key);
    // An infrastructure error is no result: the run is lost for the comparison.
    if (n === 0 || mine?.value.startsWith("infra_error")) lost++;
    else if (mine!.value !== value) different++;
    if (n > 1) doubleCounted += n - 1;
  }
  for (const [key, n] of seen) if (!want.has(key)) doubleCounted += n;
  if (got.verdict !== ref.verdict) different++;
  return { lost, doubleCounted, different };
}

/** The CLI bundled once (a tsx start costs seconds per process on a loaded runner). */
export async function bundle(dir: string): Promise<string> {
  const outfile = join(dir, "cli.mjs");
  await build({
    entryPoints: [join(ROOT, "src", "cli.ts")],
    outfile,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    preserveSymlinks: true,
    logLevel: "error",
    external: ["cpu-features", "*.node"],
    define: { MEDALIST_VERSION: '"faults-bench"' },
    banner: {
      js: "import { createRequire as __r } from 'node:module'; import { fileURLToPath as __p } from 'node:url'; import { dirname as __d } from 'node:path'; const require = __r(import.meta.url); const __filename = __p(import.meta.url); const __dirname = __d(__filename);",
    },
  });
  return outfile;
}

interface Spawned {
  code: number | null;
  text: string;
}

/** `medalist run` once; killed with SIGKILL after `killAfterMs` when given. */
function medalist(cli: string, config: string, out: string, env: NodeJS.ProcessEnv, killAfterMs?: number) {
  return new Promise<Spawned>((done) => {
    const child = spawn(process.execPath, [cli, "run", "--config", config, "--out", out], {
      cwd: ROOT,
      env: { ...process.env, ...env, MEDALIST_RUN_KEY: KEY, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let text = "";
    child.stdout.on("data", (b: Buffer) => (text += b.toString()));
    child.stderr.on("data", (b: Buffer) => (text += b.toString()));
    const timer = killAfterMs === undefined ? null : setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    child.on("close", (code) => {
      if (timer) clearTimeout(timer);
      done({ code, text });
    });
  });
}

/** Agent executions a run's output shows: each start and each retry of an infrastructure error. */
export function executions(text: string): number {
  return (
    (text.match(/: started( on GPU [^ ]+)?( \(|$)/gm) ?? []).length +
    (text.match(/; retrying \(\d+\/\d+\)$/gm) ?? []).length
  );
}

interface Kind {
  fault: string;
  backend: string;
  config: string;
  env: NodeJS.ProcessEnv;
  /** Injects the fault `atMs` after the start; resolves when it is done. */
  inject(atMs: number, child: { kill: boolean }): Promise<void>;
}

async function trials(kind: Kind, cli: string, opts: FaultOptions, dir: string): Promise<FaultRow> {
  const row: FaultRow = {
    fault: kind.fault,
    backend: kind.backend,
    trials: 0,
    lost: 0,
    doubleCounted: 0,
    differentVerdicts: 0,
    extraRuns: 0,
  };
  const tag = hash(kind.fault).toString(36);
  const refOut = join(dir, `ref-${tag}`);
  const t0 = Date.now();
  const ref = await medalist(cli, kind.config, refOut, kind.env);
  const span = Date.now() - t0;
  const expected = readOutcome(refOut);
  if (!expected || expected.runs.length === 0)
    throw new Error(`the undisturbed ${kind.backend} suite left no results:\n${ref.text.slice(-2000)}`);
  const planned = executions(ref.text);
  const rand = random(opts.seed ^ hash(kind.fault));
  for (let i = 0; i < opts.trials; i++) {
    const out = join(dir, `t-${tag}-${i}`);
    const atMs = Math.round(300 + rand() * Math.max(1000, span * 0.85 - 300));
    const how = { kill: false };
    const injected = kind.inject(atMs, how);
    const first = await medalist(cli, kind.config, out, kind.env, how.kill ? atMs : undefined);
    await injected;
    const again = await medalist(cli, kind.config, out, kind.env);
    const t = tally(expected, readOutcome(out));
    row.trials++;
    row.lost += t.lost;
    row.doubleCounted += t.doubleCounted;
    row.differentVerdicts += t.different;
    const extra = executions(first.text) + executions(again.text) - planned;
    row.extraRuns += extra;
    if (process.env.MEDALIST_FAULT_DEBUG)
      console.error(
        `faults: ${kind.fault} trial ${i} at ${atMs} ms: extra ${extra}\n${first.text}\n--- resume ---\n${again.text}`,
      );
    // One line per trial: a bench stopped early still shows how many trials ran, and their counts.
    console.error(
      `faults: ${kind.backend}: ${kind.fault}: trial ${i + 1}/${opts.trials}: ${JSON.stringify({ ...t, extra })}`,
    );
    if (t.lost + t.doubleCounted + t.different > 0)
      console.error(
        `faults: ${kind.fault} trial ${i} at ${atMs} ms: ${JSON.stringify(t)}\n${first.text.slice(-1500)}\n--- resume ---\n${again.text.slice(-1500)}`,
      );
    rmSync(out, { recursive: true, force: true });
  }
  // Each row as soon as it is measured (a long bench stopped early keeps what it measured).
  console.error(`faults: row ${JSON.stringify(row)}`);
  return row;
}

function hash(s: string): number {
  let h = 2166136261;
  for (const c of s) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return h;
}

/** The local toy suite: two coin competitions, two seeds, base and head agents that differ. */
function localSuite(dir: string): string {
  const coin = coinSuite(dir, 2);
  return coin.yml(
    "faults-local",
    { MEDAL_P: "0.8", SALT: "f", SLOW: "1" },
    { MEDAL_P: "0.3", SALT: "f", SLOW: "1" },
    ["seeds: 2", "concurrency: 2"],
  );
}

/** The Docker toy suite: busybox agents whose medal is fixed per (competition, seed). */
function dockerSuite(dir: string): string {
  const coin = coinSuite(dir, 2);
  const agent = (wins: string) =>
    `{ image: ${IMAGE}, command: ["/bin/sh", "-c", "sleep 1; for w in ${wins}; do [ \\"$w\\" = \\"$COMPETITION_ID.$SEED\\" ] && cp /home/data/sample_submission.csv /home/submission/submission.csv; done; true"] }`;
  const file = join(dir, "faults-docker.yml");
  writeFileSync(
    file,
    [
      "name: faults-docker",
      "competitions: { split: coin }",
      "seeds: 2",
      "concurrency: 2",
      "executor: docker",
      "docker: { network: none }",
      `agent: ${agent("toy-coin-00.0 toy-coin-00.1 toy-coin-01.0")}`,
      `baseline: { source: run, agent: ${agent("toy-coin-01.1")} }`,
      "limits: { time: 60s }",
      "dataDir: data",
      "registryDir: registry",
      "",
    ].join("\n"),
  );
  void coin;
  return file;
}

/** The Slurm toy suite (command mode on the private cluster, head only): the Docker suite's agents. */
export function slurmSuite(dir: string, shared: string, nap = 2): string {
  coinSuite(dir, 2);
  const file = join(dir, `faults-slurm-${nap}.yml`);
  writeFileSync(
    file,
    [
      "name: faults-slurm",
      "competitions: { split: coin }",
      "seeds: 2",
      "executor: slurm",
      `slurm: { sharedDir: ${shared}, poll: { minSecs: 1, maxSecs: 3 } }`,
      `agent: { command: 'sleep ${nap}; for w in toy-coin-00.0 toy-coin-00.1 toy-coin-01.0; do [ "$w" = "$COMPETITION_ID.$SEED" ] && cp "$DATA_DIR/sample_submission.csv" "$SUBMISSION_DIR/submission.csv"; done; true' }`,
      "limits: { time: 120s }",
      "dataDir: data",
      "registryDir: registry",
      "",
    ].join("\n"),
  );
  return file;
}

const FAULT_SLURM = join(ROOT, "scripts", "fault-slurm.sh");
// MEDALIST_FAULT_SLURM_DIR, _NAME and _PORT pick the private cluster (scripts/fault-slurm.sh), so two
// bench processes can each have their own.
const SLURM_NAME = process.env.MEDALIST_FAULT_SLURM_NAME ?? "medalistfaults";
const SLURM_NODE = `${SLURM_NAME}node`;
const SLURM_CONF_FILE = join(
  process.env.MEDALIST_FAULT_SLURM_DIR ?? "/tmp/medalist-fault-slurm",
  "etc",
  "slurm.conf",
);
const slurmEnv = () => ({ ...process.env, SLURM_CONF: SLURM_CONF_FILE });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The ids of the cluster's running jobs of the suite (not the preempting job). */
async function runningJobs(): Promise<string[]> {
  const q = await run("squeue", ["-h", "-t", "RUNNING", "-p", "faults", "-o", "%i"], { env: slurmEnv() });
  return q.stdout
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => /^\d+$/.test(l));
}

/**
 * The sacct the executor calls, on PATH ahead of Slurm's: while `<flag>.down` exists it fails as sacct
 * does when slurmdbd is unreachable; while `<flag>.lag` exists it answers without any job (records not
 * yet in the database); otherwise it is Slurm's own sacct. The shared slurmdbd is never stopped.
 */
export function sacctShim(dir: string): { path: string; flag: string } {
  const bin = join(dir, "sacct-shim");
  mkdirSync(bin, { recursive: true });
  const real = execFileSync("sh", ["-c", "command -v sacct"], { encoding: "utf8" }).trim();
  const flag = join(dir, "sacct-fault");
  writeFileSync(
    join(bin, "sacct"),
    [
      "#!/bin/sh",
      `if [ -e '${flag}.down' ]; then`,
      "  echo 'sacct: error: slurm_persist_conn_open_without_init: failed to open persistent connection to host:localhost:6819: Connection refused' >&2",
      "  echo 'sacct: error: Problem talking to the database: Connection refused' >&2",
      "  exit 1",
      "fi",
      `[ -e '${flag}.lag' ] && exit 0`,
      `exec '${real}' "$@"`,
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  return { path: `${bin}:${process.env.PATH ?? ""}`, flag };
}

export type SlurmKind =
  | "restart-ctld"
  | "ctld-down"
  | "node-down"
  | "restart-d"
  | "drain"
  | "requeue"
  | "preempt"
  | "scancel"
  | "sacct-down"
  | "sacct-lag";

/** Injects one Slurm fault `atMs` after the start; `downMs` is how long an outage lasts. */
async function slurmFault(kind: SlurmKind, atMs: number, downMs: number, flag: string) {
  // The kinds that hit a running job start looking early (a toy job runs for seconds) and wait for one.
  const hitsJob = kind === "requeue" || kind === "scancel" || kind === "preempt";
  await sleep(hitsJob ? atMs % 3000 : atMs);
  const env = slurmEnv();
  const scontrol = (...args: string[]) => run("scontrol", args, { env });
  switch (kind) {
    case "restart-ctld":
      await run(FAULT_SLURM, ["restart-ctld"], { env });
      return;
    case "restart-d":
      await run(FAULT_SLURM, ["restart-d"], { env });
      return;
    case "ctld-down":
      await run(FAULT_SLURM, ["stop-ctld"], { env });
      await sleep(downMs);
      await run(FAULT_SLURM, ["start-ctld"], { env });
      return;
    case "node-down":
      await scontrol("update", `nodename=${SLURM_NODE}`, "state=down", "reason=medalist-faults-bench");
      await sleep(2000);
      await scontrol("update", `nodename=${SLURM_NODE}`, "state=resume").catch(() => {});
      return;
    case "drain":
      await scontrol("update", `nodename=${SLURM_NODE}`, "state=drain", "reason=medalist-faults-bench");
      await sleep(downMs);
      await scontrol("update", `nodename=${SLURM_NODE}`, "state=resume").catch(() => {});
      return;
    case "requeue":
    case "scancel":
    case "preempt": {
      // Up to 60 s for a running job of the suite; then the fault, from outside.
      for (let i = 0; i < 200; i++) {
        const [job] = await runningJobs();
        if (job !== undefined) {
          if (kind === "scancel") await run("scancel", [job], { env });
          // Slurm refuses it for the suite's jobs (sbatch --no-requeue): the refusal is the fault's outcome.
          else if (kind === "requeue") await scontrol("requeue", job).catch(() => {});
          // A whole-node job in the higher tier: every running job of the suite is preempted (cancelled).
          else await run(FAULT_SLURM, ["preempt", String(Math.max(2, Math.round(downMs / 5000)))], { env });
          if (process.env.MEDALIST_FAULT_DEBUG)
            console.error(`faults: ${kind} of job ${job} after ${i} polls`);
          return;
        }
        await sleep(300);
      }
      console.error(`faults: ${kind}: no job of the suite was running within 60 s; nothing injected`);
      return;
    }
    case "sacct-down":
    case "sacct-lag": {
      const f = `${flag}.${kind === "sacct-down" ? "down" : "lag"}`;
      writeFileSync(f, "");
      await sleep(downMs);
      rmSync(f, { force: true });
      return;
    }
  }
}

async function dockerFault(mode: "restart" | "crash", atMs: number): Promise<void> {
  await new Promise((r) => setTimeout(r, atMs));
  await run(FAULT_DOCKER, [mode]);
}

const KILLED = "medalist killed (kill -9) mid-suite, then resumed";

/** The Slurm fault kinds, as the table names them. */
export const SLURM_KINDS: [SlurmKind, string][] = [
  ["restart-ctld", "slurmctld restarted while jobs run"],
  ["ctld-down", "slurmctld down 10-30 s (submissions wait for it)"],
  ["node-down", "the node set down (its jobs killed), then resumed"],
  ["restart-d", "slurmd restarted while jobs run"],
  ["drain", "the node drained 5-15 s, then resumed"],
  ["requeue", "a running job requeued from outside (scontrol requeue)"],
  ["preempt", "running jobs preempted by a higher-tier partition's job"],
  ["scancel", "a running job cancelled from outside (scancel)"],
  ["sacct-down", "sacct failing 5-15 s (as with slurmdbd unreachable)"],
  ["sacct-lag", "sacct lagging 5-15 s (answers without the jobs)"],
];

export async function faultRows(opts: FaultOptions): Promise<FaultRow[]> {
  const dir = mkdtempSync(join(os.tmpdir(), "medalist-faults-exec-"));
  const rows: FaultRow[] = [];
  // MEDALIST_FAULT_KINDS: a comma list of the kinds to inject (kill, restart, crash, and SLURM_KINDS' names).
  const kinds = process.env.MEDALIST_FAULT_KINDS?.split(",");
  const kindWanted = (k: string) => !kinds || kinds.includes(k);
  const kill = { inject: async (_at: number, child: { kill: boolean }) => void (child.kill = true) };
  try {
    const cli = await bundle(dir);
    const want = (backend: string) =>
      (process.env.MEDALIST_FAULT_BACKENDS ?? "local,docker,slurm").split(",").includes(backend);
    const local = localSuite(join(dir, "local"));
    if (want("local") && kindWanted("kill"))
      rows.push(
        await trials({ fault: KILLED, backend: "local", config: local, env: {}, ...kill }, cli, opts, dir),
      );
    let docker = want("docker") && ["kill", "restart", "crash"].some(kindWanted);
    try {
      if (docker) await run(FAULT_DOCKER, ["start"]);
    } catch (e) {
      docker = false;
      console.error(
        `faults: no private Docker daemon (${(e as Error).message}); the Docker rows are skipped`,
      );
    }
    if (docker) {
      const config = dockerSuite(join(dir, "docker"));
      const env = { DOCKER_HOST: `unix://${FAULT_SOCKET}` };
      try {
        if (kindWanted("kill"))
          rows.push(await trials({ fault: KILLED, backend: "docker", config, env, ...kill }, cli, opts, dir));
        for (const mode of ["restart", "crash"] as const)
          if (kindWanted(mode))
            rows.push(
              await trials(
                {
                  fault:
                    mode === "restart"
                      ? "Docker daemon restarted (SIGTERM) while agents run"
                      : "Docker daemon killed (kill -9) and started again while agents run",
                  backend: "docker",
                  config,
                  env,
                  inject: (at) => dockerFault(mode, at),
                },
                cli,
                opts,
                dir,
              ),
            );
      } finally {
        await run(FAULT_DOCKER, ["clean"]).catch(() => {});
      }
    }
    let slurm = want("slurm") && ["kill", ...SLURM_KINDS.map(([k]) => k)].some(kindWanted);
    try {
      if (slurm) await run(FAULT_SLURM, ["start"]);
    } catch (e) {
      slurm = false;
      console.error(`faults: no private Slurm cluster (${(e as Error).message}); the Slurm rows are skipped`);
    }
    if (slurm) {
      const config = slurmSuite(join(dir, "slurm"), dir);
      // Slurm preempts on its scheduling cycle (seconds): the kinds that hit a running job use 8 s agents.
      const longConfig = slurmSuite(join(dir, "slurm"), dir, 8);
      const rand = random(opts.seed + 7);
      const shim = sacctShim(dir);
      const env = { SLURM_CONF: SLURM_CONF_FILE, PATH: shim.path };
      try {
        if (kindWanted("kill"))
          rows.push(await trials({ fault: KILLED, backend: "slurm", config, env, ...kill }, cli, opts, dir));
        for (const [kind, fault] of SLURM_KINDS)
          if (kindWanted(kind))
            rows.push(
              await trials(
                {
                  fault,
                  backend: "slurm",
                  config: ["requeue", "scancel", "preempt"].includes(kind) ? longConfig : config,
                  env,
                  inject: (at) => {
                    // slurmctld down 10-30 s (as measured before); the newer outages 5-15 s.
                    const down = kind === "ctld-down" ? 10_000 + rand() * 20_000 : 5_000 + rand() * 10_000;
                    return slurmFault(kind, at, Math.round(down), shim.flag);
                  },
                },
                cli,
                opts,
                dir,
              ),
            );
      } finally {
        await run(FAULT_SLURM, ["clean"]).catch(() => {});
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
