// `npm run bench -- faults`, the records' part: faults while run records are written, injected at
// a seeded run of a toy suite (2 competitions × 4 seeds, run in-process by a stand-in executor;
// test/helpers/fault-suite.ts), then the suite resumed. Each row counts, over `trials` injections,
// runs lost, counted twice, verdicts other than the undisturbed suite's, and runs executed again.
// The disk faults need root (a tmpfs per fault kind); without it their rows are left out, saying so.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rng } from "../../src/prepare/random.js";
import type { SuiteResults } from "../../src/results/schema.js";
import { LOCK_FILE } from "../../src/suite/lock.js";
import { faultSuite, tally, type FaultSuite } from "../../test/helpers/fault-suite.js";
import type { FaultOptions, FaultRow } from "./types.js";

const M = 2;
const SEEDS = 4;
const BACKEND = "toy suite, in-process executor";

function fill(dir: string): void {
  const file = join(dir, "filler");
  for (const size of [64 * 1024, 512])
    try {
      for (;;) writeFileSync(file, Buffer.alloc(size, 1), { flag: "a" });
    } catch {
      /* full */
    }
}

function tmpfs(work: string, size: string): string | null {
  const dir = mkdtempSync(join(work, "fs-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { stdio: "pipe" });
    return dir;
  } catch {
    return null;
  }
}

interface Ctx {
  suite: FaultSuite;
  clean: SuiteResults;
  base: SuiteResults;
  work: string;
}

type Trial = (c: Ctx, at: number, r: () => number, n: number) => Promise<SuiteResults>;

/** One fault kind, `trials` times: a fault at a seeded run, then the resume; summed. */
async function row(c: Ctx, fault: string, trials: number, seed: number, trial: Trial): Promise<FaultRow> {
  const r = rng(seed);
  const out: FaultRow = {
    fault,
    backend: BACKEND,
    trials,
    lost: 0,
    doubleCounted: 0,
    differentVerdicts: 0,
    extraRuns: 0,
  };
  for (let n = 0; n < trials; n++) {
    const at = Math.floor(r() * c.suite.runIds.length);
    c.suite.executed.length = 0;
    c.suite.hook = null;
    const got = await trial(c, at, r, n);
    const t = tally(c.suite.runIds, c.clean, got, c.base, c.suite.config);
    out.lost += t.lost;
    out.doubleCounted += t.doubleCounted;
    out.differentVerdicts += t.differentVerdict || t.differentOutcomes > 0 ? 1 : 0;
    out.extraRuns += c.suite.executed.length - c.suite.runIds.length;
  }
  return out;
}

const quiet = { log: () => {} };

/** The suite stops (it must, with a UserError); the fault is cleared; it resumes. */
async function stopThenResume(c: Ctx, out: string, clear: () => void): Promise<SuiteResults> {
  const err = await c.suite.run(out, quiet).then(
    () => null,
    (e: Error) => e,
  );
  clear();
  if (err && err.name !== "UserError") throw err;
  c.suite.hook = null;
  return c.suite.run(out, quiet);
}

export async function faultRows(opts: FaultOptions): Promise<FaultRow[]> {
  const work = mkdtempSync(join(tmpdir(), "medalist-bench-faults-"));
  const mounts: string[] = [];
  try {
    const suite = faultSuite(join(work, "suite"), M, SEEDS, "head");
    const clean = await suite.run(join(work, "clean"), quiet);
    const base = await faultSuite(join(work, "base"), M, SEEDS, "base").run(join(work, "base-out"), quiet);
    const c: Ctx = { suite, clean, base, work };
    const rows: FaultRow[] = [];

    const full = tmpfs(work, "3m");
    const ro = tmpfs(work, "8m");
    const store = tmpfs(work, "2m");
    for (const m of [full, ro, store]) if (m) mounts.push(m);
    if (!full || !ro || !store)
      console.warn("bench faults/records: no tmpfs (needs root): disk rows left out");

    if (full)
      rows.push(
        await row(c, "results folder full (ENOSPC) mid-suite", opts.trials, opts.seed + 1, (c, at, _r, n) => {
          const out = join(full, `t${n}`);
          c.suite.hook = (spec) => {
            if (spec.runId === c.suite.runIds[at]) fill(full);
          };
          return stopThenResume(c, out, () => rmSync(join(full, "filler"), { force: true })).finally(() =>
            rmSync(out, { recursive: true, force: true }),
          );
        }),
      );
    if (ro)
      rows.push(
        await row(
          c,
          "results folder read-only (EROFS) mid-suite",
          opts.trials,
          opts.seed + 2,
          (c, at, _r, n) => {
            const out = join(ro, `t${n}`);
            c.suite.hook = (spec) => {
              if (spec.runId === c.suite.runIds[at]) execFileSync("mount", ["-o", "remount,ro", ro]);
            };
            return stopThenResume(c, out, () => {
              execFileSync("mount", ["-o", "remount,rw", ro]);
              // The lock stays on a read-only folder; the next process takes a dead one's lock over.
              rmSync(join(out, LOCK_FILE), { force: true });
            }).finally(() => rmSync(out, { recursive: true, force: true }));
          },
        ),
      );
    if (store)
      rows.push(
        await row(
          c,
          "run store full (ENOSPC) mid-suite, then the job re-run on a fresh results folder",
          opts.trials,
          opts.seed + 3,
          async (c, at, _r, n) => {
            const dir = join(store, `t${n}`);
            c.suite.hook = (spec) => {
              if (spec.runId === c.suite.runIds[at]) fill(store);
            };
            await c.suite.run(join(work, `store-a${n}`), { ...quiet, storeDir: dir });
            rmSync(join(store, "filler"), { force: true });
            c.suite.hook = null;
            // Extra: what the second attempt executed (undisturbed, it would reuse every stored run).
            const got = await c.suite.run(join(work, `store-b${n}`), { ...quiet, storeDir: dir });
            rmSync(dir, { recursive: true, force: true });
            return got;
          },
        ),
      );

    rows.push(
      await row(
        c,
        "record torn mid-write (run.json, run.seal, results.json cut at a seeded byte)",
        opts.trials,
        opts.seed + 4,
        async (c, at, r, n) => {
          const out = join(work, `torn${n}`);
          await c.suite.run(out, quiet);
          const run = join(out, "runs", c.suite.runIds[at]);
          const file = [join(run, "run.json"), join(run, "run.seal"), join(out, "results.json")][
            Math.floor(r() * 3)
          ];
          truncateSync(file, Math.floor(r() * statSync(file).size));
          c.suite.executed.length = 0;
          const got = await c.suite.run(out, quiet);
          // The undisturbed first pass executed every run once.
          c.suite.executed.unshift(...c.suite.runIds);
          return got;
        },
      ),
    );

    rows.push(
      await row(
        c,
        "runner killed (SIGKILL) mid-suite, then resumed",
        opts.trials,
        opts.seed + 5,
        async (c, _at, r, n) => {
          const out = join(work, `killed${n}`);
          const child = spawn(
            process.execPath,
            [
              "--import",
              "tsx",
              join(import.meta.dirname, "..", "..", "test", "helpers", "fault-child.ts"),
              join(work, "suite"),
              String(M),
              String(SEEDS),
              "head",
              out,
            ],
            { stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, FAULT_RUN_MS: "30" } },
          );
          const started: string[] = [];
          let killAt = 0;
          await new Promise<void>((resolve) => {
            let first = true;
            child.stdout.on("data", (d: Buffer) => {
              for (const l of d.toString().split("\n")) if (l.startsWith("exec ")) started.push(l.slice(5));
              if (first && started.length > 0) {
                first = false;
                // A seeded moment within the suite's run time (8 runs of 30 ms and their records).
                killAt = Math.floor(r() * 400);
                setTimeout(() => child.kill("SIGKILL"), killAt);
              }
            });
            child.on("exit", () => resolve());
          });
          c.suite.executed.length = 0;
          const got = await c.suite.run(out, quiet);
          c.suite.executed.unshift(...started);
          return got;
        },
      ),
    );
    return rows;
  } finally {
    for (const m of mounts)
      try {
        execFileSync("umount", ["-l", m]);
      } catch {
        /* gone */
      }
    rmSync(work, { recursive: true, force: true });
  }
}
