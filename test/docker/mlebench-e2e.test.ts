import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { validateConfig } from "../../src/config/load.js";
import { evaluate } from "../../src/session/evaluate.js";
import { openSession } from "../../src/session/input.js";
import { requireDocker, requireMlebenchEnv, testRuntimes } from "./helpers.js";

// End to end: the project's own MLE-bench-style agent folder (test/fixtures/mlebench-agents/agents/toy-mle),
// built FROM the offline stand-in base image (scripts/mlebench-standin-image.sh), run on the toy
// competitions through `agent.mlebench` by the same evaluate() that `medalist run` calls.
const docker = await requireDocker();
const image = await requireMlebenchEnv(docker);
const runtimes = await testRuntimes(docker);
const root = join(import.meta.dirname, "..", "..");
const work = mkdtempSync(join(tmpdir(), "medalist-mlebench-e2e-"));
const dataDir = join(work, "data");

function configFor(name: string, extra: Record<string, unknown>) {
  return validateConfig(
    {
      name,
      seeds: 1,
      executor: "docker",
      agent: { mlebench: { agentsDir: "test/fixtures/mlebench-agents/agents", id: "toy-mle" } },
      limits: { time: 120 },
      dataDir,
      run: { stopGraceSecs: 2 },
      ...extra,
    },
    join(root, "medalist.yml"),
  );
}

async function evaluateIn(config: ReturnType<typeof configFor>, tag: string) {
  const resultsDir = mkdtempSync(join(work, `${tag}-`));
  const lines: string[] = [];
  const ev = await evaluate({
    session: openSession(config, root),
    resultsDir,
    baseline: { kind: "none" },
    log: (l) => lines.push(l),
  });
  const headDir = join(resultsDir, "head");
  const log = (runId: string) => readFileSync(join(headDir, "runs", runId, "run.log"), "utf8");
  return { ev, headDir, lines, log };
}

describe.skipIf(!image)("an MLE-bench agent folder through agent.mlebench", () => {
  afterAll(async () => {
    // The agent's image and the writable-/home layer built over it.
    for (const tag of ["medalist-agent:mlebench-e2e-home", "medalist-agent:mlebench-e2e"])
      await docker!
        .getImage(tag)
        .remove({ force: true })
        .catch(() => {});
    rmSync(work, { recursive: true, force: true });
  });

  it("runs every toy competition: completed, valid, graded, the validation answer in its log", async () => {
    // runc: the sidecar shares the agent's network namespace (runsc below, with its relay).
    const config = configFor("mlebench-e2e", {
      competitions: { split: "toy" },
      docker: { runtime: "runc" },
    });
    const { ev, headDir, lines, log } = await evaluateIn(config, "bridge");
    const runs = ev.head.runs;
    expect(runs.map((r) => r.competitionId).sort()).toEqual(["toy-churn", "toy-house-prices", "toy-species"]);
    for (const r of runs) {
      const text = log(r.runId);
      expect({ run: r.runId, outcome: r.outcome, error: r.error ?? null }).toEqual({
        run: r.runId,
        outcome: "completed",
        error: null,
      });
      expect(r.grade?.valid_submission).toBe(true);
      expect(typeof r.grade?.score).toBe("number");
      // start.sh's own checks, each of which exits 1 on failure.
      expect(text).toContain("ls /private: denied, as it should be");
      expect(text).toMatch(/validation answer: \{.*"valid":true.*Submission is valid/);
      // The omegaconf kwargs of config.yaml (merge keys and anchors resolved) reached main.py.
      expect(text).toContain("options: agent.name=toy-mle agent.shrink=0.5 agent.strategy=prior");
      // Medalist says what it did with the image's entrypoint and whose :5000 answers.
      expect(text).toMatch(/ENTRYPOINT \["\/entrypoint\.sh"\] does not run/);
      expect(text).toContain("http://localhost:5000/validate (and /health): Medalist's format check");
      expect(text).toMatch(/user nonroot, home \/home\/nonroot, competition toy-/);
      // A read-only root; /home/agent and HOME writable with the image's files (start.sh checks both).
      expect(text).toContain("write to /: refused, as it should be");
      expect(text).toMatch(
        /read-only root filesystem: the agent can write only to .*\/home\/code, \/home\/agent, \/home\/nonroot; /,
      );
    }
    expect(existsSync(join(headDir, "results.json"))).toBe(true);
    expect(existsSync(ev.paths.report)).toBe(true);
    expect(lines.join("\n")).toContain("localhost:5000/validate and /health");
    // The agents' containers and their sidecars are gone.
    for (const r of runs) {
      const name = r.details?.container;
      expect(name).toBeTruthy();
      for (const n of [name!, `${name}-validate`])
        expect(
          await docker!
            .getContainer(n)
            .inspect()
            .catch(() => null),
        ).toBeNull();
    }
  }, 900_000);

  for (const runtime of runtimes)
    it(`with network none localhost:5000 still answers: nothing else is reachable (${runtime}, auto)`, async () => {
      // docker.runtime: auto picks runsc when the daemon has it; runc is asked for by name.
      const config = configFor("mlebench-e2e", {
        competitions: { include: ["toy-churn"] },
        docker: { network: "none", ...(runtime === "runc" ? { runtime: "runc" } : {}) },
      });
      const { ev, headDir, log } = await evaluateIn(config, `none-${runtime}`);
      const [r] = ev.head.runs;
      expect({ outcome: r.outcome, error: r.error ?? null }).toEqual({ outcome: "completed", error: null });
      expect(r.grade?.valid_submission).toBe(true);
      const text = log(r.runId);
      // upstream's validate_submission.sh against localhost:5000, from inside the sandbox.
      expect(text).toMatch(/validation answer: \{.*"valid":true/);
      expect(text).toContain(`runtime: ${runtime} (`);
      expect(text).toContain(
        runtime === "runsc"
          ? "Medalist's format check, through a relay Medalist started in the agent's own gVisor sandbox"
          : "Medalist's format check, via sidecar",
      );
      expect(r.details?.runtime).toBe(runtime);
      expect(text).toContain("write to /: refused, as it should be");
      const results = JSON.parse(readFileSync(join(headDir, "results.json"), "utf8"));
      expect(results.environment.runtime).toBe(runtime);
      expect(readFileSync(ev.paths.report, "utf8")).toContain(`runtime: ${runtime}`);
    }, 600_000);
});
