import { describe, expect, it } from "vitest";
import { loadRegistry } from "../../src/registry/registry.js";
import { plan } from "../../src/plan/plan.js";
import { validateConfig } from "../../src/config/load.js";

const registry = loadRegistry();
const cfg = (extra: Record<string, unknown> = {}) =>
  validateConfig({ competitions: { split: "toy" }, agent: { command: "x" }, seeds: 2, ...extra }, "test");

describe("plan", () => {
  it("expands competitions × seeds into runs with stable ids", () => {
    const p = plan(cfg(), registry);
    expect(p.competitions).toEqual(["toy-churn", "toy-house-prices", "toy-species"]);
    expect(p.runs.map((r) => r.runId)).toEqual([
      "toy-churn.s0",
      "toy-churn.s1",
      "toy-house-prices.s0",
      "toy-house-prices.s1",
      "toy-species.s0",
      "toy-species.s1",
    ]);
  });

  it("include and exclude adjust the split", () => {
    const p = plan(cfg({ competitions: { split: "toy", exclude: ["toy-churn"] } }), registry);
    expect(p.competitions).toEqual(["toy-house-prices", "toy-species"]);
  });

  it("the suite hash ignores the agent but not the seeds, competitions or time limit", () => {
    const h = plan(cfg(), registry).suiteHash;
    expect(plan(cfg({ agent: { command: "other" } }), registry).suiteHash).toBe(h);
    expect(plan(cfg({ seeds: 3 }), registry).suiteHash).not.toBe(h);
    expect(plan(cfg({ limits: { time: 30 } }), registry).suiteHash).not.toBe(h);
    expect(plan(cfg({ competitions: { include: ["toy-churn"] } }), registry).suiteHash).not.toBe(h);
  });

  it("rejects unknown competitions and splits with a clear message", () => {
    expect(() => plan(cfg({ competitions: { include: ["toy-chrun"] } }), registry)).toThrow(
      /unknown competition "toy-chrun"/,
    );
    expect(() => plan(cfg({ competitions: { split: "nope" } }), registry)).toThrow(/unknown split "nope"/);
  });
});
