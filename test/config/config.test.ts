import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, validateConfig } from "../../src/config/load.js";
import { parseDuration } from "../../src/config/parts.js";
import { parseBytes } from "../../src/config/units.js";
import { UserError } from "../../src/errors.js";

function write(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), "medalist-cfg-"));
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

function errorOf(fn: () => unknown): UserError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    return e as UserError;
  }
  throw new Error("expected an error");
}

describe("config", () => {
  it("applies defaults to a minimal YAML config", () => {
    const { config } = loadConfig(
      write("m.yml", "competitions: {split: toy}\nagent: {command: node a.mjs}\n"),
    );
    expect(config.seeds).toBe(3);
    expect(config.limits.time).toBe(600);
    expect(config.executor).toBe("local");
    expect(config.baseline).toBeUndefined();
    expect(config.gate).toEqual({
      tolerance: 0.05,
      alpha: 0.05,
      failOn: "regression",
      maxNotComparable: 0.1,
      allowSuiteMismatch: false,
    });
    // Issue 30: monitoring after every run is the default; the history-informed plan is opt-in.
    expect(config.adaptiveSeeds).toBe(true);
    expect(config.stopInFlight).toBe(true);
    expect(config.historyPlan).toBeNull();
    // A number keeps the fixed design.
    expect(
      loadConfig(write("f.yml", "competitions: {split: toy}\nagent: {command: node a.mjs}\nseeds: 3\n"))
        .config.adaptiveSeeds,
    ).toBe(false);
  });

  it("reads JSON too", () => {
    const { config } = loadConfig(
      write(
        "m.json",
        JSON.stringify({ competitions: { include: ["toy-churn"] }, agent: { command: "x" }, seeds: 2 }),
      ),
    );
    expect(config.seeds).toBe(2);
    const adaptive = validateConfig(
      {
        competitions: { include: ["toy-churn"] },
        agent: { command: "x" },
        seeds: { max: 3, adaptive: true },
      },
      "m.yml",
    );
    expect(adaptive.seeds).toBe(3);
    expect(adaptive.adaptiveSeeds).toBe(true);
    // Runs in flight at the verdict stop by default; `finish` keeps them.
    expect(adaptive.stopInFlight).toBe(true);
    const base = { competitions: { include: ["toy-churn"] }, agent: { command: "x" } };
    const finish = validateConfig(
      { ...base, seeds: { max: 3, adaptive: true, inFlight: "finish" } },
      "m.yml",
    );
    expect(finish.stopInFlight).toBe(false);
    expect(validateConfig({ ...base, seeds: 3 }, "m.yml").stopInFlight).toBe(false);
    const e = errorOf(() =>
      validateConfig({ ...base, seeds: { max: 3, adaptive: true, inFlight: "kill" } }, "m.yml"),
    );
    expect(e.message).toContain("seeds.inFlight");
  });

  it("seeds.cover: off by default, on only with the history-informed plan and no percentile gate", () => {
    const base = { competitions: { include: ["toy-churn"] }, agent: { command: "x" } };
    const seeds = (extra: object) => ({
      ...base,
      seeds: { max: 3, adaptive: true, history: true, ...extra },
    });
    expect(validateConfig(seeds({}), "m.yml").historyPlan).toEqual({ minRuns: 20, cover: false });
    expect(validateConfig(seeds({ cover: true }), "m.yml").historyPlan).toEqual({ minRuns: 20, cover: true });
    // The history-informed plan itself is off unless asked for.
    expect(validateConfig({ ...base, seeds: { max: 3, adaptive: true } }, "m.yml").historyPlan).toBeNull();
    const refused = (input: object) => errorOf(() => validateConfig(input, "m.yml")).message;
    expect(refused({ ...base, seeds: { max: 3, cover: true } })).toContain(
      "seeds.cover: cover needs adaptive: true (covering is part of the history-informed plan)",
    );
    expect(refused(seeds({ cover: true, history: false }))).toContain(
      "seeds.cover: cover needs history: true",
    );
    expect(refused({ ...seeds({ cover: true }), gate: { percentileTolerance: 0.05 } })).toContain(
      "seeds.cover: cover cannot be used with gate.percentileTolerance",
    );
  });

  it("names the path of a bad field and what was expected", () => {
    const e = errorOf(() =>
      loadConfig(write("m.yml", "competitions: {split: toy}\nagent: {command: x}\nlimits: {time: soon}\n")),
    );
    expect(e.message).toContain("limits.time");
    expect(e.message).toContain("expected a duration");
    expect(e.exitCode).toBe(2);
  });

  it("reports unknown fields (typos) by name", () => {
    const e = errorOf(() =>
      validateConfig({ competitions: { split: "toy" }, agent: { comand: "x" } }, "m.yml"),
    );
    expect(e.message).toContain('agent: unknown field "comand" (did you mean "command"?)');
  });

  it("limits.disk.root: a size or writable; limits.disk.writable: absolute folders of the agent's own, each error with its path", () => {
    const disk = (d: object) =>
      validateConfig(
        { competitions: { split: "toy" }, agent: { command: "x" }, limits: { disk: d } },
        "m.yml",
      ).limits.disk;
    expect(disk({})).toMatchObject({ writable: [] });
    expect(disk({}).root).toBeUndefined();
    expect(disk({ root: "8g", writable: ["/opt/conda/envs/agent"] })).toMatchObject({
      root: 8 * 1024 ** 3,
      writable: ["/opt/conda/envs/agent"],
    });
    expect(disk({ root: "writable" }).root).toBe("writable");
    const refused = (d: object) => errorOf(() => disk(d)).message;
    expect(refused({ root: "big" })).toContain("limits.disk.root:");
    expect(refused({ writable: ["opt/x"] })).toContain(
      'limits.disk.writable[0]: expected an absolute path like "/opt/conda/envs/agent", got "opt/x"',
    );
    expect(refused({ writable: ["/home/agent", "/opt/../etc"] })).toContain("limits.disk.writable[1]:");
    expect(refused({ writable: ["/home/data/x"] })).toContain(
      'limits.disk.writable[0]: "/home/data/x" is a path Medalist mounts or the system needs',
    );
    expect(refused({ writable: ["/"] })).toContain("limits.disk.writable[0]:");
  });

  it("reports every problem, each with its path", () => {
    const e = errorOf(() =>
      validateConfig({ competitions: {}, seeds: 0, agent: { command: "x" }, gate: { alpha: 2 } }, "m.yml"),
    );
    expect(e.message).toContain("competitions: name a split");
    expect(e.message).toContain("seeds:");
    expect(e.message).toContain("gate.alpha:");
  });

  it("needs agent.command for the local executor and an image for docker", () => {
    expect(
      errorOf(() => validateConfig({ competitions: { split: "toy" }, agent: {} }, "m")).message,
    ).toContain("agent.command");
    expect(
      errorOf(() =>
        validateConfig({ competitions: { split: "toy" }, executor: "docker", agent: { command: "x" } }, "m"),
      ).message,
    ).toContain("agent.image");
  });

  it("validates the baseline by its source", () => {
    expect(
      errorOf(() =>
        validateConfig(
          { competitions: { split: "toy" }, agent: { command: "x" }, baseline: { source: "file" } },
          "m",
        ),
      ).message,
    ).toContain("baseline.path");
    expect(
      errorOf(() =>
        validateConfig(
          { competitions: { split: "toy" }, agent: { command: "x" }, baseline: { source: "s3" } },
          "m",
        ),
      ).message,
    ).toContain("baseline.source");
  });

  it("gives one clear line for missing files, empty files and broken YAML", () => {
    expect(errorOf(() => loadConfig("/nonexistent/medalist.yml")).message).toBe(
      "config file not found: /nonexistent/medalist.yml",
    );
    expect(errorOf(() => loadConfig(write("e.yml", ""))).message).toContain("the file is empty");
    expect(errorOf(() => loadConfig(write("b.yml", "agent: [unclosed\n"))).message).toContain("cannot parse");
  });

  it("parses durations and sizes", () => {
    expect(parseDuration("90s")).toBe(90);
    expect(parseDuration("30m")).toBe(1800);
    expect(parseDuration("2h")).toBe(7200);
    expect(parseDuration("later")).toBeNull();
    expect(parseBytes("512m")).toBe(512 * 1024 ** 2);
    expect(parseBytes("8g")).toBe(8 * 1024 ** 3);
    expect(parseBytes("lots")).toBeNull();
  });
});
