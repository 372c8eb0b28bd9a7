// The conformance suite's parts: one hostile agent (a /bin/sh script, busybox-safe), the duties
// every backend owes it, and targets made from backends: the registered ones (built-in, and the
// fixtures' in test/execute/fixtures/*-backend.ts, each registered by its own file) or one in hand.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { expect } from "vitest";
import { validateConfig } from "../../../src/config/load.js";
import type { Config } from "../../../src/config/schema.js";
import type { Backend } from "../../../src/execute/backend.js";
import { configView } from "../../../src/config/executors.js";
import { openBackend, registeredBackends } from "../../../src/execute/backends.js";
import type { OpenExecutor } from "../../../src/execute/lifecycle.js";
import type { ExecResult, RunSpec } from "../../../src/execute/types.js";
import { submissionProblem } from "../../../src/grade/grade.js";

export const SECRET = "sk-hostile-0123456789abcdef";
/** A value in the runner's own environment: no agent may see it. */
export const RUNNER_SECRET = "runner-only-9f8e7d6c5b4a";
export const RUNNER_SECRET_VAR = "MEDALIST_CONFORMANCE_RUNNER_SECRET";
const QUOTA = { submission: 64 * 1024 ** 2, logs: 64 * 1024 ** 2, code: 64 * 1024 ** 2 };
/** The hang's time limit; the other behaviours end on their own (or at the quota) well before theirs. */
export const LIMIT_SECS = 3;
const OTHER_LIMIT_SECS = 40;
/** An image with /bin/sh for container backends (scripts/ci-docker.sh builds it). */
const SHELL_IMAGE = process.env.MEDALIST_TEST_IMAGE ?? "medalist-test-busybox:1";

/** One agent, its behaviours chosen by MODE, written for /bin/sh and busybox alike. */
export const AGENT = `
case "$MODE" in
plain)
  printf 'id,target\\n1,0\\n' > "$SUBMISSION_DIR/submission.csv"
  echo "contract $COMPETITION_ID $SEED $TIME_LIMIT_SECS"
  echo "runner-secret=\${${RUNNER_SECRET_VAR}:-absent}" ;;
exit)
  exit 3 ;;
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

export type Mode = "plain" | "exit" | "secret" | "quota" | "quota-at-exit" | "hang" | "symlink";

/** The hanging agent's child sleeps this long: its command line finds it on the host. */
const hangSecs = String(3000 + (process.pid % 5000));

/** Is the hanging agent's `sleep` gone from the host (a host process, sandboxed or not)? */
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

/** One backend (and variant) opened for the suite. */
export interface Target {
  name: string;
  run(mode: Mode): Promise<{ r: ExecResult; spec: RunSpec }>;
  /** Nothing of the run is left running: on the backend (its own listing) or on this host. */
  nothingLeft(spec: RunSpec): Promise<boolean>;
  close(): Promise<void>;
}

/** Why the backend cannot run here (null: it can); with MEDALIST_REQUIRE_<NAME>=1 a reason throws. */
export async function availability(b: Backend<string, z.ZodType>): Promise<string | null> {
  const why = await b.selfTest.unavailable();
  if (why === null) return null;
  const must = `MEDALIST_REQUIRE_${b.name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
  if (process.env[must] === "1") throw new Error(`${must}=1 but ${why}`);
  return why;
}

/** Every registered backend, the fixtures' included (each registers itself when imported). */
export async function backendsUnderTest(): Promise<Backend<string, z.ZodType>[]> {
  const fixtures = join(import.meta.dirname, "..", "fixtures");
  for (const f of readdirSync(fixtures).filter((f) => f.endsWith("-backend.ts")))
    await import(join(fixtures, f));
  return registeredBackends();
}

let n = 0;

/**
 * Opens `b` (its variant) the way a suite does (execute/backends.ts's openBackend: sweep, open,
 * every attempt through runAttempt), with the config its selfTest gives for the hostile agent.
 */
export async function openTarget(b: Backend<string, z.ZodType>, variant: string): Promise<Target> {
  process.env[RUNNER_SECRET_VAR] = RUNNER_SECRET;
  const shared = mkdtempSync(join(tmpdir(), `medalist-conformance-${b.name}-`));
  const raw: Record<string, unknown> = {
    competitions: { include: ["toy-churn"] },
    dataDir: join(shared, "data"),
    run: { stopGraceSecs: 1 },
    ...b.selfTest.config({ script: AGENT, image: SHELL_IMAGE, sharedDir: shared }, variant),
  };
  // Validated as any config. A registered backend is one of its `executor` names (the schema
  // follows the registry); a broken variant, not registered, gets its block and checks here.
  let config: Config & Record<string, unknown>;
  if (registeredBackends().includes(b)) config = validateConfig({ ...raw, executor: b.name }, "conformance");
  else {
    const { [b.name]: block, ...rest } = raw;
    config = validateConfig({ ...rest, executor: "local" }, "conformance");
    config.executor = b.name as Config["executor"];
    if (b.configSchema) config[b.name] = b.configSchema.parse(block ?? b.configDefault);
    const issues = b.check(configView(b.name, config));
    if (issues.length > 0)
      throw new Error(`${b.name}: its selfTest config fails its checks: ${JSON.stringify(issues)}`);
  }
  const suiteId = `conformance-${b.name}-${process.pid}-${Date.now().toString(36)}`;
  const agentDir = join(shared, "agent");
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(join(shared, "runs"), { recursive: true });
  const ex: OpenExecutor = await openBackend(b, {
    config,
    agent: config.agent,
    baseDir: agentDir,
    suiteId,
    label: "head",
    outDir: join(shared, "runs"),
    log: () => {},
  });
  const publicDir = join(shared, "public");
  mkdirSync(publicDir, { recursive: true });
  writeFileSync(join(publicDir, "sample_submission.csv"), "id,target\n1,0\n");
  return {
    name: variant ? `${b.name} (${variant})` : b.name,
    async run(mode) {
      const runId = `${mode}-${++n}`;
      const spec: RunSpec = {
        runId,
        suiteId,
        competitionId: "toy-comp",
        seed: 0,
        publicDir,
        runDir: join(shared, "runs", runId),
        timeLimitSecs: mode === "hang" ? LIMIT_SECS : OTHER_LIMIT_SECS,
        env: { MODE: mode, API_KEY: SECRET, HANG_SECS: hangSecs },
        secretEnv: ["API_KEY"],
        gpus: [],
        quota: QUOTA,
      };
      return { r: await ex.execute(spec), spec };
    },
    async nothingLeft() {
      const running = (await b.selfTest.running?.(suiteId)) ?? [];
      return running.length === 0 && (await childGone());
    },
    close: () => ex.close(),
  };
}

/** Every file name and text under the run folder that holds the secret. */
function leaks(runDir: string, secret: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const r = `${rel}${e.name}`;
      if (e.name.includes(secret)) out.push(`name ${r}`);
      if (e.isDirectory()) walk(join(dir, e.name), `${r}/`);
      else if (e.isFile() && readFileSync(join(dir, e.name), "latin1").includes(secret))
        out.push(`text ${r}`);
    }
  };
  walk(runDir, "");
  return out;
}

/**
 * A breach of the 64 MiB logs/ quota: the run failed, naming the folder; caught by the attempt's
 * watch or final check (details.quota), or by a folder the backend sized to the quota itself
 * (Docker's sized folders: details.limit).
 */
function overQuota(r: ExecResult): void {
  expect(r.outcome).toBe("failed");
  if (r.details?.limit !== undefined) {
    expect(r.details.limit).toBe("/home/logs");
    expect(r.error).toMatch(/^disk: \/home\/logs quota 64 MiB reached/);
  } else {
    expect(r.details?.quota).toBe("logs");
    expect(r.error).toMatch(
      /^disk: \/home\/logs (went over its 64\.0 MiB quota|was over its 64\.0 MiB quota when the agent exited)/,
    );
  }
}

/** A duty every backend owes the agent contract; `check` throws (vitest's expect) when it is not met. */
export interface Duty {
  name: string;
  check(t: Target): Promise<void>;
}

export const DUTIES: Duty[] = [
  {
    name: "a plain agent: completed, its submission in the run folder, the contract's variables, none of the runner's environment",
    async check(t) {
      const { r, spec } = await t.run("plain");
      expect(r).toMatchObject({ outcome: "completed", exitCode: 0 });
      const submission = join(spec.runDir, "submission", "submission.csv");
      expect(submissionProblem(submission)).toBeNull();
      expect(readFileSync(submission, "utf8")).toBe("id,target\n1,0\n");
      const log = readFileSync(join(spec.runDir, "run.log"), "utf8");
      expect(log).toContain(`contract toy-comp 0 ${spec.timeLimitSecs}`);
      expect(log).toContain("runner-secret=absent");
      expect(leaks(spec.runDir, RUNNER_SECRET)).toEqual([]);
    },
  },
  {
    name: "an agent that exits 3: failed, with its exit code",
    async check(t) {
      const { r } = await t.run("exit");
      expect(r).toMatchObject({ outcome: "failed", exitCode: 3 });
    },
  },
  {
    name: "a declared secret echoed to stdout/stderr (split across 64 KiB, base64) and written into logs/ is masked everywhere",
    async check(t) {
      const { r, spec } = await t.run("secret");
      expect(r.outcome).toBe("completed");
      expect(leaks(spec.runDir, SECRET)).toEqual([]);
      const log = readFileSync(join(spec.runDir, "run.log"), "utf8");
      expect(log).toMatch(/stdout out \*\*\*/);
      expect(log).toMatch(/stderr err \*\*\*/);
      expect(log).not.toContain(Buffer.from(SECRET).toString("base64").slice(4, 24));
      expect(readFileSync(join(spec.runDir, "logs", "leak.txt"), "utf8")).toBe("key=***\n");
      expect(readdirSync(join(spec.runDir, "logs"))).toContain("name-***.txt");
    },
  },
  {
    name: "1 GiB (sparse) written to logs/ while running: quota breach, run stopped",
    async check(t) {
      const t0 = Date.now();
      const { r } = await t.run("quota");
      overQuota(r);
      if (r.details?.quota)
        expect(r.error).toMatch(
          /^disk: \/home\/logs went over its 64\.0 MiB quota \(1024\.0 MiB or more\): run stopped$/,
        );
      expect(Date.now() - t0).toBeLessThan(OTHER_LIMIT_SECS * 1000);
    },
  },
  {
    name: "1 GiB (sparse) written to logs/ just before exit: a breach all the same",
    async check(t) {
      // The watch or, when the agent exits first, the final check (test/execute/attempt.test.ts).
      const { r } = await t.run("quota-at-exit");
      overQuota(r);
    },
  },
  {
    name: "a hang past the time limit: timed_out, worded one way, nothing left running",
    async check(t) {
      const { r, spec } = await t.run("hang");
      expect(r).toMatchObject({
        outcome: "timed_out",
        error: `time limit of ${LIMIT_SECS}s reached: the agent was stopped`,
      });
      expect(await t.nothingLeft(spec)).toBe(true);
    },
  },
  {
    name: "a symlinked submission.csv: the run completes, the submission is invalid with its reason",
    async check(t) {
      const { r, spec } = await t.run("symlink");
      expect(r.outcome).toBe("completed");
      expect(submissionProblem(join(spec.runDir, "submission", "submission.csv"))).toMatch(
        /is a symbolic link$/,
      );
    },
  },
  {
    name: "the run folder is the runner's alone (0700)",
    async check(t) {
      const { spec } = await t.run("symlink");
      expect(statSync(spec.runDir).mode & 0o777).toBe(0o700);
    },
  },
];
