import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  MLEBENCH_START,
  mlebenchAgentFrom,
  parseAgentsYaml,
  pythonStr,
  secretRef,
} from "../../src/mlebench/agent-config.js";
import { configFiles, expandMlebenchAgent, loadMlebenchAgent } from "../../src/mlebench/agent-folder.js";
import { validateConfig } from "../../src/config/load.js";
import { UserError } from "../../src/errors.js";

// Shaped like upstream's aide config: anchors, `<<` merge keys, overrides after the merge.
const AIDE_LIKE = `
vars:
  step_count: &step_count 500
  time_limit: &time_limit 86400

defaults: &defaults
  start: aide/start.sh
  dockerfile: aide/Dockerfile
  kwargs_type: omegaconf
  env_vars: &env_vars
    TIME_LIMIT_SECS: *time_limit
    STEP_LIMIT: *step_count

kwargs_common: &kwargs_common
  agent.search.debug_prob: 1
  exec.timeout: 32400
  copy_data: False
  agent.code.temp: 1.0
  agent.lr: 1e-5

aide:
  <<: *defaults
  kwargs:
    <<: *kwargs_common
    agent.steps: *step_count
  env_vars:
    <<: *env_vars
    OPENAI_API_KEY: \${{ secrets.OPENAI_API_KEY }}
    OBFUSCATE: yes

aide/dev:
  <<: *defaults
  kwargs:
    <<: *kwargs_common
    agent.steps: 8
`;

const parse = (text: string, id: string, file = "aide/config.yaml") =>
  mlebenchAgentFrom(parseAgentsYaml(text, file), id, file);

const failure = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    return (e as Error).message;
  }
  throw new Error("expected a UserError");
};

describe("MLE-bench agent config.yaml", () => {
  it("follows anchors and merge keys; omegaconf kwargs as k=v with Python's str()", () => {
    const a = parse(AIDE_LIKE, "aide");
    expect(a.context).toBe("aide");
    expect(a.dockerfile).toBe("Dockerfile");
    expect(a.start).toBe("aide/start.sh");
    expect(a.command).toEqual([
      "bash",
      MLEBENCH_START,
      "agent.search.debug_prob=1",
      "exec.timeout=32400",
      "copy_data=False",
      "agent.code.temp=1.0",
      "agent.lr=1e-05",
      "agent.steps=500",
    ]);
    expect(a.env).toEqual({ TIME_LIMIT_SECS: "86400", STEP_LIMIT: "500", OBFUSCATE: "True" });
    expect(a.secrets).toEqual(["OPENAI_API_KEY"]);
    // The second entry merges the same defaults with its own steps.
    expect(parse(AIDE_LIKE, "aide/dev").command.at(-1)).toBe("agent.steps=8");
  });

  it("argparse kwargs as --k v", () => {
    const text = `mlab:\n  start: mlab/start.sh\n  dockerfile: mlab/Dockerfile\n  kwargs_type: argparse\n  kwargs:\n    llm-name: gpt-4o\n    max-steps: 2000\n    flag: true\n    none: ~\n`;
    expect(parse(text, "mlab").command).toEqual([
      "bash",
      "/home/agent/start.sh",
      "--llm-name",
      "gpt-4o",
      "--max-steps",
      "2000",
      "--flag",
      "True",
      "--none",
      "None",
    ]);
  });

  it("Python's str() of YAML scalars; upstream's secret pattern", () => {
    expect([pythonStr(1n), pythonStr(1), pythonStr(0.5), pythonStr(false), pythonStr(null)]).toEqual([
      "1",
      "1.0",
      "0.5",
      "False",
      "None",
    ]);
    expect(secretRef("${{ secrets.OPENAI_API_KEY }}")).toBe("OPENAI_API_KEY");
    expect(secretRef("${{secrets.K}}")).toBe("K");
    expect(secretRef("plain")).toBeNull();
    expect(secretRef("x ${{ secrets.K }}")).toBeNull();
  });

  it("refuses privileged with the reason and what to do", () => {
    const msg = failure(() =>
      parse(`od:\n  start: od/start.sh\n  dockerfile: od/Dockerfile\n  privileged: true\n`, "od"),
    );
    expect(msg).toMatch(/^aide\/config\.yaml: od\.privileged: Medalist never runs privileged containers/);
    expect(msg).toContain("docker.runtime: sysbox-runc");
  });

  it("names the bad field's path, unknown fields and missing kwargs_type in one sentence each", () => {
    expect(
      failure(() => parse(`a:\n  start: a/s.sh\n  dockerfile: a/D\n  kwargs_type: hydra\n`, "a")),
    ).toMatch(/^aide\/config\.yaml: a\.kwargs_type: /);
    expect(
      failure(() =>
        parse(
          `a:\n  start: a/s.sh\n  dockerfile: a/D\n  kwargs: {x: [1, 2]}\n  kwargs_type: argparse\n`,
          "a",
        ),
      ),
    ).toMatch(/^aide\/config\.yaml: a\.kwargs\.x: expected a single value/);
    expect(failure(() => parse(`a:\n  start: a/s.sh\n  dockerfile: a/D\n  gpus: 1\n`, "a"))).toBe(
      'aide/config.yaml: a: unknown field(s) "gpus"; an MLE-bench agent entry has start, dockerfile, kwargs_type, kwargs, env_vars, privileged',
    );
    expect(failure(() => parse(`a:\n  start: a/s.sh\n  dockerfile: a/D\n  kwargs: {x: 1}\n`, "a"))).toMatch(
      /a\.kwargs_type: kwargs need kwargs_type/,
    );
    expect(failure(() => parse(`a:\n  dockerfile: a/D\n`, "a"))).toMatch(/^aide\/config\.yaml: a\.start: /);
    expect(failure(() => parse(`a:\n  start: ../../etc/s.sh\n  dockerfile: a/D\n`, "a"))).toMatch(
      /a\.start: \.\.\/\.\.\/etc\/s\.sh is outside the agents folder/,
    );
    expect(failure(() => parseAgentsYaml("a: [1\nb: 2", "x/config.yaml"))).toMatch(
      /^x\/config\.yaml: cannot parse/,
    );
  });

  it("refuses secrets on the command line, under another name, or from the runner's own variables", () => {
    const entry = (extra: string) => `a:\n  start: a/s.sh\n  dockerfile: a/D\n${extra}`;
    expect(
      failure(() => parse(entry("  kwargs_type: argparse\n  kwargs:\n    key: ${{ secrets.K }}\n"), "a")),
    ).toMatch(/a\.kwargs\.key: a secret on the command line/);
    expect(failure(() => parse(entry("  env_vars:\n    MY_KEY: ${{ secrets.K }}\n"), "a"))).toMatch(
      /a\.env_vars\.MY_KEY: Medalist passes a secret under its own name/,
    );
    expect(
      failure(() => parse(entry("  env_vars:\n    GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}\n"), "a")),
    ).toMatch(/GITHUB_TOKEN is one of the runner's own variables/);
  });
});

function agentsFolder(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "medalist-agents-"));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

describe("agent.mlebench", () => {
  const folder = () =>
    agentsFolder({
      "agents/aide/config.yaml": AIDE_LIKE,
      "agents/aide/start.sh": "#!/bin/bash\n",
      "agents/aide/Dockerfile": "FROM mlebench-env\n",
      "agents/dummy/config.yaml": "dummy:\n  start: dummy/start.sh\n  dockerfile: dummy/Dockerfile\n",
      "agents/dummy/start.sh": "#!/bin/bash\n",
      "agents/dummy/Dockerfile": "FROM mlebench-env\n",
      "agents/dummy/sub/config.yaml": "other: {}\n",
    });

  it("finds the entry in whichever config.yaml holds it, and checks its files exist", () => {
    const dir = folder();
    expect(configFiles(path.join(dir, "agents"))).toEqual([
      "aide/config.yaml",
      "dummy/config.yaml",
      "dummy/sub/config.yaml",
    ]);
    expect(loadMlebenchAgent(path.join(dir, "agents"), "dummy").configFile).toBe("dummy/config.yaml");
    expect(failure(() => loadMlebenchAgent(path.join(dir, "agents"), "nope"))).toMatch(
      /^agent\.mlebench\.id: no config\.yaml under .* has an entry nope$/,
    );
    writeFileSync(
      path.join(dir, "agents/dummy/config.yaml"),
      "dummy:\n  start: dummy/go.sh\n  dockerfile: dummy/Dockerfile\n",
    );
    expect(failure(() => loadMlebenchAgent(path.join(dir, "agents"), "dummy"))).toMatch(
      /^dummy\/config\.yaml: dummy\.start: .*dummy\/go\.sh does not exist$/,
    );
  });

  it("expands into the build (upstream's build args, context the agent's folder) and command", () => {
    const dir = folder();
    const config = validateConfig(
      {
        competitions: { split: "toy" },
        executor: "docker",
        agent: {
          mlebench: { agentsDir: "agents", id: "aide" },
          secrets: ["OPENAI_API_KEY"],
          env: { STEP_LIMIT: "3" },
        },
      },
      "medalist.yml",
    );
    const { agent, notes } = expandMlebenchAgent(config.agent, dir);
    expect(agent.build).toEqual({
      context: path.join(dir, "agents", "aide"),
      dockerfile: "Dockerfile",
      args: {
        SUBMISSION_DIR: "/home/submission",
        LOGS_DIR: "/home/logs",
        CODE_DIR: "/home/code",
        AGENT_DIR: "/home/agent",
      },
    });
    expect(agent.command?.slice(0, 2)).toEqual(["bash", "/home/agent/start.sh"]);
    expect(agent.env).toEqual({ TIME_LIMIT_SECS: "86400", STEP_LIMIT: "3", OBFUSCATE: "True" });
    expect(notes).toEqual([
      "aide/config.yaml: aide.env_vars.TIME_LIMIT_SECS (86400) is replaced by the run's own value (limits.time for TIME_LIMIT_SECS)",
      "aide/config.yaml: aide.env_vars.STEP_LIMIT (500) is replaced by agent.env.STEP_LIMIT",
    ]);
    // A secret the config does not declare is refused: the config decides what the agent gets.
    expect(failure(() => expandMlebenchAgent({ ...config.agent, secrets: [] }, dir))).toMatch(
      /aide\.env_vars\.OPENAI_API_KEY is \$\{\{ secrets\.OPENAI_API_KEY \}\}: list OPENAI_API_KEY under agent\.secrets/,
    );
  });

  it("is exclusive with image, build and command, and needs the docker executor", () => {
    const base = { competitions: { split: "toy" }, executor: "docker" };
    const mle = { agentsDir: "agents", id: "dummy" };
    expect(failure(() => validateConfig({ ...base, agent: { mlebench: mle, image: "x" } }, "m.yml"))).toMatch(
      /agent\.mlebench: agent\.mlebench builds the agent's image/,
    );
    expect(
      failure(() => validateConfig({ ...base, executor: "local", agent: { mlebench: mle } }, "m.yml")),
    ).toMatch(/agent\.mlebench: agent\.mlebench builds a Docker image: use executor: docker/);
    expect(() => validateConfig({ ...base, agent: { mlebench: mle } }, "m.yml")).not.toThrow();
  });
});
