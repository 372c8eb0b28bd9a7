// The Docker daemon fails while agents run: restarted (SIGTERM), killed (kill -9) and started again,
// or gone for longer than run.reconnectSecs. Injected for real at seeded random moments into a
// private daemon (scripts/fault-docker.sh: its own socket, data root and exec root, no bridge), so
// the machine's shared daemon is never touched. A smaller version of `npm run bench -- faults`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { runSuite } from "../../src/suite/run.js";
import { validateConfig } from "../../src/config/load.js";
import { loadRegistry } from "../../src/registry/registry.js";
import type { SuiteResults } from "../../src/results/schema.js";
import { coinSuite } from "../helpers/coin-suite.js";
import { medal, random } from "../../bench/faults/executor.js";
import { TEST_IMAGE } from "./helpers.js";

const root = resolve(import.meta.dirname, "..", "..");
const SCRIPT = join(root, "scripts", "fault-docker.sh");
const NAME = "medalist-faults-test";
const SOCKET = `/run/${NAME}/docker.sock`;
const TRIALS = Number(process.env.MEDALIST_FAULT_TEST_TRIALS ?? 2);
const SEED = Number(process.env.MEDALIST_FAULT_SEED ?? 33);
const env = { ...process.env, MEDALIST_FAULT_DOCKER_NAME: NAME, MEDALIST_FAULT_IMAGES: TEST_IMAGE };
const fault = (mode: string) => promisify(execFile)(SCRIPT, [mode], { env });

/** Why this machine cannot start a private daemon; null when it can. */
function unavailable(): string | null {
  if (process.getuid?.() !== 0) return "not root (a private dockerd needs root)";
  try {
    execFileSync("sh", ["-c", "command -v dockerd && docker image inspect " + TEST_IMAGE], {
      stdio: "ignore",
    });
  } catch {
    return `no dockerd, or the test image ${TEST_IMAGE} is missing (scripts/ci-docker.sh)`;
  }
  return null;
}

const reason = unavailable();
if (reason && process.env.MEDALIST_REQUIRE_DOCKER === "1")
  throw new Error(`MEDALIST_REQUIRE_DOCKER=1 but the Docker fault tests cannot run: ${reason}`);
if (reason) console.warn(`[test/docker/faults] skipping: ${reason}`);

/** Seed 0 of toy-coin-00 and seed 1 of toy-coin-01 win gold; every agent first sleeps `nap` seconds. */
function suite(dir: string, nap: number, run: Record<string, number> = {}) {
  const coin = coinSuite(dir, 2);
  const config = validateConfig(
    {
      name: "docker-faults",
      competitions: { include: coin.ids },
      seeds: 2,
      executor: "docker",
      concurrency: 2,
      agent: {
        image: TEST_IMAGE,
        command: [
          "/bin/sh",
          "-c",
          `sleep ${nap}; case "$COMPETITION_ID.$SEED" in toy-coin-00.0|toy-coin-01.1) cp /home/data/sample_submission.csv /home/submission/submission.csv;; esac; true`,
        ],
      },
      limits: { time: 30 },
      dataDir: join(dir, "data"),
      docker: { network: "none" },
      run: { stopGraceSecs: 2, ...run },
    },
    "test",
  );
  return { config, registry: loadRegistry(join(dir, "registry")) };
}

const EXPECTED = {
  "toy-coin-00.s0": "completed/gold",
  "toy-coin-00.s1": "completed/none",
  "toy-coin-01.s0": "completed/none",
  "toy-coin-01.s1": "completed/gold",
};

const outcomes = (r: SuiteResults) =>
  Object.fromEntries(r.runs.map((x) => [x.runId, `${x.outcome}/${medal(x.grade)}`]));

/** Runs the suite; `inject` runs `atMs` after the first agent started. */
async function runWithFault(
  s: ReturnType<typeof suite>,
  atMs: number,
  inject: () => Promise<unknown>,
): Promise<{ results: SuiteResults; lines: string[]; injected: Promise<unknown> }> {
  const lines: string[] = [];
  let injected: Promise<unknown> = Promise.resolve();
  const results = await runSuite({
    config: s.config,
    baseDir: root,
    outDir: mkdtempSync(join(tmpdir(), "medalist-docker-faults-out-")),
    label: "head",
    registry: s.registry,
    retryDelayMs: 200,
    heartbeatSecs: 0,
    log: (l) => {
      lines.push(l);
      if (/: started/.test(l) && lines.filter((x) => /: started/.test(x)).length === 1)
        injected = new Promise((r) => setTimeout(r, atMs)).then(inject);
    },
  });
  await injected;
  return { results, lines, injected };
}

describe.skipIf(reason !== null)("Docker daemon faults (a private daemon, injected for real)", () => {
  const saved = process.env.DOCKER_HOST;
  beforeAll(async () => {
    await fault("start");
    process.env.DOCKER_HOST = `unix://${SOCKET}`;
  }, 120_000);
  afterAll(async () => {
    if (saved === undefined) delete process.env.DOCKER_HOST;
    else process.env.DOCKER_HOST = saved;
    await fault("clean");
  }, 120_000);

  for (const mode of ["restart", "crash"] as const)
    it(`a daemon ${mode === "restart" ? "restarted (SIGTERM)" : "killed (kill -9) and started again"} while agents run: every run counted once, with its undisturbed outcome`, async () => {
      const rand = random(SEED + (mode === "crash" ? 1 : 0));
      for (let t = 0; t < TRIALS; t++) {
        const s = suite(mkdtempSync(join(tmpdir(), "medalist-docker-faults-")), 4);
        const atMs = 300 + Math.round(rand() * 2500);
        const { results, lines } = await runWithFault(s, atMs, () => fault(mode));
        const msg = `trial ${t} (${mode} at ${atMs} ms):\n${lines.join("\n")}`;
        expect(results.runs.length, msg).toBe(4);
        expect(outcomes(results), msg).toEqual(EXPECTED);
        // The restart hit the runs in flight: each one it stopped was run again, not the agent's failure.
        if (mode === "restart")
          expect(
            results.runs.some((r) => r.attempts > 1),
            msg,
          ).toBe(true);
      }
    }, 240_000);

  it("a daemon gone for longer than run.reconnectSecs: the suite ends, every run without a result says why in one sentence", async () => {
    const s = suite(mkdtempSync(join(tmpdir(), "medalist-docker-faults-")), 4, { reconnectSecs: 3 });
    const t0 = Date.now();
    const { results, lines } = await runWithFault(s, 1000, () => fault("stop"));
    const msg = lines.join("\n");
    expect(Date.now() - t0, msg).toBeLessThan(90_000);
    expect(results.runs.length, msg).toBe(4);
    for (const r of results.runs) {
      expect(r.outcome, msg).toBe("infra_error");
      expect(r.error, msg).toMatch(
        new RegExp(
          `^the Docker daemon at ${SOCKET} did not answer for \\d+ s \\(run\\.reconnectSecs: 3; last: .*\\): this run and the ones after it have no result`,
        ),
      );
      expect(r.error!.split(". ").length, "one sentence").toBe(1);
    }
    await fault("start");
  }, 240_000);
});
