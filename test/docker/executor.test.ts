import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupSuite } from "../../src/execute/docker/cleanup.js";
import { DockerExecutor } from "../../src/execute/docker/executor.js";
import { AgentBuildError } from "../../src/execute/container/image.js";
import { executeWithRetries } from "../../src/suite/retry.js";
import { runPaths } from "../../src/execute/types.js";
import { describeFailure } from "../../src/execute/failure.js";
import { startValidationServerForDocker } from "../../src/execute/docker/gateway.js";
import {
  containersOf,
  inspectWhileRunning,
  makeRun,
  requireDocker,
  shellSettings,
  uniqueSuite,
} from "./helpers.js";
import { attemptOn } from "../helpers/attempt.js";

const docker = await requireDocker();
const suite = uniqueSuite("exec");
const policy = { retries: 2, delayMs: 50 };

describe.skipIf(!docker)("DockerExecutor against a real daemon", () => {
  afterAll(async () => {
    await cleanupSuite(docker!, suite, { graceSecs: 0 });
  });

  it("runs an agent that writes a submission: completed, output in run.log with timestamps", async () => {
    const spec = await makeRun(suite, "completes");
    const ex = new DockerExecutor(
      docker!,
      shellSettings(
        'echo "hello from $COMPETITION_ID seed $SEED"; echo "to stderr" >&2; ' +
          "cp /home/data/sample_submission.csv /home/submission/submission.csv; " +
          "cat /home/instructions.txt > /home/logs/seen-instructions.txt; echo 'print(1)' > /home/code/agent.py",
      ),
    );
    const r = await attemptOn(ex, spec);
    expect(r.outcome).toBe("completed");
    expect(r.exitCode).toBe(0);
    expect(r.details?.imageDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const p = runPaths(spec.runDir);
    expect(await readFile(p.submissionFile, "utf8")).toBe("id,target\n1,0\n2,0\n3,0\n");
    expect(await readFile(path.join(p.logsDir, "seen-instructions.txt"), "utf8")).toContain("Predict target");
    expect(await readFile(path.join(p.codeDir, "agent.py"), "utf8")).toBe("print(1)\n");
    const log = await readFile(p.logFile, "utf8");
    expect(log).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z stdout hello from toy-comp seed 0$/m);
    expect(log).toMatch(/Z stderr to stderr$/m);
    expect(await containersOf(docker!, suite)).toHaveLength(0);
  });

  it("reports a crash as failed with its exit code", async () => {
    const spec = await makeRun(suite, "crashes");
    const r = await attemptOn(
      new DockerExecutor(docker!, shellSettings("echo about to crash; exit 3")),
      spec,
    );
    expect(r.outcome).toBe("failed");
    expect(r.exitCode).toBe(3);
    expect(r.error).toContain("code 3");
  });

  it("a command typo is the agent's failure (exit 127) with its cause, not retryable", async () => {
    const viaShell = await makeRun(suite, "typo-shell");
    const a = await attemptOn(new DockerExecutor(docker!, shellSettings("pythn3 agent.py")), viaShell);
    expect(a).toMatchObject({ outcome: "failed", exitCode: 127 });
    expect(a.retryable).not.toBe(true);
    const failure = describeFailure(a, await readFile(runPaths(viaShell.runDir).logFile, "utf8"));
    expect(failure?.cause).toBe("/bin/sh: pythn3: not found (exit 127)");
    // No shell: the container's init cannot exec the command.
    const direct = await makeRun(suite, "typo-exec");
    const b = await attemptOn(
      new DockerExecutor(docker!, {
        ...shellSettings(""),
        command: ["pythn3", "agent.py"],
      }),
      direct,
    );
    expect(b).toMatchObject({ outcome: "failed", exitCode: 127 });
    expect(b.retryable).not.toBe(true);
    const logB = await readFile(runPaths(direct.runDir).logFile, "utf8");
    expect(describeFailure(b, logB)?.cause, logB).toMatch(
      /^\[FATAL tini \(\d+\)\] exec pythn3 failed: No such file or directory \(exit 127\)$/,
    );
  });

  it("stops a hanging agent at its time limit, killing it after the grace period", async () => {
    const spec = await makeRun(suite, "hangs", { timeLimitSecs: 2 });
    // The agent ignores SIGTERM: only the kill after the grace period ends it.
    const ex = new DockerExecutor(
      docker!,
      shellSettings('trap "" TERM; echo hanging; while true; do sleep 1; done', { stopGraceSecs: 1 }),
    );
    const t0 = Date.now();
    const r = await attemptOn(ex, spec);
    expect(r.outcome).toBe("timed_out");
    expect(r.exitCode).toBe(137);
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(await readFile(runPaths(spec.runDir).logFile, "utf8")).toContain("time limit of 2s reached");
  });

  it("reports an agent past its memory limit as oom", async () => {
    const spec = await makeRun(suite, "oom");
    const ex = new DockerExecutor(
      docker!,
      shellSettings('x=0123456789abcdef; while true; do x="$x$x"; done', {
        limits: { memory: 32 * 1024 ** 2 },
      }),
    );
    const r = await attemptOn(ex, spec);
    expect(r.outcome).toBe("oom");
    expect(r.oomKilled).toBe(true);
    expect(r.exitCode).toBe(137);
  });

  it("does not let the agent read the private answers: they are not in the container", async () => {
    const spec = await makeRun(suite, "snoops");
    const script = [
      "cd /home/logs",
      "ls -la /home/data > data.txt",
      "cat /home/data/../private/answers.csv > direct.txt 2>&1; echo rc=$? >> direct.txt",
      "find / -xdev -name 'answers*' 2>/dev/null > found.txt",
      "grep -rl SECRET_ANSWER_1 /home 2>/dev/null > grep.txt",
      "touch /home/data/x 2> ro.txt; echo rc=$? >> ro.txt",
    ].join("; ");
    const r = await attemptOn(new DockerExecutor(docker!, shellSettings(script)), spec);
    expect(r.outcome).toBe("completed");
    const logs = runPaths(spec.runDir).logsDir;
    const read = (f: string) => readFile(path.join(logs, f), "utf8");
    expect(await read("data.txt")).toContain("sample_submission.csv");
    expect(await read("direct.txt")).toMatch(/No such file[\s\S]*rc=1/);
    expect((await read("found.txt")).trim()).toBe("");
    expect((await read("grep.txt")).trim()).toBe("");
    expect(await read("ro.txt")).toMatch(/Read-only file system[\s\S]*rc=1/);
  });

  it("gives the agent only its own environment, and masks secrets in run.log", async () => {
    process.env.MEDALIST_RUNNER_ONLY = "must-not-leak";
    const spec = await makeRun(suite, "env", {
      seed: 2,
      timeLimitSecs: 45,
      env: { OPENAI_API_KEY: "sk-test-secret-value", AGENT_MODE: "fast" },
      secretEnv: ["OPENAI_API_KEY"],
      validationUrl: "http://172.17.0.1:1/x/validate",
    });
    const r = await attemptOn(
      new DockerExecutor(docker!, shellSettings("env > /home/logs/env.txt; echo key=$OPENAI_API_KEY")),
      spec,
    );
    delete process.env.MEDALIST_RUNNER_ONLY;
    expect(r.outcome).toBe("completed");
    const env = Object.fromEntries(
      (await readFile(path.join(runPaths(spec.runDir).logsDir, "env.txt"), "utf8"))
        .trim()
        .split("\n")
        .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
    );
    // Given by Medalist, plus what Docker and the shell always set (HOSTNAME, HOME, PATH from the image, PWD, SHLVL).
    expect(Object.keys(env).sort()).toEqual(
      [
        "AGENT_MODE",
        "CODE_DIR",
        "COMPETITION_ID",
        "DATA_DIR",
        "HOME",
        "HOSTNAME",
        "INSTRUCTIONS_FILE",
        "LOGS_DIR",
        "MEDALIST_VALIDATION_URL",
        "OPENAI_API_KEY",
        "PATH",
        "PWD",
        "SEED",
        "SHLVL",
        "SUBMISSION_DIR",
        "TIME_LIMIT_SECS",
      ].sort(),
    );
    expect(env).toMatchObject({
      COMPETITION_ID: "toy-comp",
      SEED: "2",
      TIME_LIMIT_SECS: "45",
      AGENT_MODE: "fast",
      DATA_DIR: "/home/data",
      SUBMISSION_DIR: "/home/submission",
    });
    const log = await readFile(runPaths(spec.runDir).logFile, "utf8");
    expect(log).toContain("stdout key=***");
    expect(log).not.toContain("sk-test-secret-value");
  });

  it("applies limits, never privileged, no Docker socket", async () => {
    const spec = await makeRun(suite, "limits");
    const ex = new DockerExecutor(
      docker!,
      shellSettings(
        "ls /var/run/docker.sock 2>/dev/null > /home/logs/sock.txt; cat /proc/self/status | grep -i nonewprivs; sleep 3",
        {
          limits: { cpus: 0.5, memory: 64 * 1024 ** 2, shmSize: 16 * 1024 ** 2, pids: 64 },
          network: "none",
        },
      ),
    );
    const running = attemptOn(ex, spec);
    const host = (await inspectWhileRunning(docker!, suite, "limits"))?.HostConfig;
    expect((await running).outcome).toBe("completed");
    expect(host).toMatchObject({
      NanoCpus: 5e8,
      Memory: 64 * 1024 ** 2,
      ShmSize: 16 * 1024 ** 2,
      PidsLimit: 64,
      NetworkMode: "none",
      Privileged: false,
    });
    expect(JSON.stringify(host)).not.toContain("docker.sock");
    expect((await readFile(path.join(runPaths(spec.runDir).logsDir, "sock.txt"), "utf8")).trim()).toBe("");
  });

  it("reports a missing image as infra_error without retrying", async () => {
    const spec = await makeRun(suite, "no-image");
    const ex = new DockerExecutor(docker!, shellSettings("true", { image: "medalist-no-such-image:0" }));
    const { result: r, attempts } = await executeWithRetries((s) => attemptOn(ex, s), spec, policy);
    expect(r.outcome).toBe("infra_error");
    expect(attempts).toBe(1);
    expect(r.error).toContain("medalist-no-such-image:0");
  });

  it("retries a container that fails to start, then reports infra_error", async () => {
    // A GPU request on a daemon without the nvidia runtime fails at start (and if it has one,
    // device id 99 does not exist).
    const spec = await makeRun(suite, "no-start", { gpus: ["99"] });
    const lines: string[] = [];
    const ex = new DockerExecutor(docker!, shellSettings("true"));
    const { result: r, attempts } = await executeWithRetries((s) => attemptOn(ex, s), spec, policy, {
      onRetry: (n) => lines.push(`retry ${n}`),
    });
    expect(r.outcome).toBe("infra_error");
    expect(attempts).toBe(3);
    expect(r.error).toMatch(/starting the container failed/);
    expect(lines.filter((l) => l.includes("retry"))).toHaveLength(2);
    expect(
      await containersOf(docker!, suite).then((l) =>
        l.filter((c) => c.Labels["medalist.run"] === "no-start"),
      ),
    ).toHaveLength(0);
  });

  it("serves format checks to the agent over the bridge, without a score", async () => {
    const server = await startValidationServerForDocker(docker!);
    try {
      const spec = await makeRun(suite, "validates");
      spec.validationUrl = server.register("toy-comp", path.join(spec.publicDir, "sample_submission.csv"));
      // busybox has no curl: speak HTTP/1.0 over nc.
      const post = (file: string, out: string) =>
        `u=\${MEDALIST_VALIDATION_URL#http://}; hp=\${u%%/*}; p=/\${u#*/}; n=$(wc -c < ${file}); ` +
        `{ printf 'POST %s HTTP/1.0\\r\\nHost: %s\\r\\nContent-Type: text/csv\\r\\nContent-Length: %s\\r\\n\\r\\n' "$p" "$hp" "$n"; cat ${file}; sleep 1; } | nc -w 5 \${hp%:*} \${hp#*:} > ${out}`;
      const script = [
        "cp /home/data/sample_submission.csv /home/submission/submission.csv",
        post("/home/submission/submission.csv", "/home/logs/good.txt"),
        "printf 'id,target\\n1,0\\n9,1\\n' > /tmp/bad.csv",
        post("/tmp/bad.csv", "/home/logs/bad.txt"),
      ].join("; ");
      const r = await attemptOn(new DockerExecutor(docker!, shellSettings(script)), spec);
      expect(r.outcome).toBe("completed");
      const good = await readFile(path.join(runPaths(spec.runDir).logsDir, "good.txt"), "utf8");
      const bad = await readFile(path.join(runPaths(spec.runDir).logsDir, "bad.txt"), "utf8");
      expect(good).toContain('"valid":true');
      expect(bad).toContain('"valid":false');
      expect(bad).toContain("2 rows, expected 3");
      expect(good + bad).not.toMatch(/score/i);
    } finally {
      await server.close();
    }
  });
});

describe.skipIf(!docker)("agent images", () => {
  it("builds the image from a Dockerfile, streaming the build output, and records its digest", async () => {
    const { mkdtemp, writeFile } = await import("node:fs/promises");
    const os = await import("node:os");
    const ctx = await mkdtemp(path.join(os.tmpdir(), "medalist-build-"));
    await writeFile(
      path.join(ctx, "agent.sh"),
      "cp /home/data/sample_submission.csv /home/submission/submission.csv; cat /built.txt\n",
    );
    await writeFile(path.join(ctx, "ignored.txt"), "not in the image\n");
    await writeFile(path.join(ctx, ".dockerignore"), "ignored.txt\n");
    await writeFile(
      path.join(ctx, "Agent.Dockerfile"),
      'FROM medalist-test-busybox:1 AS base\nARG GREETING=none\nRUN echo "built with $GREETING" > /built.txt\nCOPY . /agent\nCMD ["/bin/sh", "/agent/agent.sh"]\n',
    );
    const lines: string[] = [];
    const ex = new DockerExecutor(
      docker!,
      {
        build: {
          context: ctx,
          dockerfile: "Agent.Dockerfile",
          target: "base",
          args: { GREETING: "hello" },
          tag: "medalist-agent:test-build",
        },
        limits: {},
        network: "none",
        stopGraceSecs: 1,
      },
      { log: (l) => lines.push(l) },
    );
    const image = await ex.prepareImage();
    expect(image.ref).toBe("medalist-agent:test-build");
    expect(image.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(lines.join("\n")).toMatch(/Step \d\/\d : RUN echo/);
    const spec = await makeRun(suite, "built");
    const r = await attemptOn(ex, spec);
    expect(r.outcome).toBe("completed");
    expect(r.details?.imageDigest).toBe(image.digest);
    expect(await readFile(runPaths(spec.runDir).logFile, "utf8")).toContain("stdout built with hello");
    const ls = await docker!.getImage(image.id).inspect();
    expect(ls.Config.Labels?.["medalist.built"]).toBe("true");
    await docker!
      .getImage("medalist-agent:test-build")
      .remove({ force: true })
      .catch(() => {});
  });

  it("fails a broken build with the builder's message", async () => {
    const { mkdtemp, writeFile } = await import("node:fs/promises");
    const os = await import("node:os");
    const ctx = await mkdtemp(path.join(os.tmpdir(), "medalist-build-"));
    await writeFile(path.join(ctx, "Dockerfile"), "FROM medalist-test-busybox:1\nRUN exit 7\n");
    const ex = new DockerExecutor(docker!, {
      build: { context: ctx, dockerfile: "Dockerfile", args: {}, tag: "medalist-agent:test-broken" },
      limits: {},
      network: "none",
      stopGraceSecs: 1,
    });
    // The failing step and its exit code, in the builder's own terms (image.ts: the cause line).
    await expect(ex.prepareImage()).rejects.toThrow(/step 2\/\d+ \(RUN exit 7\) exited with code 7/);
    await expect(ex.prepareImage()).rejects.toBeInstanceOf(AgentBuildError);
  });
});

const NODE_IMAGE = process.env.MEDALIST_TEST_NODE_IMAGE ?? "medalist-test-node:1";
const hasNode = docker
  ? await docker
      .getImage(NODE_IMAGE)
      .inspect()
      .then(
        () => true,
        () => false,
      )
  : false;
if (docker && !hasNode)
  console.warn(
    `[test/docker] skipping the Node agent test: ${NODE_IMAGE} missing (WITH_NODE=1 scripts/docker-test-image.sh)`,
  );

describe.skipIf(!hasNode)("a Node agent", () => {
  it("posts its submission as multipart to the validation URL and fixes it", async () => {
    const server = await startValidationServerForDocker(docker!);
    try {
      const spec = await makeRun(suite, "node-agent");
      spec.validationUrl = server.register("toy-comp", path.join(spec.publicDir, "sample_submission.csv"));
      const agent = `
        const fs = require("fs");
        const check = async (csv) => {
          const form = new FormData();
          form.append("file", new Blob([csv]), "submission.csv");
          return (await fetch(process.env.MEDALIST_VALIDATION_URL, { method: "POST", body: form })).json();
        };
        (async () => {
          const first = await check("id,target\\n1,1\\n");
          const csv = fs.readFileSync("/home/data/sample_submission.csv", "utf8").replace(/,0$/gm, ",1");
          const second = await check(csv);
          fs.writeFileSync("/home/submission/submission.csv", csv);
          fs.writeFileSync("/home/logs/checks.json", JSON.stringify([first, second]));
        })();`;
      const ex = new DockerExecutor(docker!, {
        ...shellSettings(""),
        image: NODE_IMAGE,
        command: ["node", "-e", agent],
      });
      const r = await attemptOn(ex, spec);
      expect(r.outcome, await readFile(runPaths(spec.runDir).logFile, "utf8")).toBe("completed");
      const [first, second] = JSON.parse(
        await readFile(path.join(runPaths(spec.runDir).logsDir, "checks.json"), "utf8"),
      );
      expect(first.valid).toBe(false);
      expect(second).toEqual({
        competition_id: "toy-comp",
        valid: true,
        result: "Submission is valid.",
        errors: [],
      });
    } finally {
      await server.close();
    }
  });
});
