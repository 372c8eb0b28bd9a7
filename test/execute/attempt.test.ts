// runAttempt (execute/attempt.ts) with a scripted driver: what every backend gets by construction.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  runAttempt,
  type AgentHandle,
  type AttemptContext,
  type AttemptDriver,
  type ExitFacts,
} from "../../src/execute/attempt.js";
import type { RunSpec } from "../../src/execute/types.js";
import { describeFailure } from "../../src/execute/failure.js";
import { neverRanLine } from "../../src/suite/progress.js";
import type { RunResult } from "../../src/results/schema.js";

const SECRET = "sk-attempt-secret-42";

function spec(over: Partial<RunSpec> = {}): RunSpec {
  const root = mkdtempSync(join(tmpdir(), "medalist-attempt-"));
  mkdirSync(join(root, "public"));
  return {
    runId: "r.s0",
    suiteId: "s",
    competitionId: "c",
    seed: 0,
    publicDir: join(root, "public"),
    runDir: join(root, "run"),
    timeLimitSecs: 30,
    env: { KEY: SECRET },
    secretEnv: ["KEY"],
    gpus: [],
    ...over,
  };
}

/** A driver whose agent runs `body` and ends with `facts` unless stopped or killed first. */
function driver(
  body: (ctx: AttemptContext, s: RunSpec) => Promise<ExitFacts | "hang">,
  over: Partial<AttemptDriver> = {},
  calls: string[] = [],
): AttemptDriver {
  return {
    graceSecs: 1,
    lostAfterKillSecs: 1,
    quotaPollMs: 60_000,
    ...over,
    async start(s, ctx): Promise<AgentHandle> {
      let end: (f: ExitFacts) => void = () => {};
      const ended = new Promise<ExitFacts>((r) => (end = r));
      void body(ctx, s).then((f) => f !== "hang" && end(f));
      return {
        stop: (g) => calls.push(`stop ${g}`),
        kill: () => {
          calls.push("kill");
          if (!over.lostAfterKillSecs) end({ code: null, signal: "SIGKILL" });
        },
        wait: () => ended,
        release: async () => void calls.push("release"),
      };
    },
  };
}

describe("runAttempt", () => {
  it("prepares a 0700 run folder, masks the run log (split chunks, 64 KiB pieces) and the outcome's words", async () => {
    const s = spec();
    const r = await runAttempt(
      s,
      undefined,
      driver(async (ctx) => {
        ctx.output("stdout", `a ${SECRET.slice(0, 7)}`);
        ctx.output("stdout", `${SECRET.slice(7)} b\n`);
        ctx.output("stderr", "x".repeat(65530) + SECRET.slice(0, 10));
        ctx.output("stderr", `${SECRET.slice(10)}\n`);
        return { code: 2 };
      }),
    );
    expect(statSync(s.runDir).mode & 0o777).toBe(0o700);
    expect(r).toMatchObject({ outcome: "failed", exitCode: 2, error: "agent exited with code 2" });
    const log = readFileSync(join(s.runDir, "run.log"), "utf8");
    expect(log).not.toContain(SECRET);
    expect(log).toMatch(/ stdout a \*\*\* b\n/);
    expect(log).toMatch(/ medalist exited with code 2 after/);
  });

  it("at the time limit: stop with the grace, then kill; one wording; listeners removed", async () => {
    const calls: string[] = [];
    const controller = new AbortController();
    const r = await runAttempt(
      spec({ timeLimitSecs: 1 }),
      controller.signal,
      driver(async () => "hang", { lostAfterKillSecs: 0 }, calls),
    );
    expect(r).toMatchObject({
      outcome: "timed_out",
      error: "time limit of 1s reached: the agent was stopped",
    });
    expect(calls).toEqual(["stop 1", "kill", "release"]);
    controller.abort(); // no listener left: nothing more happens
    expect(calls).toHaveLength(3);
  });

  it("an agent that does not end after kill: the wrapper stops waiting", async () => {
    const r = await runAttempt(
      spec({ timeLimitSecs: 1 }),
      undefined,
      driver(async () => "hang", { lostAfterKillSecs: 1 }),
    );
    expect(r.outcome).toBe("timed_out");
    expect(r.error).toMatch(/the agent did not end after it was killed/);
  });

  it("a cancel stops with at most 5 s of grace and is not a result", async () => {
    const calls: string[] = [];
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const r = await runAttempt(
      spec(),
      controller.signal,
      driver(async () => "hang", { graceSecs: 60, lostAfterKillSecs: 0 }, calls),
    );
    expect(r).toMatchObject({
      outcome: "infra_error",
      error: "cancelled",
      cancelled: true,
      retryable: false,
    });
    expect(calls[0]).toBe("stop 5");
  }, 15_000);

  it("a sparse file written just before exit fails the final quota check", async () => {
    const s = spec({ quota: { submission: 1024 ** 2, logs: 1024 ** 2, code: 1024 ** 2 } });
    const r = await runAttempt(
      s,
      undefined,
      driver(async (_ctx, sp) => {
        execFileSync("truncate", ["-s", "1G", join(sp.runDir, "logs", "big")]);
        return { code: 0 };
      }),
    );
    expect(r).toMatchObject({ outcome: "failed", details: { quota: "logs" } });
    expect(r.error).toMatch(/^disk: \/home\/logs was over its 1\.0 MiB quota when the agent exited/);
  });

  it("masks what the agent left in its folders before anything reads them", async () => {
    const s = spec();
    await runAttempt(
      s,
      undefined,
      driver(async (_ctx, sp) => {
        writeFileSync(join(sp.runDir, "code", "notes.py"), `KEY = "${SECRET}"\n`);
        return { code: 0 };
      }),
    );
    expect(readFileSync(join(s.runDir, "code", "notes.py"), "utf8")).toBe('KEY = "***"\n');
  });

  it("a retry starts from an empty submission folder; a start failure is the backend's words", async () => {
    const s = spec();
    mkdirSync(join(s.runDir, "submission"), { recursive: true });
    writeFileSync(join(s.runDir, "submission", "submission.csv"), "old\n");
    const r = await runAttempt({ ...s, attempt: 2 }, undefined, {
      graceSecs: 1,
      start: async () => ({ ended: { code: null, infra: { error: "daemon down", retryable: true } } }),
    });
    expect(r).toMatchObject({ outcome: "infra_error", error: "daemon down", retryable: true });
    expect(() => statSync(join(s.runDir, "submission", "submission.csv"))).toThrow();
  });

  it("a silent exit within a second without a submission is marked, in what is known, never a guess", async () => {
    const silent = spec();
    const r = await runAttempt(
      silent,
      undefined,
      driver(async () => ({ code: 0, durationMs: 300 })),
    );
    expect(r).toMatchObject({ outcome: "completed", details: { neverRan: "true" } });
    expect(readFileSync(join(silent.runDir, "run.log"), "utf8")).toContain(
      "medalist no output, no submission, and an exit within a second (with Docker, an image ENTRYPOINT that ignores the command ends runs this way)",
    );
    expect(describeFailure(r, "")?.cause).toBe(
      "the agent wrote no output and no submission and exited (exit 0) in 0.3 s; run.log says what ran (with Docker, an image ENTRYPOINT that ignores the command, start.sh for an MLE-bench agent, ends runs this way)",
    );
    // Output, a submission, or a longer run: the command ran.
    const spoke = await runAttempt(
      spec(),
      undefined,
      driver(async (ctx) => {
        ctx.output("stderr", "boom\n");
        return { code: 1, durationMs: 100 };
      }),
    );
    expect(spoke.details?.neverRan).toBeUndefined();
    const wrote = await runAttempt(
      spec(),
      undefined,
      driver(async (_ctx, s) => {
        writeFileSync(join(s.runDir, "submission", "submission.csv"), "id\n");
        return { code: 0, durationMs: 100 };
      }),
    );
    expect(wrote.details?.neverRan).toBeUndefined();
    const long = await runAttempt(
      spec(),
      undefined,
      driver(async () => ({ code: 0, durationMs: 1500 })),
    );
    expect(long.details?.neverRan).toBeUndefined();
    // The suite's closing line when every run it executed ended that way.
    const run = (neverRan: boolean) =>
      ({ details: neverRan ? { neverRan: "true" } : {} }) as unknown as RunResult;
    expect(neverRanLine("head", [run(true), run(true)])).toMatch(
      /^\[head\] every run \(2\) ended within a second with no output and no submission; each run\.log says what ran/,
    );
    expect(neverRanLine("head", [run(true), run(false)])).toBeNull();
    expect(neverRanLine("head", [])).toBeNull();
  });
});
