import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanupSuite } from "../../src/execute/docker/cleanup.js";
import { LABEL } from "../../src/execute/docker/container.js";
import { RelayUnavailableError, startExecRelay } from "../../src/execute/container/validate-relay.js";
import { startValidationServer, type ValidationServer } from "../../src/execute/validation-server.js";
import { requireDocker, requireMlebenchEnv, TEST_IMAGE, testRuntimes, uniqueSuite } from "./helpers.js";

const docker = await requireDocker();
const image = await requireMlebenchEnv(docker);
const runtimes = await testRuntimes(docker);
const T = 120_000;

/** A running container of `img` under `runtime` with no network (sleeps until removed). */
async function sandbox(d: Docker, img: string, runtime: string, suite: string): Promise<Docker.Container> {
  const c = await d.createContainer({
    Image: img,
    Entrypoint: ["sleep", "600"],
    User: img === TEST_IMAGE ? undefined : "nonroot",
    Labels: { [LABEL.suite]: suite },
    HostConfig: { NetworkMode: "none", Runtime: runtime, CapDrop: ["ALL"], Init: true },
  });
  await c.start();
  return c;
}

/** Runs `script` with bash inside `c`; its output. */
async function sh(c: Docker.Container, script: string): Promise<string> {
  const exec = await c.exec({
    Cmd: ["bash", "-c", script],
    AttachStdout: true,
    AttachStderr: true,
    User: "nonroot",
  });
  const stream = (await exec.start({ hijack: true, stdin: false })) as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stream.on("data", (b: Buffer) => chunks.push(b));
  await new Promise((r) => stream.on("end", r));
  const raw = Buffer.concat(chunks);
  const out: string[] = [];
  for (let i = 0; i + 8 <= raw.length; i += 8 + raw.readUInt32BE(i + 4))
    out.push(raw.subarray(i + 8, i + 8 + raw.readUInt32BE(i + 4)).toString());
  return out.join("");
}

describe.skipIf(!image)("localhost:5000 through a relay in the agent's own sandbox", () => {
  const suite = uniqueSuite("relay");
  let server: ValidationServer;
  let dir: string;
  let sample: string;
  beforeAll(async () => {
    server = await startValidationServer();
    dir = await mkdtemp(path.join(os.tmpdir(), "medalist-relay-"));
    sample = path.join(dir, "sample.csv");
    await writeFile(sample, "id,target\n1,0\n2,0\n3,0\n");
  });
  afterAll(async () => {
    await cleanupSuite(docker!, suite, { graceSecs: 0 });
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  for (const runtime of runtimes) {
    it(`answers /validate and /health with network none (${runtime})`, { timeout: T }, async () => {
      const socketPath = path.join(dir, `${runtime}.sock`);
      const close = await server.listenSocket(server.register("toy", sample, `run-${runtime}`), socketPath);
      const c = await sandbox(docker!, image!, runtime, suite);
      const notes: string[] = [];
      const relay = await startExecRelay(c, { socketPath, note: (l) => notes.push(l) });
      try {
        // As upstream's validate_submission.sh posts it: curl -F file=@…
        const good = await sh(
          c,
          "printf 'id,target\\n1,1\\n2,0\\n3,1\\n' > /tmp/s.csv && curl -sS -F file=@/tmp/s.csv http://localhost:5000/validate",
        );
        expect(JSON.parse(good)).toMatchObject({ result: expect.stringMatching(/valid/i) });
        const bad = await sh(
          c,
          "printf 'id,wrong\\n1,1\\n' > /tmp/b.csv && curl -sS -F file=@/tmp/b.csv http://localhost:5000/validate",
        );
        expect(bad).toMatch(/column|header|id|target/i);
        expect(await sh(c, "curl -sS localhost:5000/health")).toMatch(/ok|healthy/i);
        // A body larger than curl's 100-continue threshold goes through whole.
        const big = await sh(
          c,
          "python3 -c \"import sys; sys.stdout.write('id,target\\n' + ''.join('%d,0\\n' % i for i in range(200000)))\" > /tmp/big.csv && curl -sS -F file=@/tmp/big.csv http://localhost:5000/validate",
        );
        expect(big).toMatch(/\{/);
        // A chunked upload is refused by the relay, in words; the relay keeps serving.
        const chunked = await sh(
          c,
          "curl -sS -H 'Transfer-Encoding: chunked' --data-binary @/tmp/s.csv http://localhost:5000/validate",
        );
        expect(chunked).toMatch(/content-length/);
        expect(await sh(c, "curl -sS localhost:5000/health")).toMatch(/ok|healthy/i);
        expect(relay.ended).toBeNull();
        expect(notes).toEqual([]);
      } finally {
        await relay.stop();
        await close();
        await c.remove({ force: true });
      }
    });
  }

  it.skipIf(!runtimes.includes("runsc"))(
    "an agent that imitates the relay on its output only ends its own relay (runsc)",
    { timeout: T },
    async () => {
      const socketPath = path.join(dir, "hostile.sock");
      const close = await server.listenSocket(server.register("toy", sample, "run-hostile"), socketPath);
      const c = await sandbox(docker!, image!, "runsc", suite);
      const notes: string[] = [];
      const relay = await startExecRelay(c, { socketPath, note: (l) => notes.push(l) });
      try {
        // The agent writes a junk frame header to the relay's stdout (same user: /proc/<pid>/fd/1).
        await sh(
          c,
          "for p in /proc/[0-9]*; do grep -q MEDALIST-READY $p/cmdline 2>/dev/null && printf 'MEDALIST-REQ 99999999999\\n' > $p/fd/1; done; true",
        );
        for (let i = 0; i < 100 && relay.ended === null; i++) await new Promise((r) => setTimeout(r, 100));
        expect(relay.ended).toMatch(/frame header|past the/);
        expect(notes.join("\n")).toMatch(/localhost:5000 relay stopped/);
      } finally {
        await relay.stop();
        await close();
        await c.remove({ force: true });
      }
    },
  );

  it("says when the image has no python3 to run the relay", { timeout: T }, async () => {
    const c = await sandbox(docker!, TEST_IMAGE, runtimes.at(-1)!, suite);
    try {
      await expect(startExecRelay(c, { socketPath: path.join(dir, "none.sock") })).rejects.toThrow(
        RelayUnavailableError,
      );
      await expect(startExecRelay(c, { socketPath: path.join(dir, "none.sock") })).rejects.toThrow(/python3/);
    } finally {
      await c.remove({ force: true });
    }
  });
});
