// `medalist check` against the real local daemon: the daemon and docker.runtime, and the agent's
// image buildable (its Dockerfile's base image on this machine) or not, with nothing built.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Docker from "dockerode";
import { requireDocker, TEST_IMAGE } from "./helpers.js";
import { runCli } from "../helpers/cli.js";
import { baseImages } from "../../src/execute/docker/check.js";

let docker: Docker | null = null;
let dir: string;
beforeAll(async () => {
  docker = await requireDocker();
  dir = mkdtempSync(join(tmpdir(), "medalist-check-docker-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A config of an agent built from `from`, with docker.runtime when given. */
function config(name: string, from: string, runtime?: string): string {
  const agent = join(dir, name);
  mkdirSync(agent, { recursive: true });
  writeFileSync(join(agent, "Dockerfile"), `FROM ${from} AS base\nFROM base\nCMD ["true"]\n`);
  const file = join(dir, `${name}.yml`);
  writeFileSync(
    file,
    [
      `name: ${name}`,
      "competitions: {include: [toy-species]}",
      "seeds: 1",
      "executor: docker",
      `agent: {build: {context: ${name}}, command: "true"}`,
      ...(runtime ? [`docker: {runtime: ${runtime}}`] : []),
      `dataDir: ${join(dir, "data")}`,
    ].join("\n"),
  );
  return file;
}

describe("medalist check with Docker", () => {
  it("reads a Dockerfile's base images, stage names and scratch left out", () => {
    expect(
      baseImages("FROM a:1 AS x\nFROM x\nFROM --platform=linux/amd64 b\nFROM scratch\nFROM $ARG\n"),
    ).toEqual(["a:1", "b"]);
  });

  it("a base image on this machine: every line ✓; nothing is built", async () => {
    if (!docker) return;
    const before = (await docker.listImages()).length;
    const r = await runCli("check", "--config", config("present", TEST_IMAGE));
    expect(r.stdout.split("\n")).toEqual([
      expect.stringMatching(
        /^✓ config: .*present\.yml: suite present, 1 run \(1 competition × 1 seed\), executor docker$/,
      ),
      `✓ agent: image built from ${join(dir, "present", "Dockerfile")}`,
      expect.stringMatching(/^✓ data: 1 competition ready in /),
      "✓ executor: docker: the daemon answers",
      `✓ image: buildable: the base image ${TEST_IMAGE} is on this machine`,
      "✓ sandbox: each run in its own container (the daemon's default runtime)",
      "medalist check: every check passed; exit code 0.",
    ]);
    expect(r.code).toBe(0);
    expect((await docker.listImages()).length).toBe(before);
  });

  it("a missing base image and an unknown runtime: ✗ lines, exit 2", async () => {
    if (!docker) return;
    const r = await runCli(
      "check",
      "--config",
      config("missing", "mlebench-env-not-here:1", "no-such-runtime"),
    );
    expect(r.code).toBe(2);
    const out = r.stdout.split("\n");
    expect(out).toContainEqual(
      expect.stringMatching(
        /^✗ executor: docker\.runtime: no-such-runtime is not a runtime of this Docker daemon \(it has .*runc.*\); /,
      ),
    );
    expect(out).toContain(
      "✗ image: the Dockerfile's base image mlebench-env-not-here:1 is not on this machine and no registry is asked: build or docker load it first",
    );
    expect(out.at(-1)).toBe("medalist check: 2 problems; exit code 2.");
  });
});
