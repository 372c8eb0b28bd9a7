import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanupSuite } from "../../src/execute/docker/cleanup.js";
import { LABEL } from "../../src/execute/docker/container.js";
import { DockerExecutor } from "../../src/execute/docker/executor.js";
import type { DockerSettings } from "../../src/execute/docker/settings.js";
import { helperEngine } from "../../src/execute/docker/engine.js";
import {
  serveLocalhost5000,
  sidecarRoot,
  SidecarUnavailableError,
  SIDECAR_ROLE,
  startValidateSidecar,
} from "../../src/execute/container/validate-sidecar.js";
import { startValidationServer, type ValidationServer } from "../../src/execute/validation-server.js";
import {
  containersOf,
  makeRun,
  requireDocker,
  requireMlebenchEnv,
  TEST_IMAGE,
  testRuntimes,
  uniqueSuite,
} from "./helpers.js";
import { attemptOn } from "../helpers/attempt.js";

const docker = await requireDocker();
const image = await requireMlebenchEnv(docker);
const runsc = (await testRuntimes(docker)).includes("runsc");

/** Runs `script` in a container of `image` inside `networkMode`; resolves its output. */
async function inside(d: Docker, networkMode: string, suite: string, script: string): Promise<string> {
  const c = await d.createContainer({
    Image: image!,
    Entrypoint: ["bash", "-c", script],
    User: "nonroot",
    Labels: { [LABEL.suite]: suite },
    HostConfig: { NetworkMode: networkMode, CapDrop: ["ALL"] },
  });
  try {
    await c.start();
    await c.wait();
    const raw = (await c.logs({ stdout: true, stderr: true })) as unknown as Buffer;
    const out: string[] = [];
    for (let i = 0; i + 8 <= raw.length; i += 8 + raw.readUInt32BE(i + 4))
      out.push(raw.subarray(i + 8, i + 8 + raw.readUInt32BE(i + 4)).toString());
    return out.join("");
  } finally {
    await c.remove({ force: true });
  }
}

const POST = (csv: string) =>
  `printf '${csv}' > /tmp/s.csv && curl -sS -F file=@/tmp/s.csv http://localhost:5000/validate && curl -sS localhost:5000/health`;

/**
 * One attempt of a Docker executor with `options` behind Medalist's validation server on
 * localhost:5000 (`serveLocalhost5000`); resolves its outcome and run.log, then removes the server,
 * the sidecar's folder and the image `tag` built for it.
 */
async function servedAttempt(suite: string, options: Partial<DockerSettings>, tag?: string) {
  const spec = await makeRun(suite, "r1");
  const server = await startValidationServer();
  const root = sidecarRoot();
  try {
    const executor = new DockerExecutor(docker!, {
      limits: {},
      network: "none",
      stopGraceSecs: 1,
      serveLocalhost5000: true,
      ...options,
    } as DockerSettings);
    executor.localValidate = { server, root: root.dir };
    const sample = path.join(spec.publicDir, "sample_submission.csv");
    const result = await attemptOn(executor, {
      ...spec,
      validationUrl: server.register(spec.competitionId, sample, spec.runId),
    });
    return { result, log: await readFile(path.join(spec.runDir, "run.log"), "utf8") };
  } finally {
    await server.close();
    root.remove();
    if (tag)
      await docker!
        .getImage(tag)
        .remove({ force: true })
        .catch(() => {});
  }
}

describe.skipIf(!image)("localhost:5000 from a validation sidecar", () => {
  const suite = uniqueSuite("sidecar");
  let server: ValidationServer;
  let root: ReturnType<typeof sidecarRoot>;
  let sample: string;
  beforeAll(async () => {
    server = await startValidationServer();
    root = sidecarRoot();
    sample = path.join(root.dir, "sample.csv");
    await writeFile(sample, "id,target\n1,0\n2,0\n3,0\n");
  });
  afterAll(async () => {
    await cleanupSuite(docker!, suite, { graceSecs: 0 });
    await server.close();
    root.remove();
  });

  for (const network of ["none", "bridge"] as const) {
    it(`answers /validate and /health in the agent's namespace (network ${network})`, async () => {
      const sidecar = await serveLocalhost5000(helperEngine(docker!), server, root.dir, {
        image: image!,
        network,
        runName: `${suite}-${network}`,
        labels: { [LABEL.suite]: suite },
        runKey: `${suite}-${network}`,
        validateUrl: server.register("toy", sample, `run-${network}`),
      });
      try {
        expect(sidecar.networkMode).toBe(`container:${sidecar.id}`);
        const info = await docker!.getContainer(sidecar.id).inspect();
        expect(info.Config.Labels[SIDECAR_ROLE.key]).toBe(SIDECAR_ROLE.value);
        expect(info.HostConfig.ReadonlyRootfs).toBe(true);
        expect(info.Config.User).toBe("65534:65534");
        const good = await inside(
          docker!,
          sidecar.networkMode,
          suite,
          POST("id,target\\n1,1\\n2,0\\n3,1\\n"),
        );
        expect(good).toContain('"valid":true');
        expect(good).toContain('"status":"running"');
        const bad = await inside(docker!, sidecar.networkMode, suite, POST("id,target\\n1,1\\n"));
        expect(bad).toMatch(/"valid":false.*1 rows, expected 3/);
      } finally {
        await sidecar.stop();
      }
      await expect(docker!.getContainer(sidecar.id).inspect()).rejects.toThrow();
    }, 120_000);
  }

  it("says why when the image has no python3", async () => {
    const err = await startValidateSidecar(helperEngine(docker!), {
      image: TEST_IMAGE,
      network: "none",
      socketDir: root.dir,
      runName: `${suite}-nopython`,
      labels: { [LABEL.suite]: suite },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SidecarUnavailableError);
    expect((err as Error).message).toMatch(/no python3/);
    expect(await containersOf(docker!, suite)).toEqual([]);
  }, 60_000);

  it("is removed with the suite's containers", async () => {
    const sidecar = await startValidateSidecar(helperEngine(docker!), {
      image: image!,
      network: "none",
      socketDir: root.dir,
      runName: `${suite}-left`,
      labels: { [LABEL.suite]: suite },
    });
    expect((await containersOf(docker!, suite)).map((c) => c.Id)).toContain(sidecar.id);
    await cleanupSuite(docker!, suite, { graceSecs: 0 });
    expect(await containersOf(docker!, suite)).toEqual([]);
  }, 60_000);
});

describe.skipIf(!image)("the Docker executor with serveLocalhost5000", () => {
  it("starts the sidecar first, the agent posts to localhost:5000, both are removed", async () => {
    const suite = uniqueSuite("sidecar-exec");
    // The stand-in's ENTRYPOINT is its root grading-server stand-in: this agent image drops it.
    const ctx = await mkdtemp(path.join(os.tmpdir(), "medalist-build-"));
    await writeFile(path.join(ctx, "Dockerfile"), `FROM ${image}\nENTRYPOINT []\n`);
    const tag = "medalist-agent:test-sidecar";
    const { result, log } = await servedAttempt(
      suite,
      {
        build: { context: ctx, dockerfile: "Dockerfile", args: {}, tag },
        command: [
          "bash",
          "-c",
          "cp /home/data/sample_submission.csv /home/submission/submission.csv && " +
            'curl -sS -F file=@/home/submission/submission.csv "$MEDALIST_VALIDATION_URL"; echo; ' +
            // A hostile agent looks for the relay's folder, its process and the socket behind it.
            "test -e /medalist && echo SEES_MEDALIST || echo NO_MEDALIST; " +
            // (the pattern is not its own text, so this shell's command line does not match it)
            "grep -ls 'forward[.]py' /proc/[0-9]*/cmdline && echo SEES_RELAY || echo NO_RELAY; " +
            "find / -xdev -name validate.sock 2>/dev/null | grep -q . && echo SEES_SOCKET || echo NO_SOCKET",
        ],
        user: "65534:65534",
      },
      tag,
    );
    expect(log).toContain(
      "http://localhost:5000/validate (and /health): Medalist's format check, via sidecar",
    );
    expect(log).toContain('"valid":true');
    // The sidecar shares only its network namespace: no /medalist, no relay process, no socket.
    for (const word of ["NO_MEDALIST", "NO_RELAY", "NO_SOCKET"]) expect(log).toContain(word);
    expect(log).not.toMatch(/SEES_/);
    expect(result.outcome).toBe("completed");
    expect(await containersOf(docker!, suite)).toEqual([]);
  }, 180_000);

  it.skipIf(!runsc)(
    "under gVisor (runsc) a relay in the agent's own sandbox serves localhost:5000, no sidecar",
    async () => {
      const suite = uniqueSuite("sidecar-runsc");
      const { result, log } = await servedAttempt(suite, {
        image: image!,
        command: [
          "bash",
          "-c",
          // The agent's first request, at once: its command starts only once the relay listens.
          "curl -sS localhost:5000/health && echo HEALTH-OK; " +
            "printf 'id,target\\n1,1\\n2,0\\n3,1\\n' > /tmp/s.csv; echo; curl -sS -F file=@/tmp/s.csv http://localhost:5000/validate",
        ],
        entrypoint: "none",
        runtime: "runsc",
        // As the config's default: a read-only root (the agent's wait needs no writable root).
        readOnlyRoot: { bytes: 64 * 1024 ** 2, paths: [] },
      });
      expect(result.outcome, log).toBe("completed");
      expect(log).toContain(
        "through a relay Medalist started in the agent's own gVisor sandbox (docker exec, python3); the agent's command started once it listened",
      );
      expect(log).toContain("HEALTH-OK");
      expect(log).toMatch(/stdout \{.*"valid": ?true/);
      expect(log).not.toContain("via sidecar");
      expect(await containersOf(docker!, suite)).toEqual([]);
    },
    120_000,
  );
  it.skipIf(!runsc)(
    "under gVisor an image without /bin/sh still runs its command (no wait for the relay), and localhost:5000 answers",
    async () => {
      const ctx = await mkdtemp(path.join(os.tmpdir(), "medalist-nosh-"));
      await writeFile(path.join(ctx, "Dockerfile"), `FROM ${image}\nRUN rm /bin/sh\nENTRYPOINT []\n`);
      const tag = "medalist-agent:test-nosh";
      const { result, log } = await servedAttempt(
        uniqueSuite("relay-nosh"),
        {
          build: { context: ctx, dockerfile: "Dockerfile", args: {}, tag },
          command: [
            "bash",
            "-c",
            "test -e /bin/sh && echo HAS-SH || echo NO-SH; " +
              "for i in $(seq 1 100); do curl -sS localhost:5000/health 2>/dev/null && echo HEALTH-OK && break; sleep 0.2; done",
          ],
          entrypoint: "none",
          runtime: "runsc",
        },
        tag,
      );
      expect(result.outcome, log).toBe("completed");
      expect(log).toContain("NO-SH");
      expect(log).toContain(
        "the image has no /bin/sh to wait in: it starts with the relay, and a request to localhost:5000 in its first second may be refused",
      );
      expect(log).toContain("HEALTH-OK");
    },
    180_000,
  );
});
