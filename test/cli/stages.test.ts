// The staged sharded workflow on the command line: medalist plan --stages, run --shard --stage,
// decide after each stage (the same decideAfterStage as the decide sub-action).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coinSuite } from "../helpers/coin-suite.js";
import { runCli } from "../helpers/cli.js";

describe("medalist plan --stages, run --stage, decide", () => {
  const dir = mkdtempSync(join(tmpdir(), "medalist-cli-stages-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const M = 12;
  const { yml } = coinSuite(dir, M);
  // The base wins every medal; the head almost never: a clear regression.
  const headCfg = yml("staged", { MEDAL_P: "0.05", SALT: "h" });
  const fixedCfg = yml("staged-fixed", { MEDAL_P: "0.05", SALT: "h" }, undefined, ["seeds: 3"]);
  const baseFile = join(dir, "base", "head", "results.json");
  const planFile = join(dir, "plan.json");

  beforeAll(async () => {
    const base = await runCli(
      "run",
      "--config",
      yml("base", { MEDAL_P: "1", SALT: "b" }),
      "--out",
      join(dir, "base"),
    );
    expect(base.code).toBe(0);
    const plan = await runCli(
      "plan",
      "--config",
      headCfg,
      "--shards",
      "2",
      "--stages",
      "3",
      "--simulations",
      "0",
      "--out",
      planFile,
    );
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain("Stages: 3");
  }, 300_000);

  const decide = (cfg: string, plan: string, files: string[], out: string[] = []) =>
    runCli("decide", "--config", cfg, "--plan", plan, "--baseline", baseFile, ...out, ...files);

  const runStage = async (cfg: string, k: number) => {
    const files: string[] = [];
    for (const i of [1, 2]) {
      const out = join(dir, `${cfg.endsWith("fixed.yml") ? "f" : "a"}-s${k}-${i}`);
      const r = await runCli(
        "run",
        "--config",
        cfg,
        "--shard",
        `${i}/2`,
        "--stage",
        String(k),
        "--plan",
        planFile,
        "--out",
        out,
      );
      expect(r.code, r.all).toBe(0);
      files.push(join(out, "head", "results.json"));
    }
    return files;
  };

  it(
    "stops after the stage where the verdict is reached and reports it with the runs saved",
    { timeout: 300_000 },
    async () => {
      const given: string[] = [];
      let last = { code: -1, stdout: "", stderr: "", all: "" };
      let k = 0;
      for (k = 1; k <= 3; k++) {
        const files = await runStage(headCfg, k);
        // Each stage's shards hold only that stage's seed.
        for (const f of files) {
          const seeds = new Set(
            (JSON.parse(readFileSync(f, "utf8")) as { runs: { seed: number }[] }).runs.map((r) => r.seed),
          );
          expect([...seeds]).toEqual([k - 1]);
        }
        given.push(...files);
        last = await decide(headCfg, planFile, given, ["--out", join(dir, "report")]);
        if (last.stdout.startsWith("decision: stop")) break;
        expect(last.code).toBe(0);
        expect(last.stdout).toMatch(/^decision: continue\nAfter stage \d of 3: /);
      }
      // A clear regression is reached before the last stage.
      expect(k).toBeLessThan(3);
      expect(last.code).toBe(1);
      const report = readFileSync(join(dir, "report", "report.md"), "utf8");
      expect(report).toContain(
        `Monitored after each stage (${k} of 3 stages ran): stopped after stage ${k} (${k * M} of ${3 * M} planned head runs) because \`regressed\` was reached`,
      );
      expect(report).toContain(`${(3 - k) * M} runs were not started`);
      expect(last.stdout).toContain("Gate: failed");
      const cmp = JSON.parse(readFileSync(join(dir, "report", "comparison.json"), "utf8")) as {
        verdict: string;
      };
      expect(cmp.verdict).toBe("regressed");
    },
  );

  it("with fixed seeds every stage runs: continue until the last", { timeout: 300_000 }, async () => {
    const s1 = await runStage(fixedCfg, 1);
    const r = await decide(fixedCfg, planFile, s1);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      "decision: continue\nAfter stage 1 of 3: The config's seeds are fixed (seeds: N; the default, { max: 3, adaptive: true }, stops early): every stage runs.",
    );
  });

  it(
    "refuses bad input with one line: a gap in the stages, a plan without stages, --stage without --plan",
    { timeout: 300_000 },
    async () => {
      const files = await runStage(headCfg, 2);
      const gap = await decide(headCfg, planFile, files);
      expect(gap.code).toBe(2);
      expect(gap.stderr).toContain("no results of stage 1, though stage 2 ran: give every stage's shards");
      const flat = join(dir, "flat.json");
      expect(
        (await runCli("plan", "--config", headCfg, "--shards", "2", "--simulations", "0", "--out", flat))
          .code,
      ).toBe(0);
      const noStages = await decide(headCfg, flat, files);
      expect(noStages.code).toBe(2);
      expect(noStages.stderr).toContain("a plan without stages; plan them: medalist plan --stages K --json");
      const noPlan = await runCli(
        "run",
        "--config",
        headCfg,
        "--shard",
        "1/2",
        "--stage",
        "1",
        "--out",
        join(dir, "x"),
      );
      expect(noPlan.code).toBe(2);
      expect(noPlan.stderr).toContain("--stage needs --plan FILE");
      const bad = await runCli("plan", "--config", headCfg, "--shards", "2", "--stages", "0");
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("--stages expects a whole number from 1 to 16");
    },
  );
});
