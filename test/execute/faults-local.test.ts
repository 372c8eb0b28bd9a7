// `medalist run` killed with SIGKILL mid-suite (at a seeded moment after a seeded number of runs
// started), then the same command again: every run of both sides counted once, with the outcome,
// medal and verdict of an undisturbed run. A smaller version of `npm run bench -- faults`.
import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { coinSuite } from "../helpers/coin-suite.js";
import { random, readOutcome, tally } from "../../bench/faults/executor.js";

const root = resolve(import.meta.dirname, "..", "..");
const TRIALS = Number(process.env.MEDALIST_FAULT_TEST_TRIALS ?? 2);
const SEED = Number(process.env.MEDALIST_FAULT_SEED ?? 33);
const KEY = "faults-test-run-key-0123456789abcdef0123456789";

/** `medalist run`; with `killAt`, SIGKILL `killAt.ms` after the `killAt.started`-th run started. */
function medalist(config: string, out: string, killAt?: { started: number; ms: number }) {
  return new Promise<{ code: number | null; signal: string | null; text: string }>((done) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "src/cli.ts", "run", "--config", config, "--out", out],
      {
        cwd: root,
        env: { ...process.env, MEDALIST_RUN_KEY: KEY, NO_COLOR: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let text = "";
    let started = 0;
    const read = (b: Buffer) => {
      text += b.toString();
      const now = (text.match(/: started/g) ?? []).length;
      if (killAt && started < killAt.started && now >= killAt.started)
        setTimeout(() => child.kill("SIGKILL"), killAt.ms);
      started = now;
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.on("close", (code, signal) => done({ code, signal, text }));
  });
}

describe("medalist run killed (kill -9) mid-suite, then resumed", () => {
  it("counts every run once, with the undisturbed outcomes and verdict", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-faults-local-"));
    const coin = coinSuite(dir, 2);
    const config = coin.yml(
      "faults-local",
      { MEDAL_P: "0.8", SALT: "t", SLOW: "0.5" },
      { MEDAL_P: "0.3", SALT: "t", SLOW: "0.5" },
      ["seeds: 2", "concurrency: 2"],
    );
    const ref = await medalist(config, join(dir, "ref"));
    const expected = readOutcome(join(dir, "ref"));
    expect(expected?.runs.length, ref.text).toBe(8);
    const rand = random(SEED);
    for (let t = 0; t < TRIALS; t++) {
      const out = join(dir, `t${t}`);
      const killAt = { started: 1 + Math.floor(rand() * 7), ms: Math.round(rand() * 800) };
      const first = await medalist(config, out, killAt);
      const again = await medalist(config, out);
      const msg = `trial ${t} (${JSON.stringify(killAt)}):\n${first.text}\n--- resume ---\n${again.text}`;
      expect(again.code, msg).toBe(ref.code);
      expect(tally(expected!, readOutcome(out)), msg).toEqual({ lost: 0, doubleCounted: 0, different: 0 });
    }
  }, 600_000);
});
