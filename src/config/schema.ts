import { z } from "zod";
import { configView, descriptorOf, EXECUTOR_NAMES, executorBlocks } from "../execute/backends.js";
import { RunPolicySchema } from "./run-policy.js";
import { bytes } from "./units.js";

export { parseBytes } from "./units.js";

export { configDeprecations, runPolicy, RunPolicySchema, type RunPolicy } from "./run-policy.js";

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

export const CompetitionsSchema = z
  .strictObject({
    /** A named split: toy, lite (= low), medium, high, all, dev, … */
    split: z.string().optional(),
    include: z.array(z.string()).default([]),
    exclude: z.array(z.string()).default([]),
    /** Leave out competitions flagged upstream (leaked labels, crowded leaderboards). */
    excludeFlagged: z.boolean().default(false),
  })
  .refine((c) => c.split !== undefined || c.include.length > 0, {
    message: "name a split or list competitions under include",
  });

export const LimitsSchema = z.strictObject({
  time: duration.default(600),
  cpus: z.number().positive().optional(),
  memory: bytes.optional(),
  shmSize: bytes.optional(),
  pids: z.number().int().positive().optional(),
  /** GPUs per run. */
  gpus: z.number().int().min(0).default(0),
  /** Most bytes the agent may leave in each folder; checked during the run, the run stops past it. */
  disk: z
    .strictObject({
      submission: bytes.default(1024 ** 3),
      logs: bytes.default(1024 ** 3),
      code: bytes.default(1024 ** 3),
    })
    .default({ submission: 1024 ** 3, logs: 1024 ** 3, code: 1024 ** 3 }),
});

/** What of each run folder may be uploaded (artifacts): see execute/withheld.ts. */
export const UploadSchema = z.strictObject({
  /**
   * Upload files that cannot be masked because they are not text (NUL bytes, invalid UTF-8)
   * when secrets are declared. Default false: they stay on the runner.
   */
  binaryFiles: z.boolean().default(false),
});

export const BaselineSchema = z.discriminatedUnion("source", [
  z.strictObject({ source: z.literal("none") }),
  z.strictObject({ source: z.literal("cache") }),
  z.strictObject({ source: z.literal("file"), path: z.string().min(1) }),
  /** Run a second agent (or the base ref's scaffold) in the same job. */
  z.strictObject({ source: z.literal("run"), agent: AgentSchema.optional() }),
]);

export const GateSchema = z.strictObject({
  /** Medal-rate drop (absolute, 0..1) tolerated before calling it a regression. */
  tolerance: z.number().min(0).max(1).default(0.05),
  /** One-sided level of each claim: `regressed` and `no-regression` are each wrong at most this often. */
  alpha: z.number().gt(0).lt(0.5).default(0.05),
  /** `regression` fails on `regressed` and on `error` (the head could not be evaluated). */
  failOn: z.enum(["regression", "never"]).default("regression"),
  /** Largest share of competitions the head may lose to infrastructure errors before the verdict is `error`. */
  maxNotComparable: z.number().min(0).max(1).default(0.1),
  /** Compare base and head even when they ran different suites (hash, competitions, limits). */
  allowSuiteMismatch: z.boolean().default(false),
  /** Also gate on the leaderboard percentile, with this tolerated drop (0..1). */
  percentileTolerance: z.number().min(0).max(1).optional(),
  /** Without a baseline there is nothing to compare: "pass" (when absent) or "fail" the gate. */
  missingBaseline: z.enum(["pass", "fail"]).optional(),
});

export const GATE_DEFAULTS = {
  tolerance: 0.05,
  alpha: 0.05,
  failOn: "regression",
  maxNotComparable: 0.1,
  allowSuiteMismatch: false,
} as const satisfies z.output<typeof GateSchema>;

/** `seeds: 3`, or `{ max: 3, adaptive: true }`: the head is monitored after every run and stops at the verdict (src/compare/monitor.ts). */
export const SeedsSchema = z.union([
  z.number().int().min(1).max(100),
  z.strictObject({
    max: z.number().int().min(1).max(100),
    adaptive: z.boolean().default(false),
  }),
]);

export const ConfigSchema = z
  .strictObject({
    $schema: z.string().optional(),
    name: z.string().min(1).default("default"),
    competitions: CompetitionsSchema,
    seeds: SeedsSchema.default(3),
    agent: AgentSchema,
    limits: LimitsSchema.default({
      time: 600,
      gpus: 0,
      disk: { submission: 1024 ** 3, logs: 1024 ** 3, code: 1024 ** 3 },
    }),
    dataDir: z.string().default(".medalist/data"),
    /** Folder with competition definitions; defaults to the bundled registry. */
    registryDir: z.string().optional(),
    /** Which executor runs the agent (execute/backends.ts lists them). */
    executor: z.enum(EXECUTOR_NAMES).default("local"),
    /**
     * Grader for competitions Medalist does not grade natively (grading: "external"), e.g.
     * ["mlebench", "grade-sample", "{submission}", "{competition}"]. Placeholders: {submission},
     * {competition}, {private_dir}. It must print MLE-bench's JSON report.
     */
    externalGrader: z.array(z.string().min(1)).min(1).optional(),
    /** Runs at once (local executor); docker schedules by CPUs and GPUs. */
    concurrency: z.number().int().min(1).default(1),
    run: RunPolicySchema.default({}),
    /** Each executor's own block (docker:, slurm:, …), defaulted. */
    ...executorBlocks(),
    upload: UploadSchema.default({ binaryFiles: false }),
    /** Absent: the CLI runs without a baseline; the action uses its `baseline` input (default cache). */
    baseline: BaselineSchema.optional(),
    gate: GateSchema.default(GATE_DEFAULTS),
  })
  // The chosen executor's own checks (execute/<name>/): one issue per missing piece, with its path.
  .superRefine((c, ctx) => {
    for (const issue of descriptorOf(c.executor).check(configView(c.executor, c)))
      ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
  })
  // `seeds` becomes the number of seeds per side (the most, when adaptive) and `adaptiveSeeds`.
  .transform(({ seeds, ...c }) => ({
    ...c,
    seeds: typeof seeds === "number" ? seeds : seeds.max,
    adaptiveSeeds: typeof seeds === "number" ? false : seeds.adaptive,
  }));

export type Config = z.output<typeof ConfigSchema>;
export type Gate = z.output<typeof GateSchema>;
export type ConfigInput = z.input<typeof ConfigSchema>;
export type AgentConfig = z.output<typeof AgentSchema>;
