import type { DockerConfig } from "../../config/blocks/docker.js";
import type { SuiteConfig } from "../lifecycle.js";

/** The suite config as the Docker executor reads it: with its own block. */
export type DockerSuiteConfig = SuiteConfig & { docker: DockerConfig };
