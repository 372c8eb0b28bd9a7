import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runSuite } from "../../src/suite/run.js";
import { validateConfig } from "../../src/config/load.js";
import { readResults } from "../../src/suite/store.js";

const root = resolve(import.meta.dirname, "..", "..");
const dataDir = mkdtempSync(join(tmpdir(), "medalist-data-"));

function config(command: string, extra: Record<string, unknown> = {}) {
  return validateConfig(
    {
      name: "t",
      competitions: { include: ["toy-churn"] },
      seeds: 1,
      agent: { command },
      limits: { time: 20 },
      dataDir,
      ...extra,
    },
    "test",
  );
}

async function suite(command: string, extra: Record<string, unknown> = {}) {
  const outDir = mkdtempSync(join(tmpdir(), "medalist-out-"));
  const lines: string[] = [];
  const results = await runSuite({
    config: config(command, extra),
    baseDir: root,
    outDir,
    label: "head",
    log: (l) => lines.push(l),
  });
  return { results, outDir, lines };
}

describe("runSuite with the local executor", () => {
  it("runs, grades outside the agent and writes results.json before returning", async () => {
    const { results, outDir, lines } = await suite("node examples/agents/strong/agent.mjs");
    const run = results.runs[0];
    expect(run.outcome).toBe("completed");
    expect(run.grade?.valid_submission).toBe(true);
    expect(run.grade?.score).toBeGreaterThan(0.85);
    expect(run.grade?.percentile).toBeGreaterThan(0.5);
    expect(readResults(join(outDir, "results.json"))).toEqual(results);
    expect(existsSync(join(outDir, run.runDir, "logs", "agent.log"))).toBe(true);
    expect(existsSync(join(outDir, run.runDir, "code", "agent.mjs"))).toBe(true);
    expect(lines.some((l) => /1\/1 toy-churn\.s0: completed in [\d.]+s, score 0\.\d+/.test(l))).toBe(true);
  });

  it("never gives the agent the private answers", async () => {
    const { outDir, results } = await suite("node test/fixtures/agents/env.mjs");
    const env = JSON.parse(readFileSync(join(outDir, results.runs[0].runDir, "logs", "env.json"), "utf8"));
    expect(env.DATA_DIR).toMatch(/prepared\/public$/);
    expect(Object.values(env).join(" ")).not.toMatch(/private/);
  });

  it("records a crash as failed with a missing submission", async () => {
    const { results } = await suite("node test/fixtures/agents/crash.mjs");
    const run = results.runs[0];
    expect(run.outcome).toBe("failed");
    expect(run.exitCode).toBe(3);
    expect(run.grade).toMatchObject({
      submission_exists: false,
      valid_submission: false,
      any_medal: false,
      score: null,
    });
  });

  it("records an invalid submission with its reason", async () => {
    const { results } = await suite("node test/fixtures/agents/invalid.mjs");
    const run = results.runs[0];
    expect(run.outcome).toBe("completed");
    expect(run.grade).toMatchObject({ submission_exists: true, valid_submission: false, any_medal: false });
    expect(run.grade?.error).toBeTruthy();
  });

  it("records a hanging agent as timed out, with progress lines while it runs", async () => {
    const outDir = mkdtempSync(join(tmpdir(), "medalist-out-"));
    const lines: string[] = [];
    const results = await runSuite({
      config: config("node test/fixtures/agents/hang.mjs", { limits: { time: 2 } }),
      baseDir: root,
      outDir,
      label: "head",
      log: (l) => lines.push(l),
      heartbeatSecs: 0.5,
    });
    // The heartbeat: elapsed / limit and the agent's last line (or that it wrote none yet).
    expect(lines.some((l) => /^\[head\] 0\/1 toy-churn\.s0: 0:0\d \/ 0:02 · hanging$/.test(l))).toBe(true);
    expect(results.runs[0].outcome).toBe("timed_out");
    expect(results.runs[0].grade?.valid_submission).toBe(false);
  });

  it("resumes: finished runs of the same suite and agent are kept", async () => {
    const outDir = mkdtempSync(join(tmpdir(), "medalist-out-"));
    const cfg = config("node examples/agents/weak/agent.mjs");
    const first = await runSuite({ config: cfg, baseDir: root, outDir, label: "head" });
    const lines: string[] = [];
    const second = await runSuite({
      config: cfg,
      baseDir: root,
      outDir,
      label: "head",
      log: (l) => lines.push(l),
    });
    expect(second.runs).toEqual(first.runs.map((r) => ({ ...r, reused: true })));
    expect(lines.some((l) => l.includes("reused, same identity as the finished run (completed)"))).toBe(true);
    expect(lines.at(-1)).toBe("[head] 0 finished, 1 reused (same identity as a finished run)");
  });

  it("refuses a secret that is not set, naming it", async () => {
    await expect(
      suite("true", { agent: { command: "true", secrets: ["MEDALIST_MISSING_SECRET"] } }),
    ).rejects.toThrow(/MEDALIST_MISSING_SECRET is not set/);
  });
});

describe("readUsage", () => {
  it("reads logs/usage.json and ignores a malformed one", async () => {
    const { mkdirSync, writeFileSync } = await import("node:fs");
    const { readUsage } = await import("../../src/suite/run-files.js");
    const dir = mkdtempSync(join(tmpdir(), "medalist-usage-"));
    mkdirSync(join(dir, "logs"));
    expect(readUsage(dir)).toBeNull();
    writeFileSync(join(dir, "logs", "usage.json"), JSON.stringify({ tokens: 1200, dollars: 0.42 }));
    expect(readUsage(dir)).toEqual({ tokens: 1200, dollars: 0.42 });
    writeFileSync(join(dir, "logs", "usage.json"), "{not json");
    expect(readUsage(dir)).toBeNull();
  });
});
