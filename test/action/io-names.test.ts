// Every action's inputs and outputs are declared once (src/action/constants.ts): each action.yml
// declares exactly those names, and no other source file spells an input or output name.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  ACTIONS,
  DecideOutputs,
  Inputs,
  Outputs,
  PlanOutputs,
  StepInputs,
} from "../../src/action/constants.js";
import { DEFAULTS } from "../../src/action/inputs.js";
import {
  readDecideInputs,
  readPlanInputs,
  readReportInputs,
  readRunInputs,
  readStep,
} from "../../src/action/step-inputs.js";
import { ROOT } from "./harness.js";

const reader = (values: Record<string, string>) => (name: string) => values[name] ?? "";

interface ActionYml {
  inputs: Record<string, { default?: unknown; required?: boolean }>;
  outputs: Record<string, unknown>;
  runs: { using: string; main: string };
}
const yml = (folder: string): ActionYml =>
  parse(readFileSync(join(ROOT, folder, "action.yml"), "utf8")) as ActionYml;

describe("action.yml of every action", () => {
  for (const [folder, io] of Object.entries(ACTIONS)) {
    it(`${folder}/action.yml declares exactly its inputs and outputs, with the shared defaults`, () => {
      const y = yml(folder);
      expect(Object.keys(y.inputs).sort()).toEqual([...io.inputs].sort());
      expect(Object.keys(y.outputs).sort()).toEqual([...io.outputs].sort());
      for (const name of io.inputs as readonly string[]) {
        const def = y.inputs[name].default;
        if (name === Inputs.GitHubToken) expect(def).toBe("${{ github.token }}");
        else if (name === StepInputs.Step) expect(def).toBe(folder === "." ? undefined : folder);
        else if (name in DEFAULTS) expect(String(def), `${folder}: ${name}`).toBe(DEFAULTS[name]);
      }
      expect(y.runs).toEqual({
        using: "node24",
        main: folder === "." ? "dist/index.js" : "../dist/index.js",
      });
    });
  }

  it("covers every action.yml in the repository", () => {
    const found = readdirSync(ROOT)
      .filter((f) => !f.startsWith(".") && f !== "node_modules" && statSync(join(ROOT, f)).isDirectory())
      .filter((f) => {
        try {
          return statSync(join(ROOT, f, "action.yml")).isFile();
        } catch {
          return false;
        }
      });
    expect(["."].concat(found).sort()).toEqual(Object.keys(ACTIONS).sort());
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

describe("input and output names", () => {
  const names = new Set<string>(
    [Inputs, StepInputs, Outputs, PlanOutputs, DecideOutputs].flatMap((o) => Object.values(o)),
  );
  const files = sourceFiles(join(ROOT, "src")).filter((f) => !f.endsWith(join("action", "constants.ts")));

  it("are never passed to @actions/core as literals", () => {
    const bad: string[] = [];
    const call = /\b(?:getInput|getBooleanInput|getMultilineInput|setOutput|read)\(\s*(["'`])([^"'`]*)\1/g;
    for (const f of files) {
      const text = readFileSync(f, "utf8");
      for (const m of text.matchAll(call)) if (names.has(m[2])) bad.push(`${relative(ROOT, f)}: ${m[0]}`);
    }
    expect(bad).toEqual([]);
  });

  it('are never spelled in an `input "…"` message', () => {
    const bad: string[] = [];
    for (const f of files) {
      const text = readFileSync(f, "utf8");
      for (const m of text.matchAll(/input \\?"([a-z][a-z-]*)\\?"/g))
        if (
          names.has(m[1]) &&
          !/^\s*(\/\/|\/?\*)/.test(text.slice(text.lastIndexOf("\n", m.index) + 1, m.index))
        )
          bad.push(`${relative(ROOT, f)}: ${m[0]}`);
    }
    expect(bad).toEqual([]);
  });
});

describe("the sub-actions' inputs, parsed once", () => {
  it("step: all by default, one of the five, else one sentence", () => {
    expect(readStep(reader({}))).toBe("all");
    expect(readStep(reader({ step: "report" }))).toBe("report");
    expect(() => readStep(reader({ step: "deploy" }))).toThrow(
      'input "step": expected all, plan, run, report, decide, got "deploy"',
    );
  });

  it("plan/: numbers and durations checked, each error naming its input", () => {
    expect(readPlanInputs(reader({ "max-shards": "4", "target-wall": "6h" }))).toMatchObject({
      maxShards: 4,
      targetSecs: 6 * 3600,
      durations: [],
    });
    expect(() => readPlanInputs(reader({ shards: "0" }))).toThrow(
      /input "shards": expected a whole number from 1/,
    );
    expect(() => readPlanInputs(reader({ "target-wall": "soon" }))).toThrow(/input "target-wall"/);
    expect(() => readPlanInputs(reader({ "usd-per-gpu-hour": "-1" }))).toThrow(/input "usd-per-gpu-hour"/);
    expect(() => readPlanInputs(reader({ stages: "2.5" }))).toThrow(/input "stages"/);
  });

  it("run/: the shard, the stage and the plan", () => {
    expect(readRunInputs(reader({ shard: "2/3", stage: "1" }))).toMatchObject({
      which: { index: 2, count: 3 },
      stage: 1,
    });
    expect(() => readRunInputs(reader({ shard: "4/3" }))).toThrow(/input "shard"/);
    // Not JSON at all: the same sentence as a JSON value that is not a plan, never a SyntaxError.
    expect(() => readRunInputs(reader({ shard: "1/1", plan: "{not json" }))).toThrow(
      'input "plan": not a plan from the plan sub-action',
    );
  });

  it("report/ and decide/", () => {
    expect(readReportInputs(reader({ shards: "3" }))).toEqual({ shards: 3, stages: undefined });
    expect(readDecideInputs(reader({ stages: "3", stage: "2" }))).toEqual({ stages: 3, stage: 2 });
    expect(() => readDecideInputs(reader({ stages: "3", stage: "4" }))).toThrow(/decide: give "stages"/);
    expect(() => readDecideInputs(reader({ stages: "3" }))).toThrow(/decide: give "stages"/);
  });
});
