// agent.cwd is resolved, not spelled: a committed link (`cwd -> /`) is refused before bubblewrap
// starts, with one sentence naming the link; the sandbox mounts the real folder only.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { validateConfig } from "../../src/config/load.js";
import { UserError } from "../../src/errors.js";
import { LocalExecutor } from "../../src/execute/local/executor.js";
import { bwrapAvailable } from "../../src/execute/local/sandbox.js";
import { runSuite } from "../../src/suite/run.js";
import { attemptOn } from "../helpers/attempt.js";

const available = process.platform === "linux" && bwrapAvailable();
const T = 120_000;

/** A checkout with an honest agent folder, `rootlink -> /`, and a secret outside it. */
function checkout() {
  const dir = mkdtempSync(join(tmpdir(), "medalist-cwd-"));
  mkdirSync(join(dir, ".git"));
  mkdirSync(join(dir, "agent"));
  writeFileSync(
    join(dir, "agent", "run.sh"),
    'cp "$DATA_DIR/sample_submission.csv" "$SUBMISSION_DIR/submission.csv"\n',
  );
  symlinkSync("/", join(dir, "rootlink"));
  const secretDir = mkdtempSync(join(tmpdir(), "medalist-cwd-secret-"));
  writeFileSync(join(secretDir, "token"), "RUNNER-SECRET-42\n");
  return { dir, secret: join(secretDir, "token") };
}

function config(dir: string, cwd: string, command: string) {
  return validateConfig(
    {
      name: "cwd",
      competitions: { include: ["toy-churn"] },
      seeds: 1,
      executor: "local",
      local: { sandbox: "bwrap" },
      agent: { command, cwd },
      limits: { time: 30 },
      dataDir: join(dir, ".medalist", "data"),
      run: { retries: 0 },
    },
    join(dir, "medalist.yml"),
  );
}

describe.skipIf(!available)("agent.cwd in the local sandbox", () => {
  it("the honest agent's real folder runs", { timeout: T }, async () => {
    const { dir } = checkout();
    const results = await runSuite({
      config: config(dir, "agent", "sh run.sh"),
      baseDir: dir,
      outDir: join(dir, ".medalist", "results", "head"),
      label: "head",
    });
    expect(results.runs.map((r) => r.outcome)).toEqual(["completed"]);
  });

  it(
    "a committed link to / is refused before bubblewrap starts, naming the link",
    { timeout: T },
    async () => {
      const { dir, secret } = checkout();
      const marker = join(dir, "agent-ran");
      // Through the link the agent would see the runner's whole file system (its home, the Docker socket).
      const cmd = `cat .${secret} > ${marker}; sh ${realpathSync(dir)}/agent/run.sh`;
      const outDir = join(dir, ".medalist", "results", "head");
      let err: unknown;
      try {
        await runSuite({ config: config(dir, "rootlink", cmd), baseDir: dir, outDir, label: "head" });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(UserError);
      expect((err as Error).message).toBe(
        `agent.cwd: ${dir}/rootlink goes through the symbolic link ${dir}/rootlink (-> /); ` +
          "Medalist does not follow links in the paths a pull request supplies: commit the folder itself",
      );
      expect(existsSync(marker)).toBe(false);
      expect(existsSync(join(outDir, "runs")) ? readdirSync(join(outDir, "runs")) : []).toEqual([]);
    },
  );

  it("the executor itself never mounts a working folder given through a link", { timeout: T }, async () => {
    const { dir, secret } = checkout();
    const root = mkdtempSync(join(tmpdir(), "medalist-cwd-run-"));
    mkdirSync(join(root, "public"));
    const spec = {
      runId: "r.s0",
      suiteId: "suite",
      competitionId: "toy-churn",
      seed: 0,
      publicDir: join(root, "public"),
      runDir: join(root, "run"),
      timeLimitSecs: 30,
      env: {},
      gpus: [],
    };
    const marker = join(root, "agent-ran");
    const executor = new LocalExecutor({
      command: `cat .${secret} > ${marker}`,
      cwd: join(dir, "rootlink"),
      graceSecs: 1,
      sandbox: { mode: "bwrap" },
    });
    await expect(attemptOn(executor, spec)).rejects.toThrow(
      `the agent's working folder ${dir}/rootlink is, or goes through, a symbolic link: not mounted`,
    );
    expect(existsSync(marker)).toBe(false);
  });
});
