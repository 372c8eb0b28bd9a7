import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../action/harness.js";

const CLI = join(ROOT, "dist/cli.js");

/** The bundled CLI in its own process, as a runner job would start it. */
function cli(cwd: string, ...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => resolve({ code, out, err }));
  });
}

/** Timings differ between two runs of the same suite; everything else must not. */
function withoutTimings(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutTimings);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => !["durationMs", "startedAt", "finishedAt", "created_at"].includes(k))
        // The runner's folder differs (each shard has its own); the path within it must not.
        .map(([k, x]) => [
          k,
          k === "submission_path" ? String(x).replace(/^.*\/runs\//, "") : withoutTimings(x),
        ]),
    );
  return v;
}
const reportWithoutTimings = (s: string) =>
  s
    .split("\n")
    .filter((l) => !/time/i.test(l))
    .join("\n");

describe("a suite sharded across runners", () => {
  const ws = mkdtempSync(join(tmpdir(), "medalist-shards-"));
  const config = (name: string, seeds: number) =>
    [
      `name: ${name}`,
      "competitions: { split: toy }",
      `seeds: ${seeds}`,
      "executor: local",
      // The agent's files (its run identity) are its own folder, not the workspace the shards write to.
      `agent: { command: node ${join(ROOT, "examples/agents/strong/agent.mjs")}, cwd: ${join(ROOT, "examples/agents")} }`,
      "limits: { time: 60s }",
      "dataDir: data",
      "",
    ].join("\n");

  beforeAll(async () => {
    writeFileSync(join(ws, "medalist.yml"), config("sharded", 2));
    writeFileSync(join(ws, "other.yml"), config("sharded", 1));
    // One unsharded run of the same suite (it also prepares the data the shards share).
    const full = await cli(ws, "run", "--config", "medalist.yml", "--out", "full");
    expect(full.code, full.err).toBe(0);
    const head = JSON.parse(readFileSync(join(ws, "full/head/results.json"), "utf8"));
    const base = {
      ...head,
      label: "base",
      runs: head.runs.map((r: { grade: object }) => ({ ...r, grade: { ...r.grade, any_medal: true } })),
    };
    writeFileSync(join(ws, "base.json"), JSON.stringify(base));
  }, 180_000);
  afterAll(() => rmSync(ws, { recursive: true, force: true }));

  it(
    "plan → 3 shards in 3 processes → merge → compare equals one unsharded run",
    { timeout: 240_000 },
    async () => {
      const plan = await cli(
        ws,
        "plan",
        "--config",
        "medalist.yml",
        "--shards",
        "3",
        "--json",
        "--out",
        "plan.json",
      );
      expect(plan.code, plan.err).toBe(0);
      const p = JSON.parse(plan.out);
      expect(p.count).toBe(3);
      expect(p.matrix.include.map((m: { shard: string }) => m.shard)).toEqual(["1/3", "2/3", "3/3"]);
      expect(p.shards.flatMap((s: { runIds: string[] }) => s.runIds).sort()).toHaveLength(6);

      const shards = await Promise.all(
        [1, 2, 3].map((i) =>
          cli(
            ws,
            "run",
            "--config",
            "medalist.yml",
            "--shard",
            `${i}/3`,
            "--plan",
            "plan.json",
            "--out",
            `s${i}`,
          ),
        ),
      );
      for (const s of shards) expect(s.code, s.err).toBe(0);
      const merged = await cli(
        ws,
        "merge",
        "--out",
        "merged.json",
        "s1/head/results.json",
        "s2/head/results.json",
        "s3/head/results.json",
      );
      expect(merged.code, merged.err).toBe(0);

      const full = JSON.parse(readFileSync(join(ws, "full/head/results.json"), "utf8"));
      const sharded = JSON.parse(readFileSync(join(ws, "merged.json"), "utf8"));
      expect(withoutTimings(sharded.runs)).toEqual(withoutTimings(full.runs));
      expect(sharded.suite).toEqual(full.suite);
      expect(sharded.shard).toBeUndefined();

      const a = await cli(ws, "compare", "base.json", "full/head/results.json", "--json");
      const b = await cli(ws, "compare", "base.json", "merged.json", "--json");
      expect(withoutTimings(JSON.parse(b.out))).toEqual(withoutTimings(JSON.parse(a.out)));
      const ra = await cli(ws, "compare", "base.json", "full/head/results.json", "--fail-on", "regression");
      const rb = await cli(ws, "compare", "base.json", "merged.json", "--fail-on", "regression");
      expect(reportWithoutTimings(rb.out)).toBe(reportWithoutTimings(ra.out));
      expect(rb.code).toBe(ra.code);
    },
  );

  it(
    "a missing shard: its runs are not comparable, the report says so, the gate does not pass",
    { timeout: 120_000 },
    async () => {
      const merged = await cli(
        ws,
        "merge",
        "--out",
        "partial.json",
        "--shards",
        "3",
        "s1/head/results.json",
        "s3/head/results.json",
      );
      expect(merged.code).toBe(1);
      expect(merged.err).toMatch(/never ran \(not run: the results of shard 2\/3 are missing\)/);
      const partial = JSON.parse(readFileSync(join(ws, "partial.json"), "utf8"));
      const lost = partial.runs.filter((r: { details: Record<string, string> }) => r.details.notRun);
      const plan = JSON.parse(readFileSync(join(ws, "plan.json"), "utf8"));
      expect(lost.map((r: { runId: string }) => r.runId).sort()).toEqual([...plan.shards[1].runIds].sort());
      for (const r of lost) expect(r).toMatchObject({ outcome: "infra_error", grade: null, attempts: 0 });
      // Compared with itself the verdict would be no regression; the lost runs still fail the gate.
      writeFileSync(join(ws, "base-same.json"), readFileSync(join(ws, "full/head/results.json")));
      const cmp = await cli(ws, "compare", "base-same.json", "partial.json", "--fail-on", "regression");
      expect(cmp.code).toBe(1);
      expect(cmp.out).toMatch(/Incomplete: \d+ head runs? never ran/);
    },
  );

  it(
    "refuses to merge shards of different suites, or a run twice (exit 2)",
    { timeout: 120_000 },
    async () => {
      const other = await cli(ws, "run", "--config", "other.yml", "--shard", "1/3", "--out", "o1");
      expect(other.code, other.err).toBe(0);
      const mixed = await cli(ws, "merge", "--out", "x.json", "s1/head/results.json", "o1/head/results.json");
      expect(mixed.code).toBe(2);
      expect(mixed.err).toMatch(/cannot merge shards of different suites/);
      expect(mixed.err).not.toMatch(/\n\s+at /);
      const twice = await cli(ws, "merge", "--out", "x.json", "s1/head/results.json", "s1/head/results.json");
      expect(twice.code).toBe(2);
      expect(twice.err).toMatch(/shard 1\/3 is given twice/);
    },
  );

  it("plans within a target wall time, and never an empty matrix", { timeout: 60_000 }, async () => {
    // The toy competitions' registry estimate is 5 s a run: 30 s in all.
    const args = ["plan", "--config", "medalist.yml", "--max-shards", "10", "--target-wall", "12s"];
    const r = await cli(ws, ...args, "--usd-per-gpu-hour", "2.5");
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/6 runs/);
    expect(r.out).toMatch(
      /Expected wall time: 30 s on 1 runner, 10 s on 3 runners \(this plan\), 5 s with a runner per run \(6\)/,
    );
    expect(r.out).toMatch(/Expected GPU cost: none/);
    const j = JSON.parse((await cli(ws, ...args, "--json")).out);
    expect(j.count).toBe(3);
    expect(j.expected.wallSecs).toEqual({ oneRunner: 30, runnerPerRun: 5, chosen: 10 });
    const many = await cli(ws, "plan", "--config", "medalist.yml", "--shards", "50", "--json");
    expect(JSON.parse(many.out).count).toBe(6);
    const bad = await cli(ws, "plan", "--config", "medalist.yml", "--shards", "300");
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--shards expects a whole number from 1 to 256/);
  });
});
