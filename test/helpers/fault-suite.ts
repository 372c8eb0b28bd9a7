// A toy suite for fault injection (test/suite/record-faults.test.ts, bench/faults/): M copies of
// toy-species × S seeds, run in-process by a stand-in executor whose "agent" medals on a seeded
// coin per (competition, seed) — so two runs of the same seeds give the same outcomes — and a hook
// called inside each run where a fault is injected. Checks count what a fault cost: runs lost,
// counted twice, with an outcome other than the undisturbed run's, and executed more than once.
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { compareRuns } from "../../src/compare/compare.js";
import { validateConfig } from "../../src/config/load.js";
import type { Config } from "../../src/config/schema.js";
import type { OpenExecutor } from "../../src/execute/lifecycle.js";
import type { RunSpec } from "../../src/execute/types.js";
import type { SuiteResults } from "../../src/results/schema.js";
import { runSuite, type SuiteOptions } from "../../src/suite/run.js";
import { coinSuite } from "./coin-suite.js";

export interface FaultSuite {
  config: Config;
  /** The agent's folder (empty: the identity does not depend on the results folders). */
  baseDir: string;
  runKey: Buffer;
  runIds: string[];
  /** Every execution, in order (a run executed twice appears twice). */
  executed: string[];
  /** Called inside each run before the agent "writes" its submission; where faults are injected. */
  hook: ((spec: RunSpec) => void | Promise<void>) | null;
  backend: NonNullable<SuiteOptions["backend"]>;
  run(outDir: string, extra?: Partial<SuiteOptions>): Promise<SuiteResults>;
}

const fnv = (text: string) => {
  let h = 2166136261;
  for (const ch of text) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return h / 4294967296;
};

/** The suite in `dir`: `m` competitions × `seeds`; `salt` picks the agent (its medal draws). */
export function faultSuite(dir: string, m: number, seeds: number, salt: string, medalP = 0.5): FaultSuite {
  const { ids } = coinSuite(dir, m);
  const baseDir = join(dir, "agent");
  mkdirSync(baseDir, { recursive: true });
  const config = validateConfig(
    {
      name: "faults",
      competitions: { split: "coin" },
      seeds,
      executor: "local",
      agent: { command: "true" },
      limits: { time: 60 },
      dataDir: join(dir, "data"),
      registryDir: join(dir, "registry"),
      run: { retries: 0 },
    },
    "fault-suite",
  );
  const s: FaultSuite = {
    config,
    baseDir,
    runKey: Buffer.from("k".repeat(64)),
    runIds: ids.flatMap((id) => Array.from({ length: seeds }, (_, i) => `${id}.s${i}`)),
    executed: [],
    hook: null,
    backend: {
      name: "toy",
      async open(): Promise<OpenExecutor> {
        return {
          name: "toy",
          resources: { gpuIds: [], maxParallel: 1 },
          perRun: { gpus: 0 },
          facts: { image: null, imageDigest: null, gpuModel: null },
          execute: async (spec) => {
            s.executed.push(spec.runId);
            await s.hook?.(spec);
            if (fnv(`${salt}:${spec.runId}`) < medalP) {
              try {
                mkdirSync(join(spec.runDir, "submission"), { recursive: true });
                copyFileSync(
                  join(spec.publicDir, "sample_submission.csv"),
                  join(spec.runDir, "submission", "submission.csv"),
                );
              } catch {
                // The agent could not write (a full or read-only disk): no submission, as for a real agent.
              }
            }
            return { outcome: "completed", exitCode: 0, durationMs: 1 };
          },
          close: async () => {},
        };
      },
    },
    run: (outDir, extra = {}) =>
      runSuite({
        config,
        baseDir,
        outDir,
        label: "head",
        backend: s.backend,
        runKey: s.runKey,
        heartbeatSecs: 0,
        ...extra,
      }),
  };
  return s;
}

/** What a fault cost, against the undisturbed results of the same seeds. */
export interface Tally {
  lost: number;
  doubleCounted: number;
  differentOutcomes: number;
  differentVerdict: boolean;
}

const medal = (r: SuiteResults["runs"][number]) => `${r.outcome}:${r.grade?.any_medal ?? "none"}`;

/**
 * `got` (after the fault and the resume) against `clean` (undisturbed): a planned run missing or
 * not run is lost, a run id listed twice is double-counted, an outcome or medal that differs is a
 * different outcome; the verdict against `base` must be the same.
 */
export function tally(
  runIds: string[],
  clean: SuiteResults,
  got: SuiteResults,
  base: SuiteResults,
  config: Config,
): Tally {
  const byId = new Map<string, number>();
  for (const r of got.runs) byId.set(r.runId, (byId.get(r.runId) ?? 0) + 1);
  const want = new Map(clean.runs.map((r) => [r.runId, medal(r)]));
  let lost = 0;
  let differentOutcomes = 0;
  for (const id of runIds) {
    const r = got.runs.find((x) => x.runId === id);
    if (!r || r.details.notRun === "true") lost++;
    else if (medal(r) !== want.get(id)) differentOutcomes++;
  }
  const doubleCounted = [...byId.values()].reduce((a, n) => a + Math.max(0, n - 1), 0);
  const verdict = (head: SuiteResults) => compareRuns(base, head, config.gate).verdict;
  return { lost, doubleCounted, differentOutcomes, differentVerdict: verdict(got) !== verdict(clean) };
}
