// An MLE-bench-style agent folder (config.yaml, start.sh, a Dockerfile with upstream's build args)
// through agent.mlebench on the real daemon: built, run as the image's `nonroot`, its ENTRYPOINT
// bypassed and said so; with the ENTRYPOINT kept, the run says what is known (no output, no submission, under a second).
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { validateConfig } from "../../src/config/load.js";
import { cleanupSuite } from "../../src/execute/docker/cleanup.js";
import { DockerExecutor } from "../../src/execute/docker/executor.js";
import { imageUser, UserLookupError } from "../../src/execute/docker/image-user.js";
import { AgentBuildError } from "../../src/execute/container/image.js";
import { dockerSettings } from "../../src/execute/docker/settings.js";
import { checkRuntime } from "../../src/execute/docker/setup.js";
import type { DockerSuiteConfig } from "../../src/execute/docker/config.js";
import { describeFailure } from "../../src/execute/failure.js";
import { runPaths } from "../../src/execute/types.js";
import { expandMlebenchAgent } from "../../src/mlebench/agent-folder.js";
import { makeRun, requireDocker, TEST_IMAGE, uniqueSuite } from "./helpers.js";
import { attemptOn } from "../helpers/attempt.js";

const docker = await requireDocker();
const suite = uniqueSuite("mlebench");

const CONFIG_YAML = `
defaults: &defaults
  start: tiny/start.sh
  dockerfile: tiny/Dockerfile
  kwargs_type: omegaconf
  env_vars: &env
    STEP_LIMIT: 5
tiny:
  <<: *defaults
  kwargs:
    agent.steps: 3
    copy_data: False
  env_vars:
    <<: *env
    GREETING: hello
`;

const START_SH = `#!/bin/bash
echo "user=$(id -un) uid=$(id -u) home=$HOME args=$* steps=$STEP_LIMIT greeting=$GREETING comp=$COMPETITION_ID"
touch "$AGENT_DIR/agent_was_here.txt" && echo "agent dir writable"
cp /home/data/sample_submission.csv "$SUBMISSION_DIR/submission.csv"
`;

// busybox has no bash and no adduser: a bash that is sh, and nonroot written into passwd.
const DOCKERFILE = `FROM ${TEST_IMAGE}
ARG SUBMISSION_DIR
ENV SUBMISSION_DIR=\${SUBMISSION_DIR}
ARG LOGS_DIR
ENV LOGS_DIR=\${LOGS_DIR}
ARG CODE_DIR
ENV CODE_DIR=\${CODE_DIR}
ARG AGENT_DIR
ENV AGENT_DIR=\${AGENT_DIR}
RUN printf '#!/bin/sh\\nexec /bin/sh "$@"\\n' > /bin/bash && chmod 755 /bin/bash && \\
    echo 'nonroot:x:1000:1000::/home/nonroot:/bin/sh' >> /etc/passwd && echo 'nonroot:x:1000:' >> /etc/group && \\
    mkdir -p /home/nonroot \${LOGS_DIR} \${CODE_DIR} \${AGENT_DIR} && chown 1000:1000 /home/nonroot
COPY . \${AGENT_DIR}
ENTRYPOINT ["/bin/true"]
`;

function agentsFolder(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "medalist-mle-agent-"));
  mkdirSync(path.join(dir, "agents", "tiny"), { recursive: true });
  writeFileSync(path.join(dir, "agents", "tiny", "config.yaml"), CONFIG_YAML);
  writeFileSync(path.join(dir, "agents", "tiny", "start.sh"), START_SH);
  writeFileSync(path.join(dir, "agents", "tiny", "Dockerfile"), DOCKERFILE);
  return dir;
}

function settingsFor(dir: string, docker: Record<string, unknown> = {}) {
  const config = validateConfig(
    {
      name: "mlebench-test",
      competitions: { split: "toy" },
      executor: "docker",
      agent: { mlebench: { agentsDir: "agents", id: "tiny" } },
      docker,
      run: { stopGraceSecs: 1 },
    },
    "medalist.yml",
  );
  const { agent } = expandMlebenchAgent(config.agent, dir);
  // The suite passes the agent's env (its env_vars) in each run's spec, as runSuite does.
  return {
    settings: dockerSettings({ ...config, agent } as unknown as DockerSuiteConfig, dir),
    env: agent.env,
  };
}

describe.skipIf(!docker)("agent.mlebench against a real daemon", () => {
  const dir = agentsFolder();
  let imageId = "";

  afterAll(async () => {
    await cleanupSuite(docker!, suite, { graceSecs: 0 });
  });

  it("builds the folder with upstream's build args and runs start.sh as nonroot, the ENTRYPOINT bypassed", async () => {
    const { settings, env } = settingsFor(dir);
    expect(settings.limits.shmSize).toBe(4 * 1024 ** 3);
    const ex = new DockerExecutor(docker!, settings);
    const spec = await makeRun(suite, "tiny-runs", { env });
    const r = await attemptOn(ex, spec);
    const log = readFileSync(runPaths(spec.runDir).logFile, "utf8");
    expect(r.outcome, log).toBe("completed");
    imageId = r.details!.imageId;
    expect(log).toContain(
      "user=nonroot uid=1000 home=/home/nonroot args=agent.steps=3 copy_data=False steps=5 greeting=hello comp=toy-comp",
    );
    expect(log).toContain("agent dir writable");
    expect(log).toMatch(
      /medalist the image's ENTRYPOINT \["\/bin\/true"\] does not run \(MLE-bench's entrypoint starts a grading server/,
    );
    expect(readFileSync(runPaths(spec.runDir).submissionFile, "utf8")).toContain("id,target");
    expect(describeFailure(r, log)).toBeNull();
  }, 240_000);

  it("with the ENTRYPOINT kept, a run that never reached start.sh says so", async () => {
    const ex = new DockerExecutor(docker!, settingsFor(dir, { entrypoint: "image" }).settings);
    const spec = await makeRun(suite, "tiny-never-ran");
    const r = await attemptOn(ex, spec);
    const log = readFileSync(runPaths(spec.runDir).logFile, "utf8");
    expect(r.outcome, log).toBe("completed");
    expect(r.details?.neverRan, log).toBe("true");
    expect(log).toContain('the image\'s ENTRYPOINT ["/bin/true"] runs, with the command as its arguments');
    expect(describeFailure(r, log)?.cause).toMatch(
      /^the agent wrote no output and no submission and exited \(exit 0\) in 0\.\d s; run\.log says what ran/,
    );
  }, 240_000);

  it("resolves user names from the image's /etc/passwd; a missing one is one sentence", async () => {
    expect(imageId).not.toBe("");
    expect(await imageUser(docker!, imageId, "nonroot")).toBe("1000:1000");
    expect(await imageUser(docker!, imageId, "nonroot:root")).toBe("1000:0");
    expect(await imageUser(docker!, imageId, "1234")).toBe("1234");
    const err = await imageUser(docker!, imageId, "ghost").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserLookupError);
    expect((err as Error).message).toBe(
      "docker.user: the image has no user ghost in /etc/passwd; add it in the Dockerfile (useradd ghost) or set docker.user to a uid",
    );
  }, 120_000);

  it("an agent image without the user cannot run, said as such (a setup failure: docker/index.ts)", async () => {
    const bare = agentsFolder();
    const file = path.join(bare, "agents", "tiny", "Dockerfile");
    writeFileSync(
      file,
      readFileSync(file, "utf8").replace(
        /echo 'nonroot:x:1000:1000[^&]*&& echo 'nonroot:x:1000:' >> \/etc\/group && /,
        "",
      ),
    );
    const ex = new DockerExecutor(docker!, settingsFor(bare).settings);
    const err = await ex.prepareImage().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentBuildError);
    expect(`${(err as AgentBuildError).what}: ${(err as Error).message}`).toBe(
      "the agent image cannot run: docker.user: the image has no user nonroot in /etc/passwd; add it in the Dockerfile (useradd nonroot) or set docker.user to a uid",
    );
  }, 240_000);

  it("refuses a runtime the daemon does not have, naming the ones it has", async () => {
    await expect(checkRuntime(docker!, "no-such-runtime")).rejects.toThrow(
      /^docker\.runtime: no-such-runtime is not a runtime of this Docker daemon \(it has .*runc.*\); install no-such-runtime/,
    );
    await expect(checkRuntime(docker!, "runc")).resolves.toBeUndefined();
  });
});
