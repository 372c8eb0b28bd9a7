import type { DockerConfig } from "../../config/blocks/docker.js";
import type { SlurmConfig } from "../../config/blocks/slurm.js";
import type { SuiteConfig } from "../lifecycle.js";

/** The suite config as the Slurm executor reads it: its block, and docker.network for docker mode. */
export type SlurmSuiteConfig = SuiteConfig & { slurm: SlurmConfig; docker: DockerConfig };
