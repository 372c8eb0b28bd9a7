import { describe, expect, it } from "vitest";
import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  changedParts,
  dataFingerprint,
  describeChange,
  runIdentity,
  type IdentityFacts,
} from "../../src/suite/identity.js";
import { globToRegExp, hashAgentFiles } from "../../src/suite/agent-files.js";
import { decide, parseOnly, parseRerun, NO_SELECTION } from "../../src/suite/reuse.js";
import { agentFacts } from "../../src/suite/identity-facts.js";
import { validateConfig } from "../../src/config/load.js";

const facts = (over: Partial<IdentityFacts> = {}): IdentityFacts => ({
  agent: "files abc",
  command: "python agent.py",
  env: { MODEL: "small" },
  secrets: ["OPENAI_API_KEY"],
  limits: { time: 600, memory: null, executor: "local" },
  data: "d1",
  grader: { version: "1" },
  ...over,
});

describe("run identity", () => {
  it("is stable and changes with every part that can change an outcome", () => {
    const a = runIdentity(facts());
    expect(runIdentity(facts())).toEqual(a);
    expect(
      runIdentity(facts({ env: { MODEL: "small" }, limits: { executor: "local", time: 600, memory: null } }))
        .hash,
    ).toBe(a.hash);
    const cases: [Partial<IdentityFacts>, string][] = [
      [{ agent: "files abd" }, "agent"],
      [{ command: ["python", "agent.py"] }, "command"],
      [{ env: { MODEL: "large" } }, "env"],
      [{ secrets: ["ANTHROPIC_API_KEY"] }, "env"],
      [{ limits: { time: 601, memory: null, executor: "local" } }, "limits"],
      [{ data: "d2" }, "data"],
      [{ grader: { version: "2" } }, "grader"],
    ];
    for (const [over, part] of cases) {
      const b = runIdentity(facts(over));
      expect(b.hash).not.toBe(a.hash);
      expect(changedParts(a, b)).toEqual([part]);
    }
  });

  it("stores env values only as hashes and secrets by name only", () => {
    const id = runIdentity(facts({ env: { TOKENISH: "value-that-must-not-leak" } }));
    expect(JSON.stringify(id)).not.toContain("value-that-must-not-leak");
    // A secret's value is not an input at all: rotating a key keeps the identity.
    expect(runIdentity(facts()).parts.env).toBe(
      runIdentity(facts({ secrets: ["OPENAI_API_KEY"] })).parts.env,
    );
  });

  it("says what changed", () => {
    const a = runIdentity(facts());
    expect(describeChange(a, runIdentity(facts({ agent: "x", env: {} })))).toBe(
      "the agent's code and the environment changed",
    );
    expect(describeChange(null, a)).toBe("the earlier run recorded no identity");
  });

  it("fingerprints prepared data by content, not by time", () => {
    const f: Record<string, { size: number; md5: string }> = { "public/train.csv": { size: 10, md5: "aa" } };
    expect(dataFingerprint(f)).toBe(dataFingerprint({ "public/train.csv": { size: 10, md5: "aa" } }));
    expect(dataFingerprint(f)).not.toBe(dataFingerprint({ "public/train.csv": { size: 10, md5: "ab" } }));
  });
});

describe("agent files hash", () => {
  const tree = () => {
    const root = mkdtempSync(join(tmpdir(), "medalist-agent-"));
    mkdirSync(join(root, "src"));
    mkdirSync(join(root, "node_modules", "x"), { recursive: true });
    mkdirSync(join(root, ".medalist", "results"), { recursive: true });
    writeFileSync(join(root, "src", "agent.py"), "print(1)\n");
    writeFileSync(join(root, "README.md"), "hi\n");
    writeFileSync(join(root, "node_modules", "x", "i.js"), "1");
    writeFileSync(join(root, ".medalist", "results", "r.json"), "{}");
    return root;
  };

  it("changes when a file's bytes, name or executable bit change; ignores the default folders", () => {
    const root = tree();
    const a = hashAgentFiles(root);
    expect(a.files).toBe(2);
    writeFileSync(join(root, "node_modules", "x", "i.js"), "2");
    writeFileSync(join(root, ".medalist", "results", "r.json"), "{1}");
    expect(hashAgentFiles(root).hash).toBe(a.hash);
    writeFileSync(join(root, "src", "agent.py"), "print(2)\n");
    const b = hashAgentFiles(root);
    expect(b.hash).not.toBe(a.hash);
    chmodSync(join(root, "src", "agent.py"), 0o755);
    const c = hashAgentFiles(root);
    expect(c.hash).not.toBe(b.hash);
    symlinkSync("/etc/passwd", join(root, "src", "link"));
    expect(hashAgentFiles(root).hash).not.toBe(c.hash);
  });

  it("honours include and ignore globs and excluded folders", () => {
    const root = tree();
    const only = hashAgentFiles(root, { include: ["src/**"] });
    expect(only.files).toBe(1);
    writeFileSync(join(root, "README.md"), "changed\n");
    expect(hashAgentFiles(root, { include: ["src/**"] }).hash).toBe(only.hash);
    expect(hashAgentFiles(root, { ignore: ["*.md"] }).files).toBe(3); // node_modules and .medalist now count
    expect(hashAgentFiles(root, { exclude: [join(root, "src")] }).files).toBe(1);
  });

  it("refuses a tree larger than the limit with a hint", () => {
    expect(() => hashAgentFiles(tree(), { maxFiles: 1 })).toThrow(/agent\.files\.include/);
  });

  it("globs: ** spans folders, * stays in one name, a bare name matches at any depth", () => {
    expect(globToRegExp("src/**").test("src/a/b.py")).toBe(true);
    expect(globToRegExp("src/*.py").test("src/a/b.py")).toBe(false);
    expect(globToRegExp("**/*.py").test("b.py")).toBe(true);
    expect(globToRegExp("*.pyc").test("a/b/c.pyc")).toBe(true);
    expect(globToRegExp("data").test("x/data")).toBe(true);
    expect(globToRegExp("a.b").test("axb")).toBe(false);
  });
});

describe("reuse decisions", () => {
  const id = runIdentity(facts());
  const other = runIdentity(facts({ agent: "files changed" }));
  const run = { competitionId: "toy-churn", seed: 1 };
  const done = (outcome: "completed" | "failed" = "completed") => ({ identity: id, outcome });

  it("reuses only a finished run with the same identity", () => {
    expect(decide(run, done(), id, NO_SELECTION)).toEqual({ action: "reuse" });
    expect(decide(run, done(), other, NO_SELECTION)).toEqual({
      action: "run",
      why: "the agent's code changed",
    });
    expect(decide(run, { identity: null, outcome: "completed" }, id, NO_SELECTION).action).toBe("run");
    expect(decide(run, null, id, NO_SELECTION)).toEqual({ action: "run", why: "not run before" });
  });

  it("--fresh, --rerun and --only do exactly that", () => {
    expect(decide(run, done(), id, { ...NO_SELECTION, fresh: true })).toEqual({
      action: "run",
      why: "--fresh",
    });
    const rerun = { ...NO_SELECTION, rerun: parseRerun("failed,timed_out") };
    expect(decide(run, done("failed"), id, rerun)).toEqual({ action: "run", why: "--rerun failed" });
    expect(decide(run, done("completed"), id, rerun)).toEqual({ action: "reuse" });
    const only = { ...NO_SELECTION, fresh: true, only: parseOnly("toy-churn.s0", ["toy-churn"], 2) };
    expect(decide({ competitionId: "toy-churn", seed: 0 }, done(), id, only).action).toBe("run");
    // Not selected: kept when it matches, left out otherwise, never executed.
    expect(decide(run, done(), id, only)).toEqual({ action: "reuse" });
    expect(decide(run, null, id, only).action).toBe("skip");
    expect(decide(run, done(), other, only).action).toBe("skip");
  });

  it("parses --only and --rerun with clear errors", () => {
    expect(parseOnly("toy-churn, toy-species.s1", ["toy-churn", "toy-species"], 2)).toEqual([
      { competitionId: "toy-churn", seed: null },
      { competitionId: "toy-species", seed: 1 },
    ]);
    expect(() => parseOnly("toy-chrun", ["toy-churn"], 2)).toThrow(/"toy-chrun" is not in this suite/);
    expect(() => parseOnly("toy-churn.s5", ["toy-churn"], 2)).toThrow(/seeds 0\.\.1/);
    expect(() => parseRerun("failed,crashed")).toThrow(/unknown outcome "crashed"/);
  });
});

describe("agent facts", () => {
  const cfg = (agent: Record<string, unknown>) =>
    validateConfig({ competitions: { split: "toy" }, executor: "docker", agent }, "test");

  it("an image's id is its code; a Dockerfile that did not build is its text", () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-build-"));
    writeFileSync(join(dir, "Dockerfile"), "FROM broken\n");
    const c = cfg({ build: { context: "." } });
    const facts = (imageId: string | null) =>
      agentFacts({ agent: c.agent, config: c, baseDir: dir, executor: "docker", imageId, exclude: [] });
    expect(facts("sha256:abc").agent).toBe("image sha256:abc");
    const broken = facts(null).agent;
    writeFileSync(join(dir, "Dockerfile"), "FROM still-broken\n");
    expect(facts(null).agent).not.toBe(broken);
    expect(facts(null).limits).toMatchObject({ executor: "docker", network: "bridge", time: 600 });
  });
});
