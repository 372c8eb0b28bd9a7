// Each mistake a new user makes gets one sentence naming the cause and the fix, with exit code 2
// for bad input: driven through the real CLI entry, never the internet (.invalid names, loopback).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { createServer as createHttpServer } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadRegistry, selectCompetitions } from "../../src/registry/registry.js";
import { RESERVE_FILE } from "../../src/suite/disk.js";
import { progressLine } from "../../src/suite/progress.js";
import { downloadCompetition } from "../../src/prepare/kaggle.js";
import { runCli } from "../helpers/cli.js";

const root = resolve(import.meta.dirname, "..", "..");

const cli = runCli;

/** One line, no stack trace. */
function oneSentence(text: string): string {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  expect(lines, text).toHaveLength(1);
  expect(text).not.toMatch(/\n\s+at /);
  return lines[0];
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "medalist-messages-"));
  // No Kaggle credentials unless a test sets them: an empty config folder, no variables.
  vi.stubEnv("KAGGLE_USERNAME", "");
  vi.stubEnv("KAGGLE_KEY", "");
  vi.stubEnv("KAGGLE_CONFIG_DIR", join(dir, "no-kaggle"));
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

const lite = selectCompetitions(loadRegistry(), { split: "lite", include: [] });

/** The FAILED lines of `medalist prepare`, by competition. */
function failedLines(stdout: string): string[] {
  return stdout.split("\n").filter((l) => l.startsWith("FAILED"));
}

describe("prepare, offline or without credentials", () => {
  it("offline: one try for the host, the DNS cause said once, one line per competition, in under 30 s", async () => {
    vi.stubEnv("KAGGLE_USERNAME", "someone");
    vi.stubEnv("KAGGLE_KEY", "secret");
    const data = join(dir, "data");
    const t0 = Date.now();
    const r = await cli(
      "prepare",
      ...["--split", "lite", "--data-dir", data, "--kaggle-url", "http://kaggle.invalid/api/v1"],
    );
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(r.code).toBe(1);
    const failed = failedLines(r.stdout);
    expect(failed).toHaveLength(lite.length);
    for (const [i, id] of lite.entries())
      expect(failed[i]).toBe(`FAILED    ${id}: not downloaded: cannot resolve kaggle.invalid`);
    // Tried once (one "downloading" line), no retries, nothing said about a partial file.
    expect(r.stderr.match(/downloading from Kaggle/g)).toHaveLength(1);
    expect(r.stderr).not.toMatch(/resuming|partial|\.part/);
    const cause = r.stderr.split("\n").at(-1)!;
    expect(cause).toMatch(
      /^medalist prepare: cannot resolve kaggle\.invalid \((ENOTFOUND|EAI_AGAIN)\): no network, or no DNS on this machine\? Connect it/,
    );
    // Nothing half-made: no zip, no .part anywhere.
    const files = readdirSync(data, { recursive: true }).map(String);
    expect(files.filter((f) => /\.zip|\.part/.test(f))).toEqual([]);
  }, 60_000);

  it("a host that refuses connections is tried once too (loopback)", async () => {
    vi.stubEnv("KAGGLE_USERNAME", "someone");
    vi.stubEnv("KAGGLE_KEY", "secret");
    // A port nobody listens on: bind one, then close it.
    const server = createServer();
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    const { port } = server.address() as { port: number };
    await new Promise((ok) => server.close(ok));
    const ids = lite.slice(0, 3);
    const r = await cli(
      "prepare",
      ...ids.flatMap((id) => ["--competition", id]),
      ...["--data-dir", join(dir, "data"), "--kaggle-url", `http://127.0.0.1:${port}/api/v1`],
    );
    expect(r.code).toBe(1);
    expect(failedLines(r.stdout)).toEqual(
      ids.map((id) => `FAILED    ${id}: not downloaded: cannot connect to 127.0.0.1:${port}`),
    );
    expect(r.stderr.match(/downloading from Kaggle/g)).toHaveLength(1);
    expect(r.stderr.split("\n").at(-1)).toMatch(
      new RegExp(`^medalist prepare: cannot connect to 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)`),
    );
  }, 60_000);

  it("a connection cut before any byte: retried, then 'nothing was downloaded', no partial file claimed", async () => {
    // Loopback: every response announces 1000 bytes, then the connection closes before the first.
    const server = createHttpServer((_req, res) => {
      res.writeHead(200, { "content-length": "1000" });
      res.flushHeaders();
      setTimeout(() => res.destroy(), 20);
    });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    const { port } = server.address() as { port: number };
    try {
      const dest = join(dir, "x.zip");
      const err = await downloadCompetition("x", dest, {
        baseUrl: `http://127.0.0.1:${port}/api/v1`,
        credentials: { username: "u", key: "k" },
        retries: 1,
        retryDelayMs: 0,
      }).catch((e: Error) => e);
      expect((err as Error).message).toMatch(
        /^x: connection (closed|dropped) after 0 .*; nothing was downloaded, run again to retry$/,
      );
      expect(existsSync(`${dest}.part`)).toBe(false);
    } finally {
      server.close();
    }
  });

  it("without credentials: the credentials error once, one line per competition, exit 2, no folder made", async () => {
    const data = join(dir, "data");
    const r = await cli("prepare", "--split", "lite", "--data-dir", data);
    expect(r.code).toBe(2);
    expect(failedLines(r.stdout)).toEqual(
      lite.map((id) => `FAILED    ${id}: not downloaded: no Kaggle credentials`),
    );
    expect(r.stderr).not.toContain("downloading");
    expect(oneSentence(r.stderr)).toMatch(
      /^medalist prepare: no Kaggle credentials: set KAGGLE_USERNAME and KAGGLE_KEY, or put kaggle\.json/,
    );
    expect(existsSync(data)).toBe(false);
  });
});

describe("data not prepared", () => {
  const config = (extra: string[] = []) => {
    const file = join(dir, "medalist.yml");
    writeFileSync(
      file,
      [
        "competitions: {include: [spooky-author-identification]}",
        "seeds: 1",
        "agent: {command: 'true'}",
        ...extra,
      ].join("\n"),
    );
    return file;
  };

  it("run: says the competition is not prepared and the command to run; the folder is not created", async () => {
    const data = join(dir, "nothing-here");
    const r = await cli("run", "--config", config([`dataDir: ${data}`]), "--out", join(dir, "out"));
    expect(r.code).toBe(2);
    expect(oneSentence(r.stderr)).toBe(
      `medalist run: dataDir ${data}: 1 competition is not prepared (spooky-author-identification): ` +
        `run \`medalist prepare --competition spooky-author-identification --data-dir ${data}\` first ` +
        "(it downloads from Kaggle, with KAGGLE_USERNAME and KAGGLE_KEY set), or set dataDir to where MLE-bench prepared them",
    );
    expect(existsSync(data)).toBe(false);
    expect(existsSync(join(dir, "out", "head", RESERVE_FILE))).toBe(false);
  });

  it("run --data-dir is accepted and stands in for the config's dataDir", async () => {
    const data = join(dir, "given");
    const r = await cli("run", "--config", config(), "--out", join(dir, "out"), "--data-dir", data);
    expect(r.code).toBe(2);
    expect(oneSentence(r.stderr)).toContain(`dataDir ${data}: 1 competition is not prepared`);
    expect(existsSync(data)).toBe(false);
  });

  it("grade: the missing answers first, exit 2, nothing graded", async () => {
    const sub = join(dir, "submission.csv");
    writeFileSync(sub, "id,EAP,HPL,MWS\nid1,0.3,0.3,0.4\n");
    const empty = join(dir, "empty");
    mkdirSync(empty);
    const r = await cli(
      "grade",
      ...["--competition", "spooky-author-identification", "--submission", sub, "--data-dir", empty],
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(oneSentence(r.stderr)).toBe(
      `medalist grade: the answers of spooky-author-identification are missing ` +
        `(${join(empty, "spooky-author-identification", "prepared", "private", "test.csv")} does not exist): ` +
        `prepare the competition first (medalist prepare --competition spooky-author-identification --data-dir ${empty}), ` +
        "or pass the --data-dir where it is prepared",
    );
  });
});

describe("config mistakes", () => {
  const write = (name: string, text: string) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const run = (file: string) => cli("run", "--config", file, "--out", join(dir, "out"));
  const base = "competitions: {split: toy}\nagent: {command: x}\n";

  it('seed: 2 → unknown field, did you mean "seeds"', async () => {
    const file = write("a.yml", `${base}seed: 2\n`);
    const r = await run(file);
    expect(r.code).toBe(2);
    expect(oneSentence(r.stderr)).toBe(`medalist run: ${file}: unknown field "seed" (did you mean "seeds"?)`);
  });

  it("seeds: three → the expected type, and what it got", async () => {
    const file = write("b.yml", `${base}seeds: three\n`);
    const r = await run(file);
    expect(r.code).toBe(2);
    expect(oneSentence(r.stderr)).toBe(
      `medalist run: ${file}: seeds: expected a number or a mapping (key: value), got the string "three"`,
    );
  });

  it("a YAML indentation error → the line, the problem and the offending text", async () => {
    const file = write("c.yml", "competitions:\n  split: toy\n include: [a]\nagent: {command: x}\n");
    const r = await run(file);
    expect(r.code).toBe(2);
    expect(oneSentence(r.stderr)).toBe(
      `medalist run: ${file}: cannot parse, line 3, column 1: all mapping items must start at the same column: " include: [a]"`,
    );
  });

  it("--confg → unknown option, did you mean --config", async () => {
    const r = await cli("run", "--confg", "x.yml");
    expect(r.code).toBe(2);
    expect(oneSentence(r.stderr)).toBe(
      "medalist run: unknown option --confg; did you mean --config? (see --help)",
    );
  });

  it("a JSON file that is not a results document → one sentence, for compare, report and view", async () => {
    const file = write("other.json", JSON.stringify({ hello: 1 }));
    for (const argv of [
      ["compare", file, file],
      ["report", file],
      ["view", file, "--out", join(dir, "viewer")],
    ]) {
      const r = await cli(...argv);
      expect(r.code, argv[0]).toBe(2);
      expect(oneSentence(r.stderr)).toBe(
        `medalist ${argv[0]}: ${file} is not a Medalist results document (it has no "suite" and "runs"): ` +
          "pass a results.json written by `medalist run` (DIR/head/results.json or DIR/base/results.json)",
      );
    }
  });
});

describe("executors checked up front", () => {
  it("slurm: --out outside slurm.sharedDir is one sentence and exit 2, before any job", async () => {
    const shared = join(dir, "shared");
    mkdirSync(shared);
    const file = join(dir, "slurm.yml");
    writeFileSync(
      file,
      [
        "competitions: {include: [toy-species]}",
        "seeds: 1",
        "executor: slurm",
        `slurm: {sharedDir: ${shared}, mode: command}`,
        "agent: {command: 'true'}",
        `dataDir: ${join(shared, "data")}`,
      ].join("\n"),
    );
    const out = join(dir, "elsewhere");
    const r = await cli("run", "--config", file, "--out", out);
    expect(r.code).toBe(2);
    const last = r.stderr.split("\n").at(-1);
    expect(last).toBe(
      `medalist run: the results folder ${join(out, "head")} is not inside slurm.sharedDir (${shared}), ` +
        "where the nodes write each run's files: choose one inside it (--out, or the action's results-dir input)",
    );
    expect(r.stderr).not.toMatch(/infra_error|infra error|\n\s+at /);
    expect(existsSync(join(out, "head", RESERVE_FILE))).toBe(false);
  }, 60_000);

  it("docker: a missing image is one line, exit 2, no reserve left behind", async () => {
    const docker = await import("../../src/execute/docker/client.js")
      .then((m) => m.connectDocker({ attempts: 1 }))
      .catch(() => null);
    if (!docker) {
      if (process.env.MEDALIST_REQUIRE_DOCKER === "1") throw new Error("Docker is required");
      return;
    }
    const file = join(dir, "docker.yml");
    // A registry under .invalid: the pull fails at once, without the internet.
    writeFileSync(
      file,
      [
        "competitions: {include: [toy-species]}",
        "seeds: 1",
        "executor: docker",
        "agent: {image: 'registry.invalid/medalist-missing:1'}",
        `dataDir: ${join(dir, "data")}`,
      ].join("\n"),
    );
    const r = await cli("run", "--config", file, "--out", join(dir, "out"));
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/pulling|pull failed|\n\s+at /);
    const errors = r.stderr.split("\n").filter((l) => l.includes("image"));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^medalist run: image registry\.invalid\/medalist-missing:1 is not on this runner and could not be pulled \(.+\): build it or docker load it on the runner, or set agent\.build$/,
    );
    expect(existsSync(join(dir, "out", "head", RESERVE_FILE))).toBe(false);
    expect(existsSync(join(dir, "out", "head", "results.json"))).toBe(false);
  }, 120_000);
});

describe("one vocabulary", () => {
  it("the progress line says 'timed out', as the report does", () => {
    const line = progressLine(
      "head",
      { done: 1, total: 1 },
      {
        kind: "finished",
        runId: "toy-species.s0",
        exec: { outcome: "timed_out", exitCode: null, durationMs: 2000, error: null } as never,
        report: null,
      },
    );
    expect(line).toBe("[head] 1/1 toy-species.s0: timed out in 2.0s, not graded, not graded");
    expect(line).not.toContain("timed_out");
  });

  it("a run past its time limit: 'timed out' on the progress line and in the report", async () => {
    const file = join(dir, "slow.yml");
    writeFileSync(
      file,
      [
        "competitions: {include: [toy-species]}",
        "seeds: 1",
        `agent: {command: "node -e 'setTimeout(() => {}, 120000)'", cwd: ${root}}`,
        "limits: {time: 2}",
        "run: {stopGraceSecs: 1}",
        `dataDir: ${join(dir, "data")}`,
      ].join("\n"),
    );
    const r = await cli("run", "--config", file, "--out", join(dir, "out"));
    expect(r.stderr).toMatch(/\[head\] 1\/1 toy-species\.s0: timed out in /);
    expect(r.stderr + r.stdout).not.toContain("timed_out");
    expect(r.stdout).toContain("timed out");
  }, 120_000);
});
