import { z } from "zod";
import type { ConfigIssue, ExecutorConfigPart, ExecutorConfigView } from "../executors.js";

/**
 * The `slurm:` block (executor: slurm). Runs are handed to Slurm with sbatch; files travel
 * through `sharedDir`, a folder the runner and every compute node see at the same path.
 */
export const SlurmSchema = z.strictObject({
  /** A folder the runner and the nodes both see (NFS, Lustre, …): data and run folders must be inside. */
  sharedDir: z.string().min(1).optional(),
  partition: z.string().min(1).optional(),
  account: z.string().min(1).optional(),
  qos: z.string().min(1).optional(),
  constraint: z.string().min(1).optional(),
  /** Extra sbatch arguments, passed as given (e.g. ["--reservation=ci"]). */
  sbatchArgs: z.array(z.string().min(1)).default([]),
  /** How GPUs are requested: --gres=gpu[:type]:N or --gpus=[type:]N. */
  gpuFlag: z.enum(["gres", "gpus"]).default("gres"),
  /** GPU type for the request (e.g. "a100"). */
  gpuType: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/, "expected a GPU type like a100")
    .optional(),
  /** Jobs of the suite submitted at once; Slurm schedules them. */
  maxConcurrent: z.number().int().min(1).default(16),
  /** Slurm's --time is the run's time limit plus this (the run's own limit is enforced first). */
  graceSecs: z.number().int().min(0).default(120),
  /** How the agent runs on the node. */
  mode: z.enum(["command", "docker", "apptainer", "pyxis"]).default("command"),
  /** apptainer mode: the binary (apptainer or singularity). */
  apptainer: z.string().min(1).default("apptainer"),
  /** sacct polling: starts at minSecs, backs off ×1.5 to maxSecs while nothing changes. */
  poll: z
    .strictObject({
      minSecs: z.number().positive().default(2),
      maxSecs: z.number().positive().default(30),
    })
    .default({ minSecs: 2, maxSecs: 30 }),
});

export type SlurmConfig = z.output<typeof SlurmSchema>;

export const SLURM_DEFAULTS: SlurmConfig = {
  sbatchArgs: [],
  gpuFlag: "gres",
  maxConcurrent: 16,
  graceSecs: 120,
  mode: "command",
  apptainer: "apptainer",
  poll: { minSecs: 2, maxSecs: 30 },
};

/** What the slurm executor needs from its block and the agent. */
export function checkSlurm(c: ExecutorConfigView<SlurmConfig>): ConfigIssue[] {
  const s = c.block;
  const out: ConfigIssue[] = [];
  if (c.agent.mlebench)
    out.push({
      path: ["agent", "mlebench"],
      message: "agent.mlebench builds a Docker image on the runner: use executor: docker",
    });
  if (!s.sharedDir)
    out.push({
      path: ["slurm", "sharedDir"],
      message: "the slurm executor needs slurm.sharedDir, a folder the runner and the nodes both see",
    });
  if (s.mode === "command" && c.agent.command === undefined)
    out.push({ path: ["agent", "command"], message: "slurm mode command needs agent.command" });
  if (s.mode !== "command" && !c.agent.image)
    out.push({
      path: ["agent", "image"],
      message: `slurm mode ${s.mode} needs agent.image (an image the nodes can pull or read; agent.build is not used)`,
    });
  if (s.mode === "pyxis" && c.agent.command === undefined)
    out.push({
      path: ["agent", "command"],
      message: "slurm mode pyxis needs agent.command (srun runs a command in the image)",
    });
  if (s.poll.minSecs > s.poll.maxSecs)
    out.push({ path: ["slurm", "poll", "minSecs"], message: "must not exceed maxSecs" });
  return out;
}

/** The slurm executor's part of the config. */
export const SLURM_CONFIG: ExecutorConfigPart<"slurm", typeof SlurmSchema> = {
  name: "slurm",
  configSchema: SlurmSchema,
  configDefault: SLURM_DEFAULTS,
  check: checkSlurm,
};
