// The agent's and the limits' schemas: a leaf module (zod only), so the executors can name these
// types without importing the whole config (config/schema.ts derives its executor blocks from them).
import path from "node:path";
import { z } from "zod";
import { bytes } from "./units.js";

/** "90", "90s", "30m", "2h" → seconds. */
export function parseDuration(v: string | number): number | null {
  if (typeof v === "number") return v;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(s|m|h)?\s*$/i.exec(v);
  if (!m) return null;
  const n = Number(m[1]);
  const unit = (m[2] ?? "s").toLowerCase();
  return n * (unit === "h" ? 3600 : unit === "m" ? 60 : 1);
}

/** Longest time limit: 7 days (Node timers overflow past 2^31 ms, about 24.8 days). */
export const MAX_TIME_SECS = 7 * 24 * 3600;

const duration = z.union([z.number().positive(), z.string()]).transform((v, ctx) => {
  const s = parseDuration(v);
  if (s === null || !(s > 0)) {
    ctx.addIssue({
      code: "custom",
      message: `expected a duration like 600, "90s", "30m" or "2h", got ${JSON.stringify(v)}`,
    });
    return z.NEVER;
  }
  if (s > MAX_TIME_SECS) {
    ctx.addIssue({ code: "custom", message: `at most ${MAX_TIME_SECS} seconds (7 days), got ${s}` });
    return z.NEVER;
  }
  return s;
});

/** Most bytes of agent environment (names and values); the OS refuses to start larger ones. */
export const MAX_ENV_BYTES = 64 * 1024;

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected an environment variable name");

/** Prefixes of the runner's own variables (its tokens, cache and results URLs, the action's inputs). */
export const RUNNER_SECRET_PREFIXES = ["GITHUB_", "ACTIONS_", "RUNNER_", "INPUT_"] as const;

/** Why `name` cannot be an agent secret (one of the runner's own credentials), or null. */
export function runnerSecretProblem(name: string): string | null {
  const upper = name.toUpperCase();
  const prefix = RUNNER_SECRET_PREFIXES.find((p) => upper.startsWith(p));
  if (!prefix) return null;
  return `${name} is one of the runner's own variables (${RUNNER_SECRET_PREFIXES.map((p) => `${p}*`).join(", ")}) and is never passed to the agent; store the agent's credential under another name`;
}

const secretName = envName.superRefine((name, ctx) => {
  const problem = runnerSecretProblem(name);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

export const AgentSchema = z
  .strictObject({
    /** Command for the agent: run by a shell (local executor) or as the container's command (docker). */
    command: z.union([z.string().min(1), z.array(z.string()).min(1)]).optional(),
    /** Docker: an existing image tag. */
    image: z.string().min(1).optional(),
    /** Docker: build the image from a Dockerfile in the repository. */
    build: z
      .strictObject({
        context: z.string().default("."),
        dockerfile: z.string().default("Dockerfile"),
        target: z.string().optional(),
        args: z.record(z.string(), z.string()).default({}),
      })
      .optional(),
    /**
     * An MLE-bench agent folder, unchanged: the entry `id` of a config.yaml under `agentsDir`
     * (relative to the config file), built from its Dockerfile and started as upstream starts it
     * (src/mlebench/). Docker executor only; instead of image, build and command.
     */
    mlebench: z.strictObject({ agentsDir: z.string().min(1), id: z.string().min(1) }).optional(),
    /** Working directory for the local executor (relative to the config file). */
    cwd: z.string().optional(),
    /** Plain variables passed to the agent. */
    env: z.record(envName, z.string()).default({}),
    /** Names of runner environment variables passed to the agent (masked in logs). */
    secrets: z.array(secretName).max(100).default([]),
    /**
     * Local executor: which files of the working folder (cwd) are the agent's code. Their
     * content hash is part of each run's identity: a change re-executes finished runs.
     */
    files: z
      .strictObject({
        /** Globs relative to cwd; default every file. */
        include: z.array(z.string().min(1)).optional(),
        /** Globs left out; default .git, node_modules, .medalist, __pycache__, .venv, venv, *.pyc. */
        ignore: z.array(z.string().min(1)).optional(),
      })
      .optional(),
  })
  .refine((a) => !a.mlebench || (a.image === undefined && a.build === undefined && a.command === undefined), {
    path: ["mlebench"],
    message:
      "agent.mlebench builds the agent's image from its Dockerfile and runs its start.sh: leave out agent.image, agent.build and agent.command",
  })
  .refine((a) => envBytes(a.env) <= MAX_ENV_BYTES, {
    path: ["env"],
    message: `the agent's environment is larger than ${MAX_ENV_BYTES} bytes`,
  })
  .describe("The agent under test.");

/** Bytes an environment takes (NAME=value and a NUL each). */
export function envBytes(env: Record<string, string>): number {
  let n = 0;
  for (const [k, v] of Object.entries(env)) n += Buffer.byteLength(k) + Buffer.byteLength(v) + 2;
  return n;
}

/** Paths the agent's own folders and the runner's mounts use: never a writable place of the root. */
const RESERVED_PATHS = [
  "/",
  "/home",
  "/home/data",
  "/home/submission",
  "/home/logs",
  "/home/code",
  "/tmp",
  "/var/tmp",
  "/dev",
  "/proc",
  "/sys",
  "/etc",
];

/** An absolute, normalised path in the container for limits.disk.writable. */
const writablePath = z
  .string()
  .refine(
    (p) => p.startsWith("/") && path.posix.normalize(p) === p && !p.endsWith("/") && !p.includes("\0"),
    {
      error: (i) => `expected an absolute path like "/opt/conda/envs/agent", got ${JSON.stringify(i.input)}`,
    },
  )
  .refine(
    (p) => !RESERVED_PATHS.some((r) => p === r || (r !== "/" && r !== "/home" && p.startsWith(`${r}/`))),
    {
      error: (i) =>
        `${JSON.stringify(i.input)} is a path Medalist mounts or the system needs; name a folder of the agent's own (e.g. /home/agent/venv)`,
    },
  );

export const LimitsSchema = z.strictObject({
  time: duration.default(600),
  cpus: z.number().positive().optional(),
  memory: bytes.optional(),
  shmSize: bytes.optional(),
  pids: z.number().int().positive().optional(),
  /**
   * GPUs per run, or "all": every GPU the runner has goes to each run (docker executor; runs then
   * never overlap on a runner with GPUs). MLE-bench's container config writes this as gpus: -1.
   */
  gpus: z
    .union(
      [
        z
          .number()
          .int()
          .min(0, {
            error: (i) =>
              i.input === -1 ? 'gpus: -1 is MLE-bench\'s "all GPUs"; write limits.gpus: all' : undefined,
          }),
        z.literal("all"),
      ],
      { error: 'expected a whole number of GPUs (0 or more) or "all"' },
    )
    .default(0),
  /** Most bytes the agent may leave in each folder; checked during the run, the run stops past it. */
  disk: z
    .strictObject({
      submission: bytes.default(1024 ** 3),
      logs: bytes.default(1024 ** 3),
      code: bytes.default(1024 ** 3),
      /** Docker, Slurm's mode docker: the size of the container's /tmp and /var/tmp (each in memory). */
      tmp: bytes.optional(),
      /**
       * Docker: the container's root filesystem is read-only and its writable places (HOME,
       * /home/agent for an MLE-bench agent, `writable`) share one filesystem of this size (default
       * 16 GiB); "writable" keeps the root writable (bounded only where the storage driver can).
       * Slurm's mode docker: read-only too, but its writable places are unsized volumes (docs/slurm.md).
       */
      root: z.union([z.literal("writable"), bytes]).optional(),
      /** Docker, Slurm's mode docker: more paths kept writable (with the image's content) under a read-only root. */
      writable: z.array(writablePath).max(16).default([]),
    })
    .default({ submission: 1024 ** 3, logs: 1024 ** 3, code: 1024 ** 3, writable: [] }),
});

/**
 * GPUs one run is planned with: the count, or 1 for "all" (each run gets every GPU of its runner,
 * which the plan cannot know; docs/docker.md says how the scheduler and the estimates treat it).
 */
export function plannedGpus(gpus: number | "all"): number {
  return gpus === "all" ? 1 : gpus;
}

export type AgentConfig = z.output<typeof AgentSchema>;
export type Limits = z.output<typeof LimitsSchema>;
