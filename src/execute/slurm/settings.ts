import { resolve } from "node:path";
import type { AgentConfig, Limits } from "../../config/parts.js";
import { runPolicy } from "../../config/run-policy.js";
import type { SlurmConfig } from "../../config/blocks/slurm.js";
import type { SlurmSuiteConfig } from "./config.js";
import { UserError } from "../../errors.js";

/** Everything one suite's jobs need, resolved from the config once at open. */
export interface SlurmSettings extends Omit<SlurmConfig, "sharedDir"> {
  /** Absolute; the runner and the nodes see it at this path. */
  sharedDir: string;
  /** The suite's limits, with a count of GPUs per run (Slurm has no "all"). */
  limits: Omit<Limits, "gpus"> & { gpus: number };
  /** Agent command (command mode: run by /bin/sh on the node; container modes: the container's command). */
  command?: string | string[];
  /** Working directory of a command-mode agent, absolute. */
  cwd: string;
  /** Container modes: the image the node runs. */
  image?: string;
  /** docker mode: the container's network. */
  network: "bridge" | "none";
  /** Seconds between SIGTERM and SIGKILL when the time limit is hit. */
  stopGraceSecs: number;
  /** Seconds to wait for a controller that does not answer before the runs left get no result (run.reconnectSecs). */
  reconnectSecs: number;
  /** "<host>:<pid>" of this process, in every job's comment. */
  owner: string;
  /** Marker file in sharedDir written at open: a node that cannot see it fails the job with 97. */
  token: string;
}

export function slurmSettings(
  config: SlurmSuiteConfig,
  agent: AgentConfig,
  baseDir: string,
  owner: string,
  suiteId: string,
): SlurmSettings {
  const { sharedDir, ...rest } = config.slurm;
  const shared = resolve(baseDir, sharedDir ?? ".");
  return {
    ...rest,
    sharedDir: shared,
    token: `${shared}/.medalist-shared-${suiteId.replace(/[^a-zA-Z0-9_.-]+/g, "-")}`,
    limits: { ...config.limits, gpus: slurmGpus(config.limits.gpus) },
    command: agent.command,
    cwd: resolve(baseDir, agent.cwd ?? "."),
    image: agent.image,
    network: config.docker.network,
    stopGraceSecs: runPolicy(config).stopGraceSecs,
    reconnectSecs: runPolicy(config).reconnectSecs,
    owner,
  };
}

/** GPUs per Slurm job: a count ("all" depends on the node a job lands on, which Slurm picks). */
function slurmGpus(gpus: number | "all"): number {
  if (gpus === "all")
    throw new UserError("limits.gpus: all is for the docker executor; Slurm needs a count of GPUs per run");
  return gpus;
}
