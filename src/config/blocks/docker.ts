import { z } from "zod";
import type { ConfigIssue, ExecutorConfigPart, ExecutorConfigView } from "../executors.js";

/** The `docker:` block (executor: docker; its network also applies to Slurm's docker mode). */
export const DockerSchema = z.strictObject({
  network: z.enum(["bridge", "none"]).default("bridge"),
  /**
   * The network of the image build's RUN steps: "bridge" (the default: upstream's agent Dockerfiles
   * install packages from the internet) or "none". Builds get no runner secrets either way.
   */
  buildNetwork: z.enum(["bridge", "none"]).default("bridge"),
  /** Explicit GPU ids instead of detection with nvidia-smi. */
  gpuIds: z.array(z.string()).optional(),
  /** Deprecated: use run.retries. */
  retries: z.number().int().min(0).optional(),
  /** Deprecated: use run.stopGraceSecs. */
  stopGraceSecs: z.number().int().min(0).max(3600).optional(),
  /**
   * Container user: "uid", "uid:gid", or a user name of the image ("nonroot", "nonroot:group",
   * resolved from its /etc/passwd); default the runner's own uid:gid, or 65534:65534 (nobody) when
   * the runner is root, or "nonroot" for agent.mlebench. "image" keeps the image's USER (root in
   * the image is root in its container: see docs/security.md).
   */
  user: z
    .string()
    .regex(
      /^(image|(\d{1,10}|[a-z_][a-z0-9_-]{0,31}\$?)(:(\d{1,10}|[a-z_][a-z0-9_-]{0,31}))?)$/,
      'expected "uid", "uid:gid", a user name of the image ("nonroot", "nonroot:group") or "image"',
    )
    .optional(),
  /**
   * The image's ENTRYPOINT: "image" keeps it and passes agent.command as its arguments (default),
   * "none" runs agent.command directly (default for agent.mlebench), a list replaces it. The run's
   * log says which.
   */
  entrypoint: z.union([z.enum(["image", "none"]), z.array(z.string()).min(1).max(64)]).optional(),
  /**
   * The OCI runtime of the containers, as registered with the daemon (e.g. "runsc" for gVisor,
   * "sysbox-runc" as MLE-bench's default container config uses). "auto" (the default, also when
   * unset): runsc when the daemon has it, else sysbox-runc, else runc (runtime.ts).
   */
  runtime: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, "expected a runtime name like runsc or sysbox-runc")
    .optional(),
  /** MLE-bench's container-config knob; refused with the reason. */
  privileged: z
    .literal(false, {
      error:
        "Medalist never runs privileged containers (root in a privileged container is root on the runner); use docker.runtime: sysbox-runc for containers inside the agent, or docker.capAdd for one capability",
    })
    .optional(),
  /** Capabilities added back after dropping all (e.g. ["NET_BIND_SERVICE"]); default none. */
  capAdd: z
    .array(z.string().regex(/^[A-Z_]{2,32}$/, "expected a capability name like NET_BIND_SERVICE"))
    .max(40)
    .default([]),
});

export type DockerConfig = z.output<typeof DockerSchema>;

export const DOCKER_DEFAULTS: DockerConfig = { network: "bridge", buildNetwork: "bridge", capAdd: [] };

/** What the docker executor needs from the rest of the config. */
export function checkDocker(c: ExecutorConfigView<DockerConfig>): ConfigIssue[] {
  if (c.agent.image || c.agent.build || c.agent.mlebench) return [];
  return [
    {
      path: ["agent", "image"],
      message: "the docker executor needs agent.image, agent.build or agent.mlebench",
    },
  ];
}

/** The docker executor's part of the config. */
export const DOCKER_CONFIG: ExecutorConfigPart<"docker", typeof DockerSchema> = {
  name: "docker",
  configSchema: DockerSchema,
  configDefault: DOCKER_DEFAULTS,
  check: checkDocker,
};
