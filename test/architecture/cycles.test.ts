import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { importCycles, moduleGraph } from "../../scripts/code-graph.js";

const ROOT = resolve(import.meta.dirname, "../..");

// Every import of src/ counts, type-only ones included: a cycle is a cycle for the reader too.
describe("the module graph of src/", () => {
  const graph = moduleGraph(ROOT, ["src"]);

  it("reads every module and its imports", () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get("src/action/steps/all.ts")?.valueImports.has("src/session/entry.ts")).toBe(true);
  });

  it("has no import cycle", () => {
    expect(importCycles(graph).map((c) => c.join(" ↔ "))).toEqual([]);
  });

  it("finds a cycle when there is one", () => {
    const twoWay = new Map(graph);
    const a = graph.get("src/report/gate.ts")!;
    const b = graph.get("src/report/verdict.ts")!;
    twoWay.set(b.path, { ...b, allImports: new Set([...b.allImports, a.path]) });
    expect(importCycles(twoWay)).toContainEqual([a.path, b.path]);
  });
});
