import os from "node:os";
import { parseComment } from "./job.js";
import type { CommandRunner } from "./runner.js";
import { pidAlive } from "../../util/process.js";

/** Job ids in `squeue -h -o %i|%k` output whose comment names an owner on this host that is gone. */
export function orphans(squeueOut: string, host = os.hostname(), isAlive = pidAlive): string[] {
  const out: string[] = [];
  for (const line of squeueOut.split("\n")) {
    const i = line.indexOf("|");
    if (i < 0) continue;
    const id = line.slice(0, i).trim();
    const c = parseComment(line.slice(i + 1));
    if (!c || !/^\d+$/.test(id)) continue;
    const m = /^(.*):(\d+)$/.exec(c.owner);
    if (!m || m[1] !== host) continue; // another runner's jobs: its own Slurm --time bounds them
    const pid = Number(m[2]);
    if (pid !== process.pid && !isAlive(pid)) out.push(id);
  }
  return out;
}

/**
 * Cancels the jobs a crashed suite on this host left behind (found by their comment: the owner's
 * process is gone). Returns their ids. Never throws: a failed sweep only costs cluster time.
 */
export async function sweepOrphans(runner: CommandRunner, log: (line: string) => void): Promise<string[]> {
  const user = os.userInfo().username;
  const q = await runner.run("squeue", ["-h", "-u", user, "-o", "%i|%k"]);
  if (q.code !== 0) {
    log(`could not list earlier jobs (squeue: ${q.stderr.trim().split("\n")[0]})`);
    return [];
  }
  const ids = orphans(q.stdout);
  if (ids.length === 0) return [];
  const c = await runner.run("scancel", ids);
  if (c.code !== 0) {
    log(`could not cancel jobs left by a crashed suite (${ids.join(",")}): ${c.stderr.trim()}`);
    return [];
  }
  log(`cancelled ${ids.length} Slurm job(s) left by a crashed suite: ${ids.join(", ")}`);
  return ids;
}
