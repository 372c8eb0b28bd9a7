import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UserError } from "../../src/errors.js";
import { CONTAINER_PATHS } from "../../src/execute/contract.js";
import {
  fetchPinnedInstructions,
  INSTRUCTION_PINS,
  mlebenchCheckout,
  readCheckoutInstructions,
  suiteInstructions,
} from "../../src/mlebench/instructions.js";

const sha = (s: string) => createHash("sha256").update(s).digest("hex");
const tmp = (p: string) => mkdtempSync(join(tmpdir(), `medalist-${p}-`));

/** A stand-in MLE-bench checkout: our own texts at upstream's file names (never upstream's text). */
function fakeCheckout(): string {
  const dir = tmp("mlebench-checkout");
  mkdirSync(join(dir, "environment"), { recursive: true });
  mkdirSync(join(dir, "agents", "dummy"), { recursive: true });
  writeFileSync(join(dir, "environment", "instructions.txt"), "plain text: /home/data, localhost:5000\n");
  writeFileSync(join(dir, "environment", "instructions_obfuscated.txt"), "obfuscated text\n");
  return dir;
}

const docker = { name: "docker" }; // no agentPaths: the container paths
const mlebenchAgent = (checkout: string) => ({
  mlebench: { agentsDir: join(checkout, "agents"), id: "dummy" },
});

describe("upstream instructions from an MLE-bench checkout", () => {
  it("reads each variant from environment/ and says it is not the pinned text", () => {
    const dir = fakeCheckout();
    const plain = readCheckoutInstructions(dir, "mlebench");
    expect(plain.text).toBe("plain text: /home/data, localhost:5000\n");
    expect(plain.source).toBe(join(dir, "environment", "instructions.txt"));
    expect(plain.pinned).toBe(false);
    expect(readCheckoutInstructions(dir, "mlebench-obfuscated").text).toBe("obfuscated text\n");
  });

  it("refuses a folder that is not a checkout, naming the file it looked for", () => {
    const dir = tmp("not-checkout");
    expect(() => readCheckoutInstructions(dir, "mlebench")).toThrow(UserError);
    expect(() => readCheckoutInstructions(dir, "mlebench")).toThrow(
      join(dir, "environment", "instructions.txt"),
    );
  });

  it("finds the checkout from mlebenchDir, else above agent.mlebench.agentsDir", () => {
    expect(mlebenchCheckout({ mlebenchDir: "up" }, {}, "/base")).toBe("/base/up");
    expect(mlebenchCheckout({}, { mlebench: { agentsDir: "mle-bench/agents" } }, "/base")).toBe(
      "/base/mle-bench",
    );
    expect(mlebenchCheckout({}, { command: "x" }, "/base")).toBeNull();
  });

  it("the pins are SHA-256 digests of upstream's two files", () => {
    expect(INSTRUCTION_PINS.mlebench.file).toBe("environment/instructions.txt");
    expect(INSTRUCTION_PINS["mlebench-obfuscated"].file).toBe("environment/instructions_obfuscated.txt");
    for (const p of Object.values(INSTRUCTION_PINS)) expect(p.sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("suiteInstructions", () => {
  it("gives the checkout's text to an MLE-bench agent in a container, and nothing for medalist", async () => {
    const dir = fakeCheckout();
    const lines: string[] = [];
    const base = {
      agent: mlebenchAgent(dir),
      baseDir: "/",
      executor: docker,
      log: (l: string) => lines.push(l),
    };
    const got = await suiteInstructions({ ...base, config: { instructions: "mlebench-obfuscated" } });
    expect(got?.text).toBe("obfuscated text\n");
    expect(lines.join("\n")).toContain("not upstream's pinned text");
    expect(await suiteInstructions({ ...base, config: { instructions: "medalist" } })).toBeNull();
  });

  it("refuses an executor whose paths are not MLE-bench's, in one sentence", async () => {
    const local = { name: "local", agentPaths: () => ({ ...CONTAINER_PATHS, data: "/tmp/x/public" }) };
    const run = suiteInstructions({
      config: { instructions: "mlebench" },
      agent: mlebenchAgent(fakeCheckout()),
      baseDir: "/",
      executor: local,
    });
    await expect(run).rejects.toThrow(UserError);
    await expect(run).rejects.toThrow(/the local executor does not give the agent/);
  });

  it("refuses an agent not packaged for MLE-bench (no localhost:5000 for it)", async () => {
    const run = suiteInstructions({
      config: { instructions: "mlebench", mlebenchDir: fakeCheckout() },
      agent: { command: "python agent.py" },
      baseDir: "/",
      executor: docker,
    });
    await expect(run).rejects.toThrow(/localhost:5000/);
  });
});

describe("upstream instructions fetched pinned (loopback server)", () => {
  let server: Server;
  let base: string;
  const served: Record<string, string> = {};
  let hits = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits++;
      const body = served[req.url ?? ""];
      if (body === undefined) res.writeHead(404).end();
      else res.writeHead(200).end(body);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pinned`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const pinsFor = (plain: string, obf: string) => ({
    mlebench: { file: "environment/instructions.txt", sha256: sha(plain) },
    "mlebench-obfuscated": { file: "environment/instructions_obfuscated.txt", sha256: sha(obf) },
  });

  it("keeps a text whose SHA-256 matches the pin, then reads it from the cache", async () => {
    served["/pinned/environment/instructions.txt"] = "served plain\n";
    const cacheDir = tmp("instr-cache");
    const pins = pinsFor("served plain\n", "unused");
    const got = await fetchPinnedInstructions("mlebench", { baseUrl: base, cacheDir, pins });
    expect(got).toMatchObject({
      text: "served plain\n",
      pinned: true,
      source: `${base}/environment/instructions.txt`,
    });
    expect(readdirSync(cacheDir)).toEqual([`${sha("served plain\n")}.txt`]);
    const before = hits;
    const again = await fetchPinnedInstructions("mlebench", { baseUrl: base, cacheDir, pins });
    expect(again.text).toBe("served plain\n");
    expect(hits).toBe(before); // from the cache
  });

  it("refuses a text with another SHA-256 and caches nothing", async () => {
    served["/pinned/environment/instructions_obfuscated.txt"] = "tampered\n";
    const cacheDir = tmp("instr-cache");
    const run = fetchPinnedInstructions("mlebench-obfuscated", {
      baseUrl: base,
      cacheDir,
      pins: pinsFor("x", "the real one\n"),
    });
    await expect(run).rejects.toThrow(UserError);
    await expect(run).rejects.toThrow(
      `has SHA-256 ${sha("tampered\n")}, not the pinned ${sha("the real one\n")}`,
    );
    expect(existsSync(cacheDir) ? readdirSync(cacheDir) : []).toEqual([]);
  });

  it("says what to do when the text cannot be fetched", async () => {
    const run = fetchPinnedInstructions("mlebench", {
      baseUrl: `${base}/missing`,
      cacheDir: tmp("instr-cache"),
    });
    await expect(run).rejects.toThrow(/HTTP 404.*set mlebenchDir/);
  });
});
