import { describe, expect, it } from "vitest";
import { validateConfig } from "../../src/config/load.js";
import {
  adaptive,
  everyStageRuns,
  refuseStagesWithRunBaseline,
  stageNumber,
  stopsEarly,
  targetWallSecs,
} from "../../src/session/rules.js";

const fixed = { adaptiveSeeds: false, seeds: 3 };
const adaptiveThree = { adaptiveSeeds: true, seeds: 3 };
const adaptiveOne = { adaptiveSeeds: true, seeds: 1 };

// The rules each door applied with its own copy before (issue 34), now written once.
describe("the doors' rules", () => {
  it("the head stops early only with adaptive seeds, more than one, and (in the action) on a pull request", () => {
    expect([adaptive(fixed), adaptive(adaptiveThree), adaptive(adaptiveOne)]).toEqual([false, true, false]);
    expect(stopsEarly(adaptiveThree)).toBe(true);
    expect(stopsEarly(adaptiveThree, true)).toBe(true);
    expect(stopsEarly(adaptiveThree, false)).toBe(false);
    expect(stopsEarly(fixed, true)).toBe(false);
  });

  it("by default a pull request's head stops early and the default branch runs every seed (issue 30)", () => {
    const config = validateConfig({ competitions: { split: "toy" }, agent: { command: "x" } }, "m.yml");
    expect(stopsEarly(config, true)).toBe(true);
    expect(stopsEarly(config, false)).toBe(false);
    expect(config.historyPlan).toBeNull();
    const pinned = validateConfig(
      { competitions: { split: "toy" }, agent: { command: "x" }, seeds: 3 },
      "m.yml",
    );
    expect(stopsEarly(pinned, true)).toBe(false);
  });

  it("says why every stage runs, as the decide step did", () => {
    const notAdaptive =
      "The config's seeds are fixed (seeds: N; the default, { max: 3, adaptive: true }, stops early): every stage runs.";
    expect(everyStageRuns(adaptiveThree)).toBeNull();
    expect(everyStageRuns(adaptiveThree, true)).toBeNull();
    expect(everyStageRuns(fixed)).toBe(notAdaptive);
    expect(everyStageRuns(fixed, true)).toBe(notAdaptive);
    expect(everyStageRuns(adaptiveThree, false)).toBe(
      "Not a pull request: every stage runs, so the results saved as later baselines are whole.",
    );
  });

  it("stages need a baseline that is not run, in each door's words", () => {
    expect(() => refuseStagesWithRunBaseline(2, "run", 'input "stages"', "action")).toThrow(
      'input "stages": stages need a baseline from the cache or a file; with baseline run the base would be cut short too',
    );
    expect(() => refuseStagesWithRunBaseline(1, "run", "--stage", "cli")).toThrow(
      "--stage: stages need a baseline from a file (medalist decide --baseline FILE); with baseline.source: run the base would be cut short too",
    );
    expect(() => refuseStagesWithRunBaseline(undefined, "run", "--stage", "cli")).not.toThrow();
    expect(() => refuseStagesWithRunBaseline(2, "file", "--stage", "cli")).not.toThrow();
    expect(() => refuseStagesWithRunBaseline(2, undefined, "--stage", "cli")).not.toThrow();
  });

  it("reads stage numbers and target wall times once", () => {
    expect(["1", "16", " 3 "].map(stageNumber)).toEqual([1, 16, 3]);
    expect(["0", "17", "1.5", "", "x", "-1"].map(stageNumber)).toEqual([null, null, null, null, null, null]);
    expect(targetWallSecs("6h")).toBe(6 * 3600);
    expect(targetWallSecs("90m")).toBe(90 * 60);
    expect(["soon", "0s", ""].map(targetWallSecs)).toEqual([null, null, null]);
  });
});
