// Every `--json` output is RFC 8259 JSON (JSON.parse reads it), also when numbers are NaN or ±Infinity.
import { afterEach, describe, expect, it, vi } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { commands } from "../../src/cli/commands/index.js";
import { toJson } from "../../src/suite/store.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";
import { runCli } from "../helpers/cli.js";

const cli = runCli;

afterEach(() => vi.restoreAllMocks());

const dir = mkdtempSync(join(tmpdir(), "medalist-json-"));
const data = join(dir, "data");

/** Results files whose scores are NaN, Infinity and -Infinity. */
function nonFiniteResults(): string[] {
  return ["base", "head"].map((label, i) => {
    const runs = [
      fakeRun("toy-species", 0, "none", { score: NaN }),
      fakeRun("toy-species", 1, "gold", { score: i ? Infinity : -Infinity }),
      fakeRun("toy-churn", 0, "bronze", { score: 0.75 }),
      fakeRun("toy-churn", 1, "none", { score: NaN }),
    ];
    // A percentile is a finite number in a results file; the score may be anything the metric gave.
    for (const r of runs) if (r.grade && !Number.isFinite(r.grade.score)) r.grade.percentile = 0.5;
    const file = join(dir, `${label}.json`);
    writeFileSync(file, toJson(fakeSuite(label, runs)));
    return file;
  });
}

/** For each command with --json: argument lists whose output holds non-finite numbers where it can. */
const CASES: Record<string, () => Promise<string[][]>> = {
  rank: async () =>
    ["NaN", "Infinity", "-Infinity"].map((s) => [
      ...["rank", "--competition", "toy-house-prices", `--score=${s}`, "--json"],
    ]),
  grade: async () => {
    expect((await cli("prepare", "--competition", "toy-house-prices", "--data-dir", data)).code).toBe(0);
    const sample = readFileSync(
      join(data, "toy-house-prices", "prepared", "public", "sample_submission.csv"),
      "utf8",
    ).split("\n");
    const [header, ...rows] = sample.filter((l) => l !== "");
    // Valid numbers whose squares overflow: the RMSE is Infinity.
    const sub = join(dir, "huge.csv");
    writeFileSync(sub, [header, ...rows.map((r) => `${r.split(",")[0]},1e308`)].join("\n") + "\n");
    return [
      ["grade", "--competition", "toy-house-prices", "--submission", sub, "--data-dir", data, "--json"],
    ];
  },
  compare: async () => [["compare", ...nonFiniteResults(), "--json", "--allow-suite-mismatch"]],
  trend: async () => [["trend", ...nonFiniteResults(), "--json"]],
  competitions: async () => [["competitions", "--json"]],
  plan: async () => {
    const cfg = join(dir, "plan.yml");
    writeFileSync(cfg, "competitions: {split: toy}\nseeds: 2\nagent: {command: x}\n");
    return [["plan", "--config", cfg, "--shards", "2", "--usd-per-gpu-hour", "Infinity", "--json"]];
  },
  prepare: async () => [["prepare", "--competition", "toy-species", "--data-dir", data, "--json"]],
  // A baseline with NaN and ±Infinity scores: the comparison on stdout holds them (verdict error: other suite).
  run: async () => {
    const cfg = join(dir, "run.yml");
    const agents = join(import.meta.dirname, "..", "..", "examples", "agents");
    writeFileSync(
      cfg,
      `competitions: {include: [toy-species]}\nseeds: 1\nagent: {command: node weak/agent.mjs, cwd: ${agents}}\ndataDir: ${data}\n`,
    );
    const [base] = nonFiniteResults();
    return [["run", "--config", cfg, "--out", join(dir, "run-out"), "--baseline", base, "--json"]];
  },
};

describe("every --json output parses as JSON", () => {
  it("every command with --json has a case here", () => {
    const withJson = commands.filter((c) => /\[--json\]|^\s+--json\b/m.test(c.usage)).map((c) => c.name);
    expect(withJson.sort()).toEqual(Object.keys(CASES).sort());
  });

  for (const [name, argvs] of Object.entries(CASES)) {
    it(`${name} --json`, async () => {
      let nonFinite = 0;
      for (const argv of await argvs()) {
        const r = await cli(...argv);
        expect(r.code, argv.join(" ")).toBeLessThanOrEqual(1);
        // JSON.parse rejects a bare NaN or Infinity (the names may appear only as strings).
        const parsed = JSON.parse(r.stdout);
        nonFinite += JSON.stringify(parsed).split('"nonFinite"').length - 1;
      }
      // Where the input had a non-finite number, the output names it.
      if (["rank", "plan", "grade"].includes(name)) expect(nonFinite, name).toBeGreaterThan(0);
    }, 60_000);
  }
});
