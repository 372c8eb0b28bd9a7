// Container-config parity with MLE-bench (pure: no daemon): runtime, shm, entrypoint, GPUs "all",
// user names, and the sentences for the knobs Medalist refuses.
import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { validateConfig } from "../../src/config/load.js";
import { containerOptions } from "../../src/execute/docker/container.js";
import { firstTarFile, needsLookup, parsePasswd, resolveUser } from "../../src/execute/docker/image-user.js";
import { homeLayerDockerfile, homeLayerTag } from "../../src/execute/container/home-layer.js";
import { dockerSettings, entrypointNote } from "../../src/execute/docker/settings.js";
import { dockerResources } from "../../src/execute/docker/setup.js";
import type { DockerSuiteConfig } from "../../src/execute/docker/config.js";
import type { RunSpec } from "../../src/execute/types.js";
import { UserError } from "../../src/errors.js";

const spec: RunSpec = {
  runId: "toy.s0",
  suiteId: "s",
  competitionId: "toy",
  seed: 0,
  publicDir: "/data/toy/prepared/public",
  runDir: "/runs/toy.s0",
  timeLimitSecs: 60,
  env: {},
  gpus: [],
};

const parse = (over: Record<string, unknown>) =>
  configSchema().parse({
    competitions: { include: ["toy"] },
    executor: "docker",
    agent: { image: "agent:1", command: ["python", "run.py"] },
    ...over,
  }) as unknown as DockerSuiteConfig;

const mlebench = (over: Record<string, unknown> = {}) =>
  dockerSettings(
    // What runSuite hands the executor: agent.mlebench kept, its build and command filled in.
    {
      ...parse(over),
      agent: {
        ...parse(over).agent,
        mlebench: { agentsDir: "agents", id: "dummy" },
        command: ["bash", "/home/agent/start.sh"],
      },
    },
    "/repo",
  );

describe("container-config parity", () => {
  it("docker.runtime is the container's runtime; absent, the daemon's default", () => {
    const o = containerOptions(spec, dockerSettings(parse({ docker: { runtime: "runsc" } }), "/r"), "img");
    expect(o.HostConfig?.Runtime).toBe("runsc");
    expect(
      containerOptions(spec, dockerSettings(parse({}), "/r"), "img").HostConfig?.Runtime,
    ).toBeUndefined();
    expect(() => parse({ docker: { runtime: "--privileged" } })).toThrow(/expected a runtime name/);
  });

  it("an MLE-bench agent: shm 4 GiB, user nonroot, ENTRYPOINT bypassed; each can be set", () => {
    const s = mlebench();
    expect(s).toMatchObject({ user: "nonroot", entrypoint: "none", mlebench: true });
    const o = containerOptions(spec, s, "img");
    expect(o.HostConfig?.ShmSize).toBe(4 * 1024 ** 3);
    expect(o.Entrypoint).toEqual([]);
    expect(o.Cmd).toEqual(["bash", "/home/agent/start.sh"]);
    expect(o.User).toBe("nonroot");
    const set = mlebench({ limits: { shmSize: "1g" }, docker: { user: "1000:1000", entrypoint: "image" } });
    expect(containerOptions(spec, set, "img")).toMatchObject({
      User: "1000:1000",
      HostConfig: { ShmSize: 1024 ** 3 },
    });
    expect(containerOptions(spec, set, "img").Entrypoint).toBeUndefined();
    // A plain image keeps its ENTRYPOINT and /dev/shm as Docker sizes it.
    const plain = containerOptions(spec, dockerSettings(parse({}), "/r"), "img");
    expect(plain.Entrypoint).toBeUndefined();
    expect(plain.HostConfig?.ShmSize).toBeUndefined();
    expect(
      containerOptions(spec, dockerSettings(parse({ docker: { entrypoint: ["/bin/sh", "-c"] } }), "/r"), "i")
        .Entrypoint,
    ).toEqual(["/bin/sh", "-c"]);
  });

  it("says in one line what happens to an image's ENTRYPOINT", () => {
    const ep = ["/entrypoint.sh"];
    expect(entrypointNote(null, mlebench())).toBeNull();
    expect(entrypointNote(ep, mlebench())).toBe(
      "the image's ENTRYPOINT [\"/entrypoint.sh\"] does not run (MLE-bench's entrypoint starts a grading server that needs the answers, which never enter the container); docker.entrypoint: none runs bash /home/agent/start.sh directly",
    );
    expect(entrypointNote(ep, dockerSettings(parse({}), "/r"))).toBe(
      'the image\'s ENTRYPOINT ["/entrypoint.sh"] runs, with the command as its arguments (docker.entrypoint: none runs the command directly)',
    );
    expect(entrypointNote(ep, dockerSettings(parse({ docker: { entrypoint: ["/x"] } }), "/r"))).toBe(
      'the image\'s ENTRYPOINT ["/entrypoint.sh"] is replaced by ["/x"] (docker.entrypoint)',
    );
  });

  it("limits.gpus: all gives each run every detected GPU (runs one at a time); -1 gets a sentence", () => {
    const c = parse({ limits: { gpus: "all" } });
    expect(dockerResources(c, ["0", "1", "2"], 16)).toEqual({
      resources: { gpuIds: ["0", "1", "2"], maxParallel: 1, cpus: undefined },
      perRun: { gpus: 3, cpus: undefined },
    });
    expect(dockerResources(c, [], 16).perRun.gpus).toBe(0);
    const raw = { competitions: { include: ["toy"] }, executor: "docker", agent: { image: "a" } };
    expect(() => validateConfig({ ...raw, limits: { gpus: -1 } }, "m.yml")).toThrow(
      /^m\.yml: limits\.gpus: gpus: -1 is MLE-bench's "all GPUs"; write limits\.gpus: all$/,
    );
  });

  it("refuses the knobs Medalist never turns, each with its reason", () => {
    const bad = (docker: Record<string, unknown>) => {
      try {
        validateConfig(
          { competitions: { include: ["toy"] }, executor: "docker", agent: { image: "a" }, docker },
          "m.yml",
        );
      } catch (e) {
        expect(e).toBeInstanceOf(UserError);
        return (e as Error).message;
      }
      throw new Error("accepted");
    };
    expect(bad({ privileged: true })).toMatch(
      /docker\.privileged: Medalist never runs privileged containers/,
    );
    expect(bad({ user: "Robert'); DROP" })).toMatch(/docker\.user: expected "uid", "uid:gid", a user name/);
  });
});

describe("user names", () => {
  const passwd =
    "root:x:0:0:root:/root:/bin/bash\nnonroot:x:1000:1001::/home/nonroot:/bin/bash\nbroken line\n";
  it("resolves names and keeps numbers", () => {
    expect(parsePasswd(passwd)).toHaveLength(2);
    expect(needsLookup("1000:1000")).toBe(false);
    expect(needsLookup("nonroot")).toBe(true);
    expect(resolveUser("nonroot", passwd, null)).toEqual({ ok: "1000:1001" });
    expect(resolveUser("nonroot:staff", passwd, "staff:x:50:\n")).toEqual({ ok: "1000:50" });
    expect(resolveUser("1000", passwd, null)).toEqual({ ok: "1000:1001" });
    expect(resolveUser("4242", passwd, null)).toEqual({ ok: "4242:4242" });
    expect(resolveUser("ghost", null, null)).toEqual({
      error:
        "docker.user: the image has no user ghost in /etc/passwd (it has no /etc/passwd); add it in the Dockerfile (useradd ghost) or set docker.user to a uid",
    });
    expect(resolveUser("nonroot:ghosts", passwd, "")).toMatchObject({
      error: expect.stringContaining("no group ghosts"),
    });
  });

  it("reads the one file of a tar archive", () => {
    const body = Buffer.from("root:x:0:0::/root:/bin/sh\n");
    const header = Buffer.alloc(512);
    header.write("passwd", 0);
    header.write(body.length.toString(8).padStart(11, "0") + "\0", 124);
    const tar = Buffer.concat([header, body, Buffer.alloc(512 - body.length), Buffer.alloc(1024)]);
    expect(firstTarFile(tar)).toBe(body.toString());
    expect(firstTarFile(Buffer.alloc(10))).toBeNull();
  });

  it("makes /home writable in a layer over the agent's image, its USER kept", () => {
    expect(homeLayerDockerfile({ ref: "a:1", id: "sha256:abc", digest: "", user: "nonroot" })).toBe(
      "FROM sha256:abc\nUSER root\nRUN find /home -path /home/data -prune -o -exec chmod a+rw {} +\nUSER nonroot\n",
    );
    expect(homeLayerTag("medalist-agent:suite")).toBe("medalist-agent:suite-home");
    expect(homeLayerTag("localhost:5000/agent")).toBe("localhost:5000/agent:home");
  });
});
