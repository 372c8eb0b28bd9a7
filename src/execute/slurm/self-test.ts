import { join } from "node:path";
import type { SelfTest } from "../backend.js";
import { parseComment } from "./job.js";
import { spawnRunner } from "./runner.js";

const firstLine = (s: string) => s.trim().split("\n")[0] ?? "";

/** The conformance suite on Slurm: the agent as a job in command mode, files through the shared folder. */
export const slurmSelfTest: SelfTest = {
  async unavailable() {
    const runner = spawnRunner();
    const nodes = await runner.run("sinfo", ["-h", "-N", "-o", "%N|%T"]);
    if (nodes.code !== 0) return `no Slurm cluster (sinfo: ${firstLine(nodes.stderr) || "not found"})`;
    if (!nodes.stdout.split("\n").some((l) => /\|(idle|mixed|allocated)/.test(l)))
      return `no Slurm node is up (sinfo: ${nodes.stdout.trim().split("\n").join("; ")})`;
    const acct = await runner.run("sacct", ["-n", "-X", "-S", "now", "-o", "JobIDRaw"]);
    return acct.code === 0 ? null : `no Slurm job accounting (sacct: ${firstLine(acct.stderr)})`;
  },
  config: (agent) => ({
    agent: { command: agent.script },
    dataDir: join(agent.sharedDir, "data"),
    slurm: { sharedDir: agent.sharedDir, poll: { minSecs: 0.5, maxSecs: 1 } },
  }),
  async running(suiteId) {
    const q = await spawnRunner().run("squeue", ["-h", "-o", "%i|%k"]);
    if (q.code !== 0) throw new Error(`squeue failed: ${firstLine(q.stderr)}`);
    return q.stdout
      .split("\n")
      .filter(
        (l) =>
          parseComment(l.slice(l.indexOf("|") + 1))?.suite === suiteId.replace(/[^a-zA-Z0-9_.:-]+/g, "-"),
      )
      .map((l) => l.split("|")[0]);
  },
};
