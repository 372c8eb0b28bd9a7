import { describe, expect, it } from "vitest";
import { validateConfig } from "../../src/config/load.js";
import { checkAgentPaths, differences, splitTrust } from "../../src/config/trust.js";
import { UserError } from "../../src/errors.js";

const cfg = (more: Record<string, unknown> = {}, agent: Record<string, unknown> = {}) =>
  validateConfig(
    {
      name: "s",
      competitions: { split: "toy" },
      executor: "docker",
      agent: { image: "base:1", command: "run", secrets: ["HF_TOKEN"], ...agent },
      ...more,
    },
    "test",
  );

describe("splitTrust: the base judges, the head brings its agent", () => {
  it("takes the agent's image, build, command, cwd, env and files from the head, nothing else", () => {
    const base = cfg({ gate: { tolerance: 0.05 }, seeds: 3 });
    const head = cfg(
      { gate: { tolerance: 0.9, failOn: "never" }, seeds: { max: 5, adaptive: true }, executor: "local" },
      {
        image: undefined,
        build: { context: "agent" },
        command: ["python", "x.py"],
        env: { A: "1" },
        files: { include: ["*.py"] },
        secrets: ["OTHER"],
      },
    );
    const { config, ignored } = splitTrust(base, head);
    expect(config.agent).toMatchObject({
      build: { context: "agent", dockerfile: "Dockerfile" },
      command: ["python", "x.py"],
      env: { A: "1" },
      files: { include: ["*.py"] },
      secrets: ["HF_TOKEN"],
    });
    expect(config.agent.image).toBeUndefined();
    expect(config).toMatchObject({ executor: "docker", seeds: 3, adaptiveSeeds: false });
    expect(config.gate).toEqual(base.gate);
    expect(ignored).toEqual(["agent.secrets", "executor", "gate.failOn", "gate.tolerance", "seeds"]);
  });

  it("keeps the base's seeds.inFlight: a pull request cannot make its runs finish or stop", () => {
    const base = cfg({ seeds: { max: 3, adaptive: true, inFlight: "finish" } });
    const head = cfg({ seeds: { max: 3, adaptive: true } });
    const { config, ignored } = splitTrust(base, head);
    expect(config.stopInFlight).toBe(false);
    expect(ignored).toEqual(["seeds.inFlight"]);
    expect(splitTrust(head, head).config.stopInFlight).toBe(true);
  });

  it("keeps the base's seeds.cover: a pull request cannot turn covering on or off", () => {
    const base = cfg({ seeds: { max: 3, adaptive: true, history: true } });
    const head = cfg({ seeds: { max: 3, adaptive: true, history: true, cover: true } });
    const judged = splitTrust(base, head);
    expect(judged.config.historyPlan).toEqual({ minRuns: 20, cover: false });
    expect(judged.ignored).toEqual(["seeds.cover"]);
    expect(splitTrust(head, base).config.historyPlan).toEqual({ minRuns: 20, cover: true });
  });

  it("lists nothing when the head changes only its agent, or writes a default out", () => {
    const base = cfg();
    expect(splitTrust(base, cfg({ gate: { alpha: 0.05 } }, { command: "other" })).ignored).toEqual([]);
  });

  it("names added and removed blocks by their own paths", () => {
    const base = cfg({ baseline: { source: "file", path: "b.json" } });
    const head = cfg({ baseline: { source: "run", agent: { command: "exit 1" } }, externalGrader: ["sh"] });
    expect(splitTrust(base, head).ignored).toEqual([
      "baseline.agent",
      "baseline.path",
      "baseline.source",
      "externalGrader",
    ]);
    expect(splitTrust(base, head).config.baseline).toEqual({ source: "file", path: "b.json" });
    expect(splitTrust(base, head).config.externalGrader).toBeUndefined();
  });

  it("refuses a head agent the base's executor cannot run", () => {
    const base = cfg();
    const head = validateConfig(
      { competitions: { split: "toy" }, executor: "local", agent: { command: "run" } },
      "head",
    );
    expect(() => splitTrust(base, head, "judged")).toThrow(
      /judged: agent.image: the docker executor needs agent.image, agent.build or agent.mlebench/,
    );
  });

  it("differences compares objects key by key and everything else whole", () => {
    expect(differences({ a: { b: 1, c: [1] } }, { a: { b: 1, c: [2] }, d: 0 })).toEqual(["a.c", "d"]);
  });
});

describe("checkAgentPaths", () => {
  it("keeps the PR's build context, Dockerfile and working folder inside the repository", () => {
    const ok = cfg({}, { build: { context: "agent" }, cwd: "agent" }).agent;
    expect(() => checkAgentPaths(ok, "/repo/sub", "/repo")).not.toThrow();
    for (const agent of [
      { build: { context: "../.." } },
      { build: { context: ".", dockerfile: "../../etc/Dockerfile" } },
      { cwd: "/home/runner" },
    ]) {
      const a = cfg({}, agent).agent;
      let err: unknown;
      try {
        checkAgentPaths(a, "/repo/sub", "/repo");
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(UserError);
      expect((err as Error).message).toMatch(/is outside the repository \(\/repo\)/);
    }
  });

  it("keeps the PR's MLE-bench agents folder inside the repository; the head decides it, the base the secrets", () => {
    const mle = (agentsDir: string) => ({
      image: undefined,
      command: undefined,
      mlebench: { agentsDir, id: "aide" },
    });
    expect(() => checkAgentPaths(cfg({}, mle("agents")).agent, "/repo/sub", "/repo")).not.toThrow();
    expect(() => checkAgentPaths(cfg({}, mle("../../elsewhere")).agent, "/repo/sub", "/repo")).toThrow(
      /^agent\.mlebench\.agentsDir: \/elsewhere is outside the repository/,
    );
    const head = cfg({}, { ...mle("agents"), secrets: ["OPENAI_API_KEY"] });
    const { config } = splitTrust(cfg(), head);
    expect(config.agent.mlebench).toEqual({ agentsDir: "agents", id: "aide" });
    expect(config.agent.secrets).toEqual(["HF_TOKEN"]);
  });
});

describe("agent.secrets", () => {
  it("refuses the runner's own variables by name, in one sentence", () => {
    for (const name of [
      "GITHUB_TOKEN",
      "ACTIONS_RUNTIME_TOKEN",
      "RUNNER_TEMP",
      "INPUT_GITHUB-TOKEN",
      "github_token",
    ]) {
      const safe = name.replace(/-/g, "_");
      expect(() => cfg({}, { secrets: [safe] })).toThrow(
        `${safe} is one of the runner's own variables (GITHUB_*, ACTIONS_*, RUNNER_*, INPUT_*) and is never passed to the agent`,
      );
    }
    expect(cfg({}, { secrets: ["AWS_SECRET_ACCESS_KEY"] }).agent.secrets).toEqual(["AWS_SECRET_ACCESS_KEY"]);
  });
});
