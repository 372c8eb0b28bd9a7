// Seals: a finished run is reused only when the runner's key sealed its record and submission.
import { describe, expect, it } from "vitest";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  defaultRunKeyFile,
  loadRunKey,
  resultsSealProblem,
  runSealProblem,
  RUN_SEAL,
  sealResults,
  sealRun,
} from "../../src/suite/seal.js";
import { runSuite } from "../../src/suite/run.js";
import { validateConfig } from "../../src/config/load.js";
import { decide, NO_SELECTION } from "../../src/suite/reuse.js";

const tmp = (p = "medalist-seal-") => mkdtempSync(join(tmpdir(), p));
const keyA = Buffer.from("a".repeat(64));
const keyB = Buffer.from("b".repeat(64));

/** A run folder with a record and a submission. */
function runFolder(): string {
  const dir = tmp();
  writeFileSync(
    join(dir, "run.json"),
    JSON.stringify({ result: { runId: "c.s0", grade: { gold_medal: false } } }),
  );
  mkdirSync(join(dir, "submission"));
  writeFileSync(join(dir, "submission/submission.csv"), "id,y\n1,0\n");
  return dir;
}

describe("run seals", () => {
  it("a sealed record checks under its key and run id only", () => {
    const dir = runFolder();
    sealRun(dir, "c.s0", keyA);
    expect(runSealProblem(dir, "c.s0", keyA)).toBeNull();
    expect(runSealProblem(dir, "c.s0", keyB)).toMatch(/does not match/);
    // Moved to another run's folder: the seal names its run.
    expect(runSealProblem(dir, "c.s1", keyA)).toMatch(/does not match/);
  });

  it("a tampered record or submission, or a missing or foreign seal, does not check", () => {
    const record = runFolder();
    sealRun(record, "c.s0", keyA);
    writeFileSync(
      join(record, "run.json"),
      readFileSync(join(record, "run.json"), "utf8").replace('"gold_medal":false', '"gold_medal":true'),
    );
    expect(runSealProblem(record, "c.s0", keyA)).toMatch(/does not match/);

    const sub = runFolder();
    sealRun(sub, "c.s0", keyA);
    writeFileSync(join(sub, "submission/submission.csv"), "id,y\n1,1\n");
    expect(runSealProblem(sub, "c.s0", keyA)).toMatch(/does not match/);
    rmSync(join(sub, "submission/submission.csv"));
    expect(runSealProblem(sub, "c.s0", keyA)).toMatch(/does not match/);

    const missing = runFolder();
    expect(runSealProblem(missing, "c.s0", keyA)).toMatch(/^no seal/);
    writeFileSync(join(missing, RUN_SEAL), JSON.stringify({ version: 1, hmac: "0".repeat(64) }));
    expect(runSealProblem(missing, "c.s0", keyA)).toMatch(/does not match/);
    writeFileSync(join(missing, RUN_SEAL), "gold");
    expect(runSealProblem(missing, "c.s0", keyA)).toMatch(/not a Medalist seal/);

    // A seal (or record) that is a link is not read.
    const linked = runFolder();
    sealRun(linked, "c.s0", keyA);
    const elsewhere = join(tmp(), "seal");
    writeFileSync(elsewhere, readFileSync(join(linked, RUN_SEAL)));
    rmSync(join(linked, RUN_SEAL));
    symlinkSync(elsewhere, join(linked, RUN_SEAL));
    expect(runSealProblem(linked, "c.s0", keyA)).toMatch(/unreadable/);
  });

  it("a results seal binds the workflow run", () => {
    const dir = tmp();
    writeFileSync(join(dir, "results.json"), "{}\n");
    sealResults(join(dir, "results.json"), keyA, "acme/agent#1");
    expect(resultsSealProblem(dir, keyA, "acme/agent#1")).toBeNull();
    expect(resultsSealProblem(dir, keyA, "acme/agent#2")).toMatch(/does not match/);
    expect(resultsSealProblem(dir, keyB, "acme/agent#1")).toMatch(/does not match/);
  });

  it("decide never reuses an untrusted record, whatever its identity", () => {
    const id = { hash: "h", parts: {} } as never;
    const run = { competitionId: "c", seed: 0 };
    expect(decide(run, { identity: id, outcome: "completed", untrusted: null }, id, NO_SELECTION)).toEqual({
      action: "reuse",
    });
    expect(
      decide(run, { identity: id, outcome: "completed", untrusted: "no seal" }, id, NO_SELECTION),
    ).toEqual({ action: "run", why: "its record is not reused: no seal" });
    const notSelected = { ...NO_SELECTION, only: [{ competitionId: "other", seed: null }] };
    expect(
      decide(run, { identity: id, outcome: "completed", untrusted: "no seal" }, id, notSelected).action,
    ).toBe("skip");
  });
});

describe("the run key", () => {
  it("is created 0600 where the runner keeps it, and read back the same", () => {
    const home = tmp();
    const env = { HOME: home };
    expect(defaultRunKeyFile(env)).toBe(join(home, ".medalist", "run-key"));
    expect(defaultRunKeyFile({ ...env, RUNNER_TOOL_CACHE: "/opt/tools" })).toBe(
      "/opt/tools/medalist/run-key",
    );
    const first = loadRunKey(env);
    expect(first.source).toBe(join(home, ".medalist", "run-key"));
    expect(statSync(first.source).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, ".medalist")).mode & 0o777).toBe(0o700);
    expect(first.key.length).toBeGreaterThanOrEqual(32);
    expect(loadRunKey(env).key.equals(first.key)).toBe(true);
    // Another runner's key file: another key.
    expect(loadRunKey({ HOME: tmp() }).key.equals(first.key)).toBe(false);
  });

  it("a key file others can read, a link, or a short secret is refused", () => {
    const dir = tmp();
    const file = join(dir, "key");
    writeFileSync(file, "k".repeat(64), { mode: 0o644 });
    chmodSync(file, 0o644);
    expect(() => loadRunKey({ MEDALIST_RUN_KEY_FILE: file })).toThrow(
      /can be read by other users \(mode 644\): run chmod 600/,
    );
    chmodSync(file, 0o600);
    expect(loadRunKey({ MEDALIST_RUN_KEY_FILE: file }).key.toString()).toBe("k".repeat(64));
    const link = join(dir, "link");
    symlinkSync(file, link);
    expect(() => loadRunKey({ MEDALIST_RUN_KEY_FILE: link })).toThrow(/symbolic link/);
    writeFileSync(join(dir, "tiny"), "k", { mode: 0o600 });
    expect(() => loadRunKey({ MEDALIST_RUN_KEY_FILE: join(dir, "tiny") })).toThrow(/holds 1 bytes/);
    expect(() => loadRunKey({ MEDALIST_RUN_KEY: "short" })).toThrow(/at least 32 characters/);
    const secret = "s".repeat(40);
    expect(loadRunKey({ MEDALIST_RUN_KEY: secret, MEDALIST_RUN_KEY_FILE: file })).toEqual({
      key: Buffer.from(secret),
      source: "MEDALIST_RUN_KEY",
    });
  });
});

describe("runSuite reuses only sealed runs", () => {
  const dataDir = tmp("medalist-data-");
  function setup() {
    const dir = tmp("medalist-agent-");
    writeFileSync(
      join(dir, "agent.mjs"),
      `import { copyFileSync } from "node:fs";
copyFileSync(process.env.DATA_DIR + "/sample_submission.csv", process.env.SUBMISSION_DIR + "/submission.csv");
`,
    );
    const outDir = tmp("medalist-out-");
    const config = validateConfig(
      {
        name: "t",
        competitions: { include: ["toy-churn"] },
        seeds: 2,
        agent: { command: "node agent.mjs", cwd: dir },
        limits: { time: 30 },
        dataDir,
      },
      "test",
    );
    const go = async (runKey: Buffer, untrustedRecords: string | null = null) => {
      const lines: string[] = [];
      const results = await runSuite({
        config,
        baseDir: dir,
        outDir,
        label: "head",
        log: (l) => lines.push(l),
        heartbeatSecs: 0,
        runKey,
        untrustedRecords,
      });
      return { results, lines, started: lines.filter((l) => / started/.test(l)) };
    };
    return { outDir, go };
  }

  it(
    "a forged gold record with the right identity runs again and says why",
    { timeout: 120_000 },
    async () => {
      const s = setup();
      const first = await s.go(keyA);
      expect(first.started).toHaveLength(2);
      expect(first.results.runs.every((r) => !r.grade?.gold_medal)).toBe(true);
      // Sealed by this key: reused.
      expect((await s.go(keyA)).started).toHaveLength(0);
      // The attacker edits the grade (the identity stays right) and keeps the old seal.
      const file = join(s.outDir, "runs", "toy-churn.s0", "run.json");
      const doc = JSON.parse(readFileSync(file, "utf8"));
      doc.result.grade = { ...doc.result.grade, gold_medal: true, any_medal: true };
      writeFileSync(file, JSON.stringify(doc, null, 2) + "\n");
      const forged = await s.go(keyA);
      expect(forged.started).toHaveLength(1);
      expect(forged.started[0]).toMatch(/toy-churn\.s0.*its record is not reused: its seal does not match/);
      expect(forged.results.runs.every((r) => !r.grade?.gold_medal)).toBe(true);
      // Another runner's key: nothing is reused.
      expect((await s.go(keyB)).started).toHaveLength(2);
      // Records in a folder the pull request can write: never reused, even when sealed.
      const pr = await s.go(keyB, "it lies in the pull request's checkout (.medalist/results)");
      expect(pr.started).toHaveLength(2);
      expect(pr.started[0]).toMatch(/its record is not reused: it lies in the pull request's checkout/);
    },
  );

  it("the run key is never one of the agent's secrets", { timeout: 60_000 }, async () => {
    const s = setup();
    const secret = "k".repeat(48);
    process.env.MEDALIST_TEST_SEAL_KEY = secret;
    try {
      const config = validateConfig(
        {
          name: "t",
          competitions: { include: ["toy-churn"] },
          seeds: 1,
          agent: { command: "true", secrets: ["MEDALIST_TEST_SEAL_KEY"] },
          limits: { time: 30 },
          dataDir,
        },
        "test",
      );
      await expect(
        runSuite({ config, baseDir: tmp(), outDir: s.outDir, label: "head", runKey: Buffer.from(secret) }),
      ).rejects.toThrow(/MEDALIST_TEST_SEAL_KEY holds the run key .* never passed to the agent/);
    } finally {
      delete process.env.MEDALIST_TEST_SEAL_KEY;
    }
  });
});
