import type { Backend } from "../backend.js";
import { sweepOrphans } from "./cleanup.js";
import { SLURM_CONFIG, SlurmSchema } from "../../config/blocks/slurm.js";
import { openSlurm } from "./executor.js";
import { spawnRunner } from "./runner.js";
import { slurmSelfTest } from "./self-test.js";
import { slurmMachineCheck } from "./check.js";

/** Runs as Slurm jobs, files through a shared folder. */
export const slurmBackend: Backend<"slurm", typeof SlurmSchema> = {
  ...SLURM_CONFIG,
  unsandboxed: (c) => (c.block.mode === "command" ? "slurm mode: command" : null),
  identityFacts: () => ({}),
  open: (ctx) => openSlurm(ctx),
  sweep: (ctx) => sweepOrphans(spawnRunner(), ctx.log),
  machineCheck: (ctx) => slurmMachineCheck(ctx.block),
  selfTest: slurmSelfTest,
};
