import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { validateConfig } from "../../src/config/load.js";
import type { AgentConfig } from "../../src/config/parts.js";
import { runPaths } from "../../src/execute/types.js";
import { runSuite, type SuiteOptions } from "../../src/suite/run.js";
import { agentFacts } from "../../src/suite/identity-facts.js";

const root = resolve(import.meta.dirname, "..", "..");
const tmp = (p: string) => mkdtempSync(join(tmpdir(), `medalist-${p}-`));

/** A container-like backend (MLE-bench's paths) that keeps each run's instructions.txt. */
function recording(seen: string[]): NonNullable<SuiteOptions["backend"]> {
  return {
    name: "recording",
    async open() {
      return {
        name: "recording",
        resources: { gpuIds: [], maxParallel: 1 },
        perRun: { gpus: 0 },
        facts: { image: null, imageDigest: null, gpuModel: null },
        execute: async (spec) => {
          seen.push(readFileSync(runPaths(spec.runDir).instructionsFile, "utf8"));
          return { outcome: "completed", exitCode: 0, durationMs: 1 };
        },
        close: async () => {},
      };
    },
  };
}

describe("instructions: mlebench in a suite", () => {
  const checkout = tmp("checkout");
  mkdirSync(join(checkout, "environment"), { recursive: true });
  // An agents/ folder as upstream's: agent x, its start.sh and Dockerfile (never built here).
  mkdirSync(join(checkout, "agents", "x"), { recursive: true });
  writeFileSync(
    join(checkout, "agents", "x", "config.yaml"),
    "x:\n  start: x/start.sh\n  dockerfile: x/Dockerfile\n",
  );
  writeFileSync(join(checkout, "agents", "x", "start.sh"), "#!/bin/bash\n");
  writeFileSync(join(checkout, "agents", "x", "Dockerfile"), "FROM scratch\n");
  writeFileSync(join(checkout, "environment", "instructions.txt"), "stand-in upstream text\n");
  const config = (instructions: string) =>
    validateConfig(
      {
        competitions: { include: ["toy-churn"] },
        seeds: 2,
        agent: { command: "true" },
        limits: { time: 20 },
        dataDir: tmp("data"),
        instructions,
      },
      "test",
    );

  it("every run of an MLE-bench agent gets the checkout's text", async () => {
    const seen: string[] = [];
    // The agent as agent.mlebench gives it (the field is another part's): its checkout holds the text.
    const c = config("mlebench");
    const agent = { ...c.agent, mlebench: { agentsDir: join(checkout, "agents"), id: "x" } };
    await runSuite({
      config: c,
      agent: agent as unknown as AgentConfig,
      baseDir: root,
      outDir: tmp("out"),
      label: "head",
      backend: recording(seen),
    });
    expect(seen).toEqual(["stand-in upstream text\n", "stand-in upstream text\n"]);
  });

  it("the default stays Medalist's own text", async () => {
    const seen: string[] = [];
    await runSuite({
      config: config("medalist"),
      baseDir: root,
      outDir: tmp("out"),
      label: "head",
      backend: recording(seen),
    });
    expect(seen).toHaveLength(2);
    expect(seen[0]).toContain("You are solving the Kaggle-style competition");
  });

  it("an agent not packaged for MLE-bench is refused before any run", async () => {
    const seen: string[] = [];
    const run = runSuite({
      config: config("mlebench"),
      baseDir: root,
      outDir: tmp("out"),
      label: "head",
      backend: recording(seen),
    });
    await expect(run).rejects.toThrow(/localhost:5000/);
    expect(seen).toEqual([]);
  });

  it("is part of the run identity; the default adds nothing (older identities still match)", () => {
    const facts = (instructions: string) => {
      const c = config(instructions);
      return agentFacts({
        agent: c.agent,
        config: c,
        baseDir: root,
        executor: "docker",
        imageId: "sha256:1",
        exclude: [],
      });
    };
    expect(facts("medalist").limits).not.toHaveProperty("instructions");
    expect(facts("mlebench").limits).toMatchObject({ instructions: "mlebench" });
    expect(facts("mlebench-obfuscated").limits).toMatchObject({ instructions: "mlebench-obfuscated" });
  });
});
