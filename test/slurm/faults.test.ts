// The Slurm controller or node fails while a suite runs: slurmctld down while runs are submitted,
// down past run.reconnectSecs, restarted mid-run, or the node set down (its jobs killed). Injected
// for real into a private cluster (scripts/fault-slurm.sh: its own slurm.conf, ports, state and node
// name), so the machine's shared cluster is never touched. A smaller version of `npm run bench -- faults`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { runSuite } from "../../src/suite/run.js";
import { validateConfig } from "../../src/config/load.js";
import { loadRegistry } from "../../src/registry/registry.js";
import type { SuiteResults } from "../../src/results/schema.js";
import { coinSuite } from "../helpers/coin-suite.js";
import {
  bundle,
  medal,
  random,
  readOutcome,
  sacctShim,
  slurmSuite,
  tally,
} from "../../bench/faults/executor.js";

const root = resolve(import.meta.dirname, "..", "..");
const SCRIPT = join(root, "scripts", "fault-slurm.sh");
const DIR = join(tmpdir(), "medalist-fault-slurm-test");
const CONF = join(DIR, "etc", "slurm.conf");
const SEED = Number(process.env.MEDALIST_FAULT_SEED ?? 33);
const NAME = "medalistfaultstest";
const NODE = `${NAME}node`;
const env = {
  ...process.env,
  MEDALIST_FAULT_SLURM_DIR: DIR,
  MEDALIST_FAULT_SLURM_NAME: NAME,
  MEDALIST_FAULT_SLURM_PORT: "6927",
  SLURM_CONF: CONF,
};
const fault = (...args: string[]) => promisify(execFile)(SCRIPT, args, { env });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Why this machine cannot start a private cluster; null when it can. */
function unavailable(): string | null {
  if (process.getuid?.() !== 0) return "not root (a private slurmctld needs root)";
  try {
    execFileSync(
      "sh",
      ["-c", "command -v sbatch && test -x /usr/sbin/slurmctld && sacctmgr -n list cluster"],
      {
        stdio: "ignore",
        timeout: 20_000,
      },
    );
  } catch {
    return "no Slurm with accounting (scripts/ci-slurm.sh)";
  }
  return null;
}

const reason = unavailable();
if (reason && process.env.MEDALIST_REQUIRE_SLURM === "1")
  throw new Error(`MEDALIST_REQUIRE_SLURM=1 but the Slurm fault tests cannot run: ${reason}`);
if (reason) console.warn(`[test/slurm/faults] skipping: ${reason}`);

const EXPECTED = {
  "toy-coin-00.s0": "completed/gold",
  "toy-coin-00.s1": "completed/none",
  "toy-coin-01.s0": "completed/none",
  "toy-coin-01.s1": "completed/gold",
};

const outcomes = (r: SuiteResults) =>
  Object.fromEntries(r.runs.map((x) => [x.runId, `${x.outcome}/${medal(x.grade)}`]));

/** Seed 0 of toy-coin-00 and seed 1 of toy-coin-01 win gold; every agent first sleeps `nap` seconds. */
async function runSlurmSuite(nap: number, run: Record<string, number>, inject: () => Promise<unknown>) {
  const shared = mkdtempSync(join(tmpdir(), "medalist-slurm-faults-"));
  const coin = coinSuite(shared, 2);
  const config = validateConfig(
    {
      name: "slurm-faults",
      competitions: { include: coin.ids },
      seeds: 2,
      executor: "slurm",
      agent: {
        command: `sleep ${nap}; case "$COMPETITION_ID.$SEED" in toy-coin-00.0|toy-coin-01.1) cp "$DATA_DIR/sample_submission.csv" "$SUBMISSION_DIR/submission.csv";; esac; true`,
      },
      slurm: { sharedDir: shared, poll: { minSecs: 1, maxSecs: 3 } },
      limits: { time: 120 },
      dataDir: join(shared, "data"),
      run: { stopGraceSecs: 2, ...run },
    },
    "test",
  );
  mkdirSync(join(shared, "out"));
  const lines: string[] = [];
  const injected = inject();
  const results = await runSuite({
    config,
    baseDir: root,
    outDir: join(shared, "out"),
    label: "head",
    registry: loadRegistry(join(shared, "registry")),
    retryDelayMs: 200,
    heartbeatSecs: 0,
    log: (l) => lines.push(l),
  });
  await injected;
  return { results, msg: lines.join("\n") };
}

describe.skipIf(reason !== null)("Slurm faults (a private cluster, injected for real)", () => {
  const saved = process.env.SLURM_CONF;
  beforeAll(async () => {
    await fault("start");
    process.env.SLURM_CONF = CONF;
  }, 120_000);
  afterAll(async () => {
    if (saved === undefined) delete process.env.SLURM_CONF;
    else process.env.SLURM_CONF = saved;
    await fault("clean");
  }, 120_000);

  it("slurmctld down while the runs are submitted, back within run.reconnectSecs: sbatch waits, no retry is spent", async () => {
    // Longer than sbatch's own wait for the controller (MessageTimeout=10 s in fault-slurm.sh), so
    // sbatch fails at least once and the executor's backoff is what waits.
    const downMs = 20_000 + Math.round(random(SEED)() * 5000);
    const { results, msg } = await runSlurmSuite(1, { retries: 1 }, async () => {
      await fault("stop-ctld");
      await sleep(downMs);
      await fault("start-ctld");
    });
    expect(outcomes(results), msg).toEqual(EXPECTED);
    expect(
      results.runs.map((r) => r.attempts),
      msg,
    ).toEqual([1, 1, 1, 1]);
  }, 300_000);

  it("slurmctld gone for longer than run.reconnectSecs: every run without a result says why in one sentence", async () => {
    await fault("stop-ctld");
    try {
      const { results, msg } = await runSlurmSuite(1, { reconnectSecs: 3 }, async () => {});
      for (const r of results.runs) {
        expect(r.outcome, msg).toBe("infra_error");
        expect(r.error, msg).toMatch(
          /^the Slurm controller did not answer for \d+ s \(run\.reconnectSecs: 3; last: .*\): this run and the ones after it have no result/,
        );
      }
      expect(results.runs.length, msg).toBe(4);
    } finally {
      await fault("start-ctld");
    }
  }, 300_000);

  /** Waits (up to 60 s) for a running job of the suite; its id. */
  async function runningJob(): Promise<string> {
    for (let i = 0; i < 200; i++) {
      const q = await promisify(execFile)("squeue", ["-h", "-t", "RUNNING", "-p", "faults", "-o", "%i"], {
        env,
      });
      const id = q.stdout.split("\n").find((l) => /^\d+$/.test(l.trim()));
      if (id) return id.trim();
      await sleep(300);
    }
    throw new Error("no job of the suite ran within 60 s");
  }

  it("a running job cancelled from outside (scancel): an infra error naming the cause, retried, counted once", async () => {
    let cancelled = "";
    const { results, msg } = await runSlurmSuite(6, { retries: 1 }, async () => {
      await sleep(Math.round(random(SEED + 3)() * 1000));
      cancelled = await runningJob();
      await promisify(execFile)("scancel", [cancelled], { env });
    });
    expect(outcomes(results), msg).toEqual(EXPECTED);
    expect(msg).toMatch(
      /the job was cancelled outside Medalist \(scancel by uid \d+, a user or an administrator\)[^;]*; retrying \(1\/1\)/,
    );
    expect(results.runs.filter((r) => r.attempts === 2).length, msg).toBe(1);
  }, 300_000);

  it("running jobs preempted by a higher-tier partition's job: retried, every run counted once", async () => {
    const { results, msg } = await runSlurmSuite(8, { retries: 2 }, async () => {
      await sleep(Math.round(random(SEED + 4)() * 1000));
      await runningJob();
      await fault("preempt", "3");
    });
    expect(outcomes(results), msg).toEqual(EXPECTED);
    expect(msg).toMatch(/Slurm ended the job: PREEMPTED on [^)]*\); retrying/);
  }, 300_000);

  it("sacct failing for a while (slurmdbd unreachable): the runs wait, no retry is spent", async () => {
    const shim = sacctShim(mkdtempSync(join(tmpdir(), "medalist-sacct-shim-")));
    const path = process.env.PATH;
    process.env.PATH = shim.path;
    try {
      const { results, msg } = await runSlurmSuite(2, {}, async () => {
        // Once a job runs (the executor checked sacct when it opened).
        await sleep(Math.round(random(SEED + 5)() * 1000));
        await runningJob();
        writeFileSync(`${shim.flag}.down`, "");
        await sleep(10_000);
        rmSync(`${shim.flag}.down`);
      });
      expect(outcomes(results), msg).toEqual(EXPECTED);
      expect(msg).toMatch(/sacct failed \(sacct: error: .*Connection refused\); retrying/);
      expect(
        results.runs.map((r) => r.attempts),
        msg,
      ).toEqual([1, 1, 1, 1]);
    } finally {
      process.env.PATH = path;
    }
  }, 300_000);

  // Faults the runs ride out: no retry is spent, every run has its undisturbed outcome.
  for (const [kind, nap, title] of [
    ["restart-d", 5, "slurmd restarted while jobs run: the jobs go on"],
    ["drain", 2, "the node drained 5 s, then resumed: queued jobs wait"],
    ["requeue", 5, "a running job requeued from outside: Slurm refuses it (--no-requeue), the job goes on"],
    ["sacct-lag", 2, "sacct lagging 10 s (answers without the jobs): the runs wait"],
  ] as const)
    it(
      title,
      async () => {
        const shim = sacctShim(mkdtempSync(join(tmpdir(), "medalist-sacct-shim-")));
        const path = process.env.PATH;
        process.env.PATH = shim.path;
        let refused = "";
        try {
          const { results, msg } = await runSlurmSuite(nap, {}, async () => {
            await sleep(Math.round(random(SEED + 6)() * 1000));
            if (kind === "drain") {
              execFileSync(
                "scontrol",
                ["update", `nodename=${NODE}`, "state=drain", "reason=medalist-fault-test"],
                {
                  env,
                },
              );
              await sleep(5000);
              execFileSync("scontrol", ["update", `nodename=${NODE}`, "state=resume"], { env });
              return;
            }
            const job = await runningJob();
            if (kind === "restart-d") await fault("restart-d");
            else if (kind === "requeue")
              refused = await promisify(execFile)("scontrol", ["requeue", job], { env }).then(
                () => "accepted",
                (e: { stderr?: string }) => e.stderr ?? "",
              );
            else {
              writeFileSync(`${shim.flag}.lag`, "");
              await sleep(10_000);
              rmSync(`${shim.flag}.lag`);
            }
          });
          expect(outcomes(results), msg).toEqual(EXPECTED);
          expect(
            results.runs.map((r) => r.attempts),
            msg,
          ).toEqual([1, 1, 1, 1]);
          if (kind === "requeue") expect(refused).toMatch(/Requested operation is presently disabled/);
        } finally {
          process.env.PATH = path;
        }
      },
      300_000,
    );

  it("medalist run killed (kill -9) mid-suite, then run again: its jobs cancelled, every run counted once", async () => {
    const shared = mkdtempSync(join(tmpdir(), "medalist-slurm-kill-"));
    // The reference: the same agents undisturbed, without their nap (it does not change an outcome).
    const reference = slurmSuite(join(shared, "suite"), shared, 0);
    // Agents of 15 s: the killed run's jobs are still queued or running when the resume starts.
    const config = slurmSuite(join(shared, "suite"), shared, 15);
    // src/cli.ts bundled once: a tsx start costs seconds per process on a loaded runner.
    const bundled = await bundle(shared);
    /** `medalist run`; with `killMs`, SIGKILL that long after the first run started. */
    const cli = (out: string, killMs?: number, file = config) =>
      new Promise<string>((done) => {
        const child = spawn(process.execPath, [bundled, "run", "--config", file, "--out", out], {
          cwd: root,
          env: {
            ...env,
            MEDALIST_RUN_KEY: "faults-test-run-key-0123456789abcdef0123456789",
            NO_COLOR: "1",
          },
          stdio: ["ignore", "pipe", "pipe"],
        });
        let text = "";
        let armed = false;
        const read = (b: Buffer) => {
          text += b.toString();
          if (killMs !== undefined && !armed && /: started/.test(text)) {
            armed = true;
            setTimeout(() => child.kill("SIGKILL"), killMs);
          }
        };
        child.stdout.on("data", read);
        child.stderr.on("data", read);
        child.on("close", () => done(text));
      });
    const refText = await cli(join(shared, "ref"), undefined, reference);
    const expected = readOutcome(join(shared, "ref"));
    expect(expected?.runs.length, refText).toBe(4);
    const out = join(shared, "killed");
    const first = await cli(out, Math.round(random(SEED + 7)() * 1000));
    const again = await cli(out);
    const msg = `${first}\n--- resume ---\n${again}`;
    expect(tally(expected!, readOutcome(out)), msg).toEqual({ lost: 0, doubleCounted: 0, different: 0 });
    expect(again, msg).toMatch(/cancelled [1-4] Slurm job\(s\) left by a crashed suite: /);
    const q = execFileSync("squeue", ["-h", "-p", "faults", "-o", "%i"], { env, encoding: "utf8" });
    expect(q.trim(), msg).toBe("");
  }, 300_000);

  for (const kind of ["restart-ctld", "down"] as const)
    it(`${kind === "down" ? "the node set down (its jobs killed)" : "slurmctld restarted"} mid-run: every run counted once, with its undisturbed outcome`, async () => {
      const atMs = 1500 + Math.round(random(SEED + (kind === "down" ? 2 : 1))() * 2500);
      const { results, msg } = await runSlurmSuite(4, {}, async () => {
        await sleep(atMs);
        if (kind === "restart-ctld") return fault("restart-ctld");
        execFileSync("scontrol", ["update", `nodename=${NODE}`, "state=down", "reason=medalist-fault-test"], {
          env,
        });
        await sleep(2000);
        // ReturnToService may have brought it back already.
        execFileSync("sh", ["-c", `scontrol update nodename=${NODE} state=resume 2>/dev/null || true`], {
          env,
        });
      });
      expect(results.runs.length, msg).toBe(4);
      expect(outcomes(results), msg).toEqual(EXPECTED);
    }, 300_000);
});
