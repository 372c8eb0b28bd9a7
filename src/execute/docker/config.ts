import { z } from "zod";
import type { ConfigIssue, ExecutorConfigView } from "../descriptor.js";
import type { SuiteConfig } from "../lifecycle.js";

/** The `docker:` block (executor: docker; its network also applies to Slurm's docker mode). */
export const DockerSchema = z.strictObject({
  network: z.enum(["bridge", "none"]).default("bridge"),
  /** Explicit GPU ids instead of detection with nvidia-smi. */
  gpuIds: z.array(z.string()).optional(),
  /** Deprecated: use run.retries. */
  retries: z.number().int().min(0).optional(),
  /** Deprecated: use run.stopGraceSecs. */
  stopGraceSecs: z.number().int().min(0).max(3600).optional(),
  /**
   * Container user: "uid" or "uid:gid"; default the runner's own uid:gid, or 65534:65534 (nobody)
   * when the runner is root. "image" keeps the image's USER (root in the image is root in its
   * container: see docs/security.md).
   */
  user: z
    .string()
    .regex(/^(\d{1,10}(:\d{1,10})?|image)$/, 'expected "uid", "uid:gid" or "image"')
    .optional(),
  /** Capabilities added back after dropping all (e.g. ["NET_BIND_SERVICE"]); default none. */
  capAdd: z
    .array(z.string().regex(/^[A-Z_]{2,32}$/, "expected a capability name like NET_BIND_SERVICE"))
    .max(40)
    .default([]),
});

export type DockerConfig = z.output<typeof DockerSchema>;

export const DOCKER_DEFAULTS: DockerConfig = { network: "bridge", capAdd: [] };

/** What the docker executor needs from the rest of the config. */
export function checkDocker(c: ExecutorConfigView<DockerConfig>): ConfigIssue[] {
  if (c.agent.image || c.agent.build) return [];
  return [{ path: ["agent", "image"], message: "the docker executor needs agent.image or agent.build" }];
}

/** The suite config as the Docker executor reads it: with its own block. */
export type DockerSuiteConfig = SuiteConfig & { docker: DockerConfig };
