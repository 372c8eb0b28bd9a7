// The same hostile agent on every executor (local, a real Docker daemon, a real Slurm cluster):
// the attempt wrapper (execute/attempt.ts) must give the same outcome, masking and quota result.
// Docker and Slurm parts skip when unavailable; MEDALIST_REQUIRE_DOCKER=1 / MEDALIST_REQUIRE_SLURM=1
// make them mandatory.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateConfig } from "../../src/config/load.js";
import { DockerExecutor } from "../../src/execute/docker/executor.js";
import { cleanupSuite } from "../../src/execute/docker/cleanup.js";
import { LocalExecutor } from "../../src/execute/local/executor.js";
import { openSlurm, type SlurmExecutor } from "../../src/execute/slurm/index.js";
import type { ExecResult, RunSpec } from "../../src/execute/types.js";
import { submissionProblem } from "../../src/grade/grade.js";
import { containersOf, requireDocker, shellSettings, testRuntimes } from "../docker/helpers.js";
import { lockCluster, queuedJobs, requireSlurm } from "../slurm/helpers.js";

const SECRET = "sk-hostile-0123456789abcdef";
const QUOTA = { submission: 64 * 1024 ** 2, logs: 64 * 1024 ** 2, code: 64 * 1024 ** 2 };
/** The hang's time limit; the other behaviours end on their own (or at the quota) well before theirs. */
const LIMIT_SECS = 3;
const OTHER_LIMIT_SECS = 40;

/** One agent, five behaviours (MODE), written for /bin/sh and busybox alike. */
const AGENT = `
case "$MODE" in
secret)
  echo "out $API_KEY"; echo "err $API_KEY" >&2
  head -c 65530 /dev/zero | tr '\\0' x; printf '%s\\n' "$API_KEY"
  printf %s "$API_KEY" | base64
  echo "key=$API_KEY" > "$LOGS_DIR/leak.txt"
  : > "$LOGS_DIR/name-$API_KEY.txt" ;;
quota)
  dd if=/dev/zero of="$LOGS_DIR/big" bs=1048576 seek=1024 count=0 2>/dev/null; sleep 60 ;;
quota-at-exit)
  dd if=/dev/zero of="$LOGS_DIR/big" bs=1048576 seek=1024 count=0 2>/dev/null ;;
hang)
  sleep "$HANG_SECS" & wait ;;
symlink)
  ln -s "$DATA_DIR/sample_submission.csv" "$SUBMISSION_DIR/submission.csv" ;;
esac
`;

type Mode = "secret" | "quota" | "quota-at-exit" | "hang" | "symlink";

interface Target {
  name: string;
  run(mode: Mode): Promise<{ r: ExecResult; spec: RunSpec }>;
  /** Nothing of the run is left running. */
  nothingLeft(spec: RunSpec): Promise<boolean>;
}

let n = 0;
function spec(root: string, mode: Mode, suiteId: string): RunSpec {
  const publicDir = join(root, "public");
  mkdirSync(publicDir, { recursive: true });
  writeFileSync(join(publicDir, "sample_submission.csv"), "id,target\n1,0\n");
  const runId = `${mode}-${++n}`;
  return {
    runId,
    suiteId,
    competitionId: "toy-comp",
    seed: 0,
    publicDir,
    runDir: join(root, "runs", runId),
    timeLimitSecs: mode === "hang" ? LIMIT_SECS : OTHER_LIMIT_SECS,
    env: { MODE: mode, API_KEY: SECRET, HANG_SECS: hangSecs },
    secretEnv: ["API_KEY"],
    gpus: [],
    quota: QUOTA,
  };
}

/** The hanging agent's child sleeps this long: its command line finds it on the host. */
const hangSecs = String(3000 + (process.pid % 5000));

/** Is the hanging agent's `sleep` (local, Slurm command mode: a host process, sandboxed or not) gone? */
async function childGone(): Promise<boolean> {
  await new Promise((r) => setTimeout(r, 300));
  const needle = `sleep\0${hangSecs}\0`;
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "latin1").endsWith(needle)) return false;
    } catch {
      // gone meanwhile
    }
  }
  return true;
}

const local: Target = {
  name: "local",
  async run(mode) {
    const s = spec(mkdtempSync(join(tmpdir(), "medalist-hostile-")), mode, "hostile-local");
    const ex = new LocalExecutor({
      command: ["/bin/sh", "-c", AGENT],
      cwd: tmpdir(),
      graceSecs: 1,
      pollMs: 200,
    });
    return { r: await ex.execute(s), spec: s };
  },
  nothingLeft: childGone,
};

const docker = await requireDocker();
const dockerSuite = `hostile-${process.pid}-${Date.now().toString(36)}`;
/** The Docker executor under one OCI runtime (runc; runsc, gVisor, where the daemon has it). */
const dockerTarget = (runtime: string): Target => ({
  name: `docker (${runtime})`,
  async run(mode) {
    const s = spec(mkdtempSync(join(tmpdir(), "medalist-hostile-")), mode, dockerSuite);
    const ex = new DockerExecutor(
      docker!,
      // A read-only root, as the config's default gives, with a writable place the image lacks.
      shellSettings(AGENT, {
        stopGraceSecs: 1,
        quotaPollMs: 200,
        runtime,
        network: "none",
        readOnlyRoot: { bytes: 64 * 1024 ** 2, paths: ["/home/agent"] },
      }),
    );
    return { r: await ex.execute(s), spec: s };
  },
  nothingLeft: async () => (await containersOf(docker!, dockerSuite)).length === 0,
});
const dockerTargets = (await testRuntimes(docker)).map(dockerTarget);

const node = requireSlurm();
const shared = mkdtempSync(join(tmpdir(), "medalist-hostile-slurm-"));
const opened: SlurmExecutor[] = [];
let slurm: SlurmExecutor | null = null;
const slurmTarget: Target = {
  name: "slurm",
  async run(mode) {
    if (!slurm) {
      const config = validateConfig(
        {
          competitions: { include: ["toy-churn"] },
          agent: { command: AGENT },
          dataDir: join(shared, "data"),
          executor: "slurm",
          run: { stopGraceSecs: 1 },
          slurm: { sharedDir: shared, poll: { minSecs: 0.5, maxSecs: 1 } },
        },
        "test",
      );
      const suiteId = `hostile-${process.pid}-${Date.now().toString(36)}`;
      const ctx = {
        config,
        agent: config.agent,
        baseDir: resolve("."),
        suiteId,
        label: "head",
        log: () => {},
      };
      slurm = await openSlurm(ctx);
      opened.push(slurm);
    }
    const s = spec(shared, mode, `hostile-slurm-${process.pid}`);
    return { r: await slurm.execute(s), spec: s };
  },
  nothingLeft: async (s) => queuedJobs(`run=${s.runId} `).length === 0 && (await childGone()),
};

// The cluster's one node is shared with test/slurm/cluster.test.ts, which takes it down once.
let unlock = () => {};
beforeAll(async () => {
  if (node) unlock = await lockCluster();
}, 600_000);

afterAll(async () => {
  for (const ex of opened) await ex.close();
  unlock();
  if (docker) await cleanupSuite(docker, dockerSuite, { graceSecs: 0 });
}, 60_000);

/** Every file name and text under the run folder, and whether any holds the secret. */
function leaks(runDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const r = `${rel}${e.name}`;
      if (e.name.includes(SECRET)) out.push(`name ${r}`);
      if (e.isDirectory()) walk(join(dir, e.name), `${r}/`);
      else if (e.isFile() && readFileSync(join(dir, e.name), "latin1").includes(SECRET))
        out.push(`text ${r}`);
    }
  };
  walk(runDir, "");
  return out;
}

const targets = [local, ...dockerTargets, ...(node ? [slurmTarget] : [])];

describe.each(targets)("the same hostile attempt on $name", (t) => {
  it("a declared secret echoed to stdout/stderr (split across 64 KiB, base64) and written into logs/ is masked everywhere", async () => {
    const { r, spec: s } = await t.run("secret");
    expect(r.outcome).toBe("completed");
    expect(leaks(s.runDir)).toEqual([]);
    const log = readFileSync(join(s.runDir, "run.log"), "utf8");
    expect(log).toMatch(/stdout out \*\*\*/);
    expect(log).toMatch(/stderr err \*\*\*/);
    expect(log).not.toContain(Buffer.from(SECRET).toString("base64").slice(4, 24));
    expect(readFileSync(join(s.runDir, "logs", "leak.txt"), "utf8")).toBe("key=***\n");
    expect(readdirSync(join(s.runDir, "logs"))).toContain("name-***.txt");
  }, 120_000);

  it("1 GiB (sparse) written to logs/ while running: quota breach, run stopped", async () => {
    const t0 = Date.now();
    const { r } = await t.run("quota");
    expect(r).toMatchObject({ outcome: "failed", details: { quota: "logs" } });
    expect(r.error).toMatch(
      /^disk: \/home\/logs went over its 64\.0 MiB quota \(1024\.0 MiB or more\): run stopped$/,
    );
    expect(Date.now() - t0).toBeLessThan(OTHER_LIMIT_SECS * 1000);
  }, 120_000);

  it("1 GiB (sparse) written to logs/ just before exit: a breach all the same", async () => {
    // The watch or, when the agent exits first, the final check (test/execute/attempt.test.ts).
    const { r } = await t.run("quota-at-exit");
    expect(r).toMatchObject({ outcome: "failed", details: { quota: "logs" } });
    expect(r.error).toMatch(
      /^disk: \/home\/logs (went over its 64\.0 MiB quota|was over its 64\.0 MiB quota when the agent exited)/,
    );
  }, 120_000);

  it("a hang past the time limit: timed_out, worded one way, nothing left running", async () => {
    const { r, spec: s } = await t.run("hang");
    expect(r).toMatchObject({
      outcome: "timed_out",
      error: `time limit of ${LIMIT_SECS}s reached: the agent was stopped`,
    });
    expect(await t.nothingLeft(s)).toBe(true);
  }, 120_000);

  it("a symlinked submission.csv: the run completes, the submission is invalid with its reason", async () => {
    const { r, spec: s } = await t.run("symlink");
    expect(r.outcome).toBe("completed");
    expect(submissionProblem(join(s.runDir, "submission", "submission.csv"))).toMatch(/is a symbolic link$/);
  }, 120_000);

  it("the run folder is the runner's alone (0700)", async () => {
    const { spec: s } = await t.run("symlink");
    const { statSync } = await import("node:fs");
    expect(statSync(s.runDir).mode & 0o777).toBe(0o700);
  }, 120_000);
});
