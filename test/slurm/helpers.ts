import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pidAlive } from "../../src/util/process.js";

function sh(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 20_000 });
}

/**
 * The node of a running Slurm cluster with accounting, or why not. Tests skip with the reason;
 * with MEDALIST_REQUIRE_SLURM=1 (CI, after scripts/ci-slurm.sh) a missing cluster fails instead.
 */
export function requireSlurm(): string | null {
  let reason = "";
  let node: string | null = null;
  try {
    const lines = sh("sinfo", ["-h", "-N", "-o", "%N|%T"]).trim().split("\n");
    const up = lines.map((l) => l.split("|")).find(([, t]) => /^(idle|mixed|allocated)/.test(t ?? ""));
    if (!up) reason = `no Slurm node is up (sinfo: ${lines.join("; ")})`;
    else {
      sh("sacct", ["-n", "-X", "-S", "now", "-o", "JobIDRaw"]);
      node = up[0];
    }
  } catch (e) {
    reason = `no Slurm cluster (${(e as Error).message.split("\n")[0]}); run scripts/ci-slurm.sh as root`;
  }
  if (node) return node;
  if (process.env.MEDALIST_REQUIRE_SLURM === "1") throw new Error(`MEDALIST_REQUIRE_SLURM=1 but ${reason}`);
  console.warn(`[test/slurm] skipping Slurm cluster tests: ${reason}`);
  return null;
}

/** squeue lines "<id>|<state>|<comment>" of jobs whose comment contains `part` (e.g. "suite=<id> "). */
export function queuedJobs(part: string): string[] {
  return sh("squeue", ["-h", "-o", "%i|%T|%k"])
    .split("\n")
    .filter((l) => l.includes(part));
}

/** Resumes the node if a test left it down or drained. */
export function resumeNode(node: string): void {
  const state = sh("sinfo", ["-h", "-n", node, "-o", "%T"]).trim();
  if (/down|drain/.test(state)) sh("scontrol", ["update", `nodename=${node}`, "state=resume"]);
}

export function scontrol(...args: string[]): string {
  return sh("scontrol", args);
}

export function sacctState(jobId: string): string {
  return sh("sacct", ["-n", "-X", "-P", "-o", "State", "-j", jobId]).trim();
}

export async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * One test file at a time on the shared single-node cluster (a test that takes the node down
 * must not fail another file's jobs): a lock folder naming its holder's pid; a dead holder's lock
 * is taken over. Resolves a function that releases it.
 */
export async function lockCluster(waitMs = 540_000): Promise<() => void> {
  const dir = join(tmpdir(), "medalist-slurm-tests.lock");
  const end = Date.now() + waitMs;
  for (;;) {
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, "pid"), String(process.pid));
      return () => rmSync(dir, { recursive: true, force: true });
    } catch {
      let holder = 0;
      try {
        holder = Number(readFileSync(join(dir, "pid"), "utf8"));
      } catch {
        // being written or removed
      }
      if (holder > 0 && !pidAlive(holder)) rmSync(dir, { recursive: true, force: true });
      else if (Date.now() > end) throw new Error(`the Slurm test lock ${dir} is held by ${holder}`);
      else await new Promise((r) => setTimeout(r, 500));
    }
  }
}
