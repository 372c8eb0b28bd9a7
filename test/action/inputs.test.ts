import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { Inputs, Outputs } from "../../src/action/constants.js";
import { DEFAULTS, effectiveSettings, readSettings } from "../../src/action/inputs.js";
import { validateConfig } from "../../src/config/load.js";
import { ROOT } from "./harness.js";

const reader = (values: Record<string, string>) => (name: string) => values[name] ?? "";

describe("config precedence: action input > config > default", () => {
  const cfg = (extra: Record<string, unknown> = {}) =>
    validateConfig({ competitions: { split: "toy" }, agent: { command: "x" }, ...extra }, "test");
  const eff = (inputs: Record<string, string>, extra: Record<string, unknown> = {}) =>
    effectiveSettings(readSettings(reader(inputs)), cfg(extra), "/repo/ci");

  it("inputs left at their default do not override the config", () => {
    const e = eff({}, { gate: { failOn: "never" }, baseline: { source: "file", path: "base.json" } });
    expect(e.failOn).toBe("never");
    expect(e.baseline).toEqual({ source: "file", path: "/repo/ci/base.json" });
  });

  it("an input that is given wins over the config", () => {
    const e = eff(
      { "fail-on": "regression", baseline: "run" },
      { gate: { failOn: "never" }, baseline: { source: "none" } },
    );
    expect(e.failOn).toBe("regression");
    expect(e.baseline).toEqual({ source: "run" });
  });

  it("neither given: the defaults (cache, regression)", () => {
    expect(eff({})).toMatchObject({ baseline: { source: "cache" }, failOn: "regression" });
  });
});

describe("readSettings", () => {
  it("applies the defaults of action.yml", () => {
    expect(readSettings(reader({}), { RUNNER_TEMP: "/runner/_temp" })).toEqual({
      configPath: "medalist.yml",
      token: "",
      baseline: null,
      comment: "always",
      failOn: null,
      allowForkPrs: false,
      dataDir: null,
      // The runner's temp folder: never the checkout a pull request writes.
      resultsDir: "/runner/_temp/medalist/results",
      runsDir: "",
      retentionDays: 30,
      trustPrConfig: false,
      allowUnsandboxedAgent: false,
      allowRunc: false,
      runKey: "",
    });
  });

  it("parses every form of baseline", () => {
    const b = (v: string) => readSettings(reader({ baseline: v })).baseline;
    expect(b("cache")).toEqual({ source: "cache" });
    expect(b("run")).toEqual({ source: "run" });
    expect(b("none")).toEqual({ source: "none" });
    expect(b("file:out/base/results.json")).toEqual({ source: "file", path: "out/base/results.json" });
    expect(b(" file: base.json ")).toEqual({ source: "file", path: "base.json" });
    expect(() => b("file:")).toThrow(
      /input "baseline": expected cache, run, none or file:<path>, got "file:"/,
    );
    expect(() => b("latest")).toThrow(/got "latest"/);
  });

  it("reads booleans as the YAML core schema does", () => {
    expect(readSettings(reader({ "allow-fork-prs": "true" })).allowForkPrs).toBe(true);
    expect(readSettings(reader({ "allow-fork-prs": "FALSE" })).allowForkPrs).toBe(false);
    expect(() => readSettings(reader({ "allow-fork-prs": "yes" }))).toThrow(
      /input "allow-fork-prs": expected true or false/,
    );
  });

  it("keeps data-dir, token and paths", () => {
    const s = readSettings(
      reader({
        "data-dir": "/mnt/mle",
        "github-token": "t",
        config: "ci/medalist.yml",
        "results-dir": "out",
      }),
    );
    expect(s).toMatchObject({
      dataDir: "/mnt/mle",
      token: "t",
      configPath: "ci/medalist.yml",
      resultsDir: "out",
    });
  });

  it("a run key shorter than 32 characters is refused without echoing it", () => {
    expect(() => readSettings(reader({ "run-key": "short-secret" }))).toThrow(
      /^input "run-key": expected a secret of at least 32 characters, or empty$/,
    );
  });

  it("reports every invalid input at once", () => {
    expect(() => readSettings(reader({ comment: "sometimes", "fail-on": "always", baseline: "x" }))).toThrow(
      /3 invalid inputs:\n {2}input "baseline".*\n {2}input "comment".*\n {2}input "fail-on"/,
    );
  });
});

describe("action.yml", () => {
  const yml = parse(readFileSync(join(ROOT, "action.yml"), "utf8"));

  it("declares exactly the inputs and outputs of the constants module, with the same defaults", () => {
    expect(Object.keys(yml.inputs).sort()).toEqual(Object.values(Inputs).sort());
    expect(Object.keys(yml.outputs).sort()).toEqual(Object.values(Outputs).sort());
    for (const name of Object.values(Inputs)) {
      if (name === Inputs.GitHubToken) expect(yml.inputs[name].default).toBe("${{ github.token }}");
      else expect(String(yml.inputs[name].default), name).toBe(DEFAULTS[name]);
    }
  });

  it("runs the bundle on node24", () => {
    expect(yml.runs).toEqual({ using: "node24", main: "dist/index.js" });
  });
});
