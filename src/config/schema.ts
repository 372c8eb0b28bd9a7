import { z } from "zod";
import { DOCKER_CONFIG } from "./blocks/docker.js";
import { LOCAL_CONFIG } from "./blocks/local.js";
import { SLURM_CONFIG } from "./blocks/slurm.js";
import { configView, executorConfigOf, executorConfigs, registerExecutorConfig } from "./executors.js";
import { RunPolicySchema } from "./run-policy.js";
import { defaultDataDir } from "./data-dir.js";

/** Values of `instructions`: Medalist's own text, or upstream MLE-bench's (plain or obfuscated). */
export const INSTRUCTION_KINDS = ["medalist", "mlebench", "mlebench-obfuscated"] as const;

import { AgentSchema, LimitsSchema } from "./parts.js";

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

/**
 * `seeds: 3` (fixed), or `{ max: 3, adaptive: true }`: the head is monitored after every run and stops at
 * the verdict (src/compare/monitor.ts). Absent: `{ max: 3, adaptive: true }` (SEEDS_DEFAULT).
 */
export const SeedsSchema = z.union([
  z.number().int().min(1).max(100),
  z.strictObject({
    max: z.number().int().min(1).max(100),
    adaptive: z.boolean().default(false),
    /**
     * With adaptive seeds on a pull request: plan the head's seeds from the default branch's history
     * (session/informed.ts). Off by default: measured less decisive than monitoring alone (docs/statistics.md).
     */
    history: z.boolean().default(false),
    /** Runs of the base's identity a competition needs in the history before it plans its seeds. */
    historyRuns: z.number().int().min(10).max(10_000).default(20),
    /**
     * Head runs in flight when the monitor reaches the verdict: `stop` them (their GPU time left is
     * saved; no result) or let them `finish` (kept in the results, not used by the verdict).
     */
    inFlight: z.enum(["stop", "finish"]).default("stop"),
    /**
     * Cover never-won competitions by a bound from the history instead of head runs (off: each
     * covered one raises the drop `regressed` needs; docs/statistics.md says when it pays).
     */
    cover: z.boolean().default(false),
  }),
]);

/**
 * The default when `seeds` is absent: 3 seeds, monitored after every run (issue 30: it holds both claims'
 * levels in the stress grid). Only a pull request's head stops early in the action.
 */
export const SEEDS_DEFAULT = { max: 3, adaptive: true } as const;

/** The executors Medalist ships: their parts are registered here, so the config's types name them. */
const BUILT_IN = [LOCAL_CONFIG, DOCKER_CONFIG, SLURM_CONFIG] as const;
for (const p of BUILT_IN) registerExecutorConfig<string, z.ZodType>(p);

type BuiltIn = (typeof BUILT_IN)[number];
export type ExecutorName = BuiltIn["name"];

/** Config blocks by executor name, for the built-in executors (each has one). */
type ExecutorBlocks = { [P in BuiltIn as P["name"]]: z.ZodDefault<NonNullable<P["configSchema"]>> };

/** The names `executor:` accepts: the executors registered now. */
function executorNames(): [ExecutorName, ...ExecutorName[]] {
  return executorConfigs().map((p) => p.name) as [ExecutorName, ...ExecutorName[]];
}

/** The config blocks of every registered executor that has one, each defaulted. */
function executorBlocks(): ExecutorBlocks {
  const out: Record<string, z.ZodType> = {};
  for (const p of executorConfigs())
    if (p.configSchema) out[p.name] = p.configSchema.default(p.configDefault);
  return out as ExecutorBlocks;
}

/**
 * The config schema over the executors registered now. Build it with configSchema(): a backend
 * registered after Medalist's modules loaded (a separate package's registerBackend) is accepted.
 */
function buildConfigSchema() {
  return (
    z
      .strictObject({
        $schema: z.string().optional(),
        name: z.string().min(1).default("default"),
        competitions: CompetitionsSchema,
        seeds: SeedsSchema.prefault(SEEDS_DEFAULT),
        agent: AgentSchema,
        limits: LimitsSchema.default({
          time: 600,
          gpus: 0,
          disk: { submission: 1024 ** 3, logs: 1024 ** 3, code: 1024 ** 3, writable: [] },
        }),
        /**
         * Prepared data (<dataDir>/<id>/prepared/). Default: MLE-bench's own folder
         * (~/.cache/mle-bench/data) when it holds prepared competitions, else .medalist/data.
         */
        dataDir: z.string().min(1).optional(),
        /**
         * The task text written to /home/instructions.txt: Medalist's own, or upstream MLE-bench's
         * environment/instructions.txt (or its obfuscated variant), read from mlebenchDir or fetched pinned.
         */
        instructions: z.enum(INSTRUCTION_KINDS).default("medalist"),
        /** A checkout of MLE-bench (holds environment/instructions.txt), relative to the config file. */
        mlebenchDir: z.string().min(1).optional(),
        /** Folder with competition definitions; defaults to the bundled registry. */
        registryDir: z.string().optional(),
        /** Which executor runs the agent (the registered ones: config/executors.ts). */
        executor: z.enum(executorNames()).default("local"),
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
        for (const issue of executorConfigOf(c.executor)?.check(configView(c.executor, c)) ?? [])
          ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
        if (typeof c.seeds !== "number" && c.seeds.cover) {
          const why = !c.seeds.adaptive
            ? "needs adaptive: true (covering is part of the history-informed plan)"
            : !c.seeds.history
              ? "needs history: true (the bounds come from the default branch's history)"
              : c.gate.percentileTolerance !== undefined
                ? "cannot be used with gate.percentileTolerance (a covered competition has no head percentile to gate)"
                : null;
          if (why) ctx.addIssue({ code: "custom", path: ["seeds", "cover"], message: `cover ${why}` });
        }
      })
      // `seeds` becomes the number of seeds per side (the most, when adaptive) and `adaptiveSeeds`.
      .transform(({ seeds, dataDir, ...c }) => ({
        ...c,
        dataDir: dataDir ?? defaultDataDir(),
        seeds: typeof seeds === "number" ? seeds : seeds.max,
        adaptiveSeeds: typeof seeds === "number" ? false : seeds.adaptive,
        /** The history-informed plan's setting (adaptive seeds only); null: off. */
        historyPlan:
          typeof seeds !== "number" && seeds.adaptive && seeds.history
            ? { minRuns: seeds.historyRuns, cover: seeds.cover }
            : null,
        /** Stop the head's runs in flight at the monitor's verdict (adaptive seeds only). */
        stopInFlight: typeof seeds !== "number" && seeds.adaptive && seeds.inFlight === "stop",
      }))
  );
}

type ConfigSchemaType = ReturnType<typeof buildConfigSchema>;

/** The schema last built, and how many executors were registered then. */
let built: { executors: number; schema: ConfigSchemaType } | null = null;

/**
 * The config schema, built on first use from the registered executors (config/executors.ts) and
 * rebuilt after another registers (registrations only add, so their count tells a change).
 * Its types name the built-in executors; a registered one's name and block are accepted as well.
 */
export function configSchema(): ConfigSchemaType {
  const executors = executorConfigs().length;
  if (built?.executors !== executors) built = { executors, schema: buildConfigSchema() };
  return built.schema;
}

export type Config = z.output<ConfigSchemaType>;
export type Gate = z.output<typeof GateSchema>;
export type ConfigInput = z.input<ConfigSchemaType>;
