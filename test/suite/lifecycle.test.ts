import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { validateConfig } from "../../src/config/load.js";
import { configDeprecations, runPolicy } from "../../src/config/run-policy.js";
import type { OpenExecutor } from "../../src/execute/lifecycle.js";
import type { ExecResult, RunSpec } from "../../src/execute/types.js";
import { runSuite, type SuiteOptions } from "../../src/suite/run.js";

const root = resolve(import.meta.dirname, "..", "..");
const dataDir = mkdtempSync(join(tmpdir(), "medalist-data-"));

const config = (extra: Record<string, unknown> = {}) =>
  validateConfig(
    {
      name: "t",
      competitions: { include: ["toy-churn"] },
      seeds: 2,
      agent: { command: "true" },
      limits: { time: 20 },
      dataDir,
      ...extra,
    },
    "test",
  );

/** A backend that answers each attempt from a script, and records the lifecycle calls. */
function scripted(answer: (spec: RunSpec, signal?: AbortSignal) => Promise<ExecResult>) {
  const calls: string[] = [];
  const backend: NonNullable<SuiteOptions["backend"]> = {
    name: "scripted",
    async open(ctx): Promise<OpenExecutor> {
      calls.push(`open ${ctx.label}`);
      return {
        name: "scripted",
        resources: { gpuIds: [], maxParallel: 1 },
        perRun: { gpus: 0 },
        facts: { image: "img:1", imageDigest: "sha256:abc", gpuModel: "Fake GPU" },
        execute: async (spec, signal) => {
          calls.push(`execute ${spec.runId} #${spec.attempt}`);
          return answer(spec, signal);
        },
        close: async () => void calls.push("close"),
      };
    },
  };
  return { backend, calls };
}

const infra = (retryable: boolean): ExecResult => ({
  outcome: "infra_error",
  exitCode: null,
  durationMs: 1,
  error: "daemon hiccup",
  retryable,
});

describe("the suite runner over the executor lifecycle", () => {
  it("retries only retryable infrastructure errors, run.retries times, and records the facts", async () => {
    const { backend, calls } = scripted(async (spec) =>
      spec.runId.endsWith("s0") ? infra(true) : infra(false),
    );
    const lines: string[] = [];
    const out = mkdtempSync(join(tmpdir(), "medalist-out-"));
    const results = await runSuite({
      config: config({ run: { retries: 2 } }),
      baseDir: root,
      outDir: out,
      label: "head",
      backend,
      retryDelayMs: 1,
      log: (l) => lines.push(l),
    });
    expect(calls).toEqual([
      "open head",
      "execute toy-churn.s0 #1",
      "execute toy-churn.s0 #2",
      "execute toy-churn.s0 #3",
      "execute toy-churn.s1 #1",
      "close",
    ]);
    expect(results.runs.map((r) => [r.runId, r.outcome, r.attempts])).toEqual([
      ["toy-churn.s0", "infra_error", 3],
      ["toy-churn.s1", "infra_error", 1],
    ]);
    expect(lines.filter((l) => l.includes("retrying"))).toHaveLength(2);
    expect(results.agent).toMatchObject({ image: "img:1", imageDigest: "sha256:abc" });
    expect(results.environment).toMatchObject({ executor: "scripted", gpuModel: "Fake GPU" });
  });

  it("a cancelled run is not a result but a run marked cancelled, and close() still runs", async () => {
    const ac = new AbortController();
    const { backend, calls } = scripted(async () => {
      ac.abort();
      return { ...infra(false), error: "cancelled", cancelled: true };
    });
    const results = await runSuite({
      config: config(),
      baseDir: root,
      outDir: mkdtempSync(join(tmpdir(), "medalist-out-")),
      label: "head",
      backend,
      signal: ac.signal,
    });
    // Not a result: recorded as not run (cancelled), so the report says what is missing.
    expect(results.runs.map((r) => [r.outcome, r.error, r.details])).toEqual(
      results.runs.map(() => [
        "infra_error",
        expect.stringMatching(/^not run: cancelled before it (finished|started)$/),
        expect.objectContaining({ notRun: "true" }),
      ]),
    );
    expect(results.runs[0].details).toMatchObject({ cancelled: "started" });
    expect(calls.at(-1)).toBe("close");
  });

  it("takes the run policy from run:, and still reads the old docker keys with a deprecation line", async () => {
    expect(runPolicy(config({ run: { retries: 5, stopGraceSecs: 3, reconnectSecs: 7 } }))).toEqual({
      retries: 5,
      stopGraceSecs: 3,
      reconnectSecs: 7,
    });
    expect(runPolicy(config())).toEqual({ retries: 2, stopGraceSecs: 10, reconnectSecs: 300 });
    const old = config({ docker: { retries: 0, stopGraceSecs: 1 } });
    expect(runPolicy(old)).toEqual({ retries: 0, stopGraceSecs: 1, reconnectSecs: 300 });
    expect(configDeprecations(old)).toEqual([
      expect.stringContaining("docker.retries is deprecated"),
      expect.stringContaining("docker.stopGraceSecs is deprecated"),
    ]);
    const { backend, calls } = scripted(async () => infra(true));
    const lines: string[] = [];
    await runSuite({
      config: old,
      baseDir: root,
      outDir: mkdtempSync(join(tmpdir(), "medalist-out-")),
      label: "head",
      backend,
      log: (l) => lines.push(l),
    });
    expect(lines[0]).toMatch(/docker\.retries is deprecated.*run\.retries/);
    expect(calls.filter((c) => c.startsWith("execute"))).toHaveLength(2); // retries: 0
  });
});
