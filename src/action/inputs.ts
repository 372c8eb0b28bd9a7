// Reads and validates every action input up front into one typed settings object.
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import * as core from "@actions/core";
import { z } from "zod";
import { UserError } from "../errors.js";
import { Inputs } from "./constants.js";
import type { Config } from "../config/schema.js";

export type BaselineSetting =
  { source: "cache" } | { source: "run" } | { source: "none" } | { source: "file"; path: string };

const baseline = z
  .string()
  .trim()
  .transform((v, ctx): BaselineSetting | null => {
    if (v === "") return null; // left at its default: the config decides
    if (v === "cache" || v === "run" || v === "none") return { source: v };
    if (v.startsWith("file:") && v.length > "file:".length)
      return { source: "file", path: v.slice("file:".length).trim() };
    ctx.addIssue({ code: "custom", message: `expected cache, run, none or file:<path>, got "${v}"` });
    return z.NEVER;
  });

const bool = z
  .string()
  .trim()
  .transform((v, ctx) => {
    // The YAML 1.2 core schema booleans, as @actions/core's getBooleanInput accepts.
    if (["true", "True", "TRUE"].includes(v)) return true;
    if (["false", "False", "FALSE"].includes(v)) return false;
    ctx.addIssue({ code: "custom", message: `expected true or false, got "${v}"` });
    return z.NEVER;
  });

export const SettingsSchema = z.object({
  [Inputs.Config]: z.string().trim().min(1, "the path of the Medalist config file is required"),
  [Inputs.GitHubToken]: z.string().trim(),
  [Inputs.Baseline]: baseline,
  [Inputs.Comment]: z.enum(["always", "on-change", "never"]),
  [Inputs.FailOn]: z.enum(["regression", "never", ""]),
  [Inputs.AllowForkPrs]: bool,
  [Inputs.DataDir]: z.string().trim(),
  [Inputs.ResultsDir]: z.string().trim(),
  [Inputs.RunsDir]: z.string().trim(),
  [Inputs.RetentionDays]: z
    .string()
    .trim()
    .regex(/^\d+$/, "expected a whole number of days, 1 to 400")
    .transform(Number)
    .refine((n) => n >= 1 && n <= 400, "expected a whole number of days, 1 to 400"),
  [Inputs.TrustPrConfig]: bool,
  [Inputs.AllowUnsandboxedAgent]: bool,
  [Inputs.AllowRunc]: bool,
  [Inputs.RunKey]: z
    .string()
    .trim()
    .refine((v) => v === "" || v.length >= 32, "expected a secret of at least 32 characters, or empty"),
});

/**
 * Defaults as in action.yml, so a missing INPUT_* variable (local runs, tests) behaves the same.
 * Inputs that the config can also set default to "": left alone, they do not override it.
 */
export const DEFAULTS: Record<string, string> = {
  [Inputs.Config]: "medalist.yml",
  [Inputs.GitHubToken]: "",
  [Inputs.Baseline]: "",
  [Inputs.Comment]: "always",
  [Inputs.FailOn]: "",
  [Inputs.AllowForkPrs]: "false",
  [Inputs.DataDir]: "",
  // Empty: defaultResultsDir, in the runner's temp folder (never in the checkout a pull request writes).
  [Inputs.ResultsDir]: "",
  [Inputs.RunsDir]: "",
  [Inputs.RetentionDays]: "30",
  [Inputs.TrustPrConfig]: "false",
  [Inputs.AllowUnsandboxedAgent]: "false",
  [Inputs.AllowRunc]: "false",
  [Inputs.RunKey]: "",
};

export interface Settings {
  configPath: string;
  /** Empty when no token was given; commenting is then skipped. */
  token: string;
  /** null: not given; the config's baseline (or the action's default, cache) applies. */
  baseline: BaselineSetting | null;
  comment: "always" | "on-change" | "never";
  /** null: not given; the config's gate.failOn applies. */
  failOn: "regression" | "never" | null;
  allowForkPrs: boolean;
  /** Overrides the config's dataDir when set. */
  dataDir: string | null;
  resultsDir: string;
  /** The run store: "" chooses by runner (see runStoreDir), "none" turns it off, else a folder. */
  runsDir: string;
  /** Days the uploaded artifacts are kept (the repository's maximum caps it). */
  retentionDays: number;
  /** UNSAFE: a pull request's own config judges it (see docs/security.md). */
  trustPrConfig: boolean;
  /** UNSAFE: executor local and Slurm mode command may run a pull request's agent. */
  allowUnsandboxedAgent: boolean;
  /** On pull requests, accept a Docker runtime that is no sandbox (runc) for the agent. */
  allowRunc: boolean;
  /** The secret that seals run records and shard results; "" uses the runner's key file. */
  runKey: string;
}

/** Reads all inputs (or the given reader) and returns the settings, or throws one UserError listing every problem. */
export function readSettings(
  read: (name: string) => string = (n) => core.getInput(n),
  env: NodeJS.ProcessEnv = process.env,
): Settings {
  const raw: Record<string, string> = {};
  for (const name of Object.values(Inputs)) {
    const v = read(name);
    raw[name] = v === "" ? DEFAULTS[name] : v;
  }
  const parsed = SettingsSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `input "${String(i.path[0])}": ${i.message}`);
    throw new UserError(
      lines.length === 1 ? lines[0] : `${lines.length} invalid inputs:\n  ${lines.join("\n  ")}`,
    );
  }
  const s = parsed.data;
  const failOn = s[Inputs.FailOn];
  return {
    configPath: s[Inputs.Config],
    token: s[Inputs.GitHubToken],
    baseline: s[Inputs.Baseline],
    comment: s[Inputs.Comment],
    failOn: failOn === "" ? null : failOn,
    allowForkPrs: s[Inputs.AllowForkPrs],
    dataDir: s[Inputs.DataDir] === "" ? null : s[Inputs.DataDir],
    resultsDir: s[Inputs.ResultsDir] || defaultResultsDir(env),
    runsDir: s[Inputs.RunsDir],
    retentionDays: s[Inputs.RetentionDays],
    trustPrConfig: s[Inputs.TrustPrConfig],
    allowUnsandboxedAgent: s[Inputs.AllowUnsandboxedAgent],
    allowRunc: s[Inputs.AllowRunc],
    runKey: s[Inputs.RunKey],
  };
}

/** Settings after the config filled in what the inputs left open. */
export type EffectiveSettings = Omit<Settings, "baseline" | "failOn"> & {
  baseline: BaselineSetting;
  failOn: "regression" | "never";
  /** Lines shown first in the report: which config judged a pull request (src/action/judge.ts). */
  notices?: string[];
};

/** Where the action takes the baseline from when neither the input nor the config names one. */
export const ACTION_DEFAULT_BASELINE: BaselineSetting = { source: "cache" };

/**
 * The effective baseline and gate: action input > config > default. An input left at its
 * default ("") does not override the config.
 */
export function effectiveSettings(
  settings: Settings,
  config: Pick<Config, "baseline" | "gate">,
  /** The config file's folder: a baseline file named in the config is relative to it. */
  baseDir = ".",
): EffectiveSettings {
  const c = config.baseline;
  const fromConfig: BaselineSetting | null = !c
    ? null
    : c.source === "file"
      ? { source: "file", path: resolve(baseDir, c.path) }
      : { source: c.source };
  return {
    ...settings,
    baseline: settings.baseline ?? fromConfig ?? ACTION_DEFAULT_BASELINE,
    failOn: settings.failOn ?? config.gate.failOn,
  };
}

/**
 * The results folder when the input is left empty: $RUNNER_TEMP/medalist/results, a runner-owned
 * folder outside the checkout (run records there are reused only when sealed: suite/seal.ts).
 */
export function defaultResultsDir(env: NodeJS.ProcessEnv): string {
  return join(env.RUNNER_TEMP || tmpdir(), "medalist", "results");
}

/**
 * Where finished runs persist between jobs, keyed by run identity: the runs-dir input; by
 * default, on a self-hosted runner, a folder in its tool cache (outside the checkout, which
 * actions/checkout cleans); none on GitHub-hosted runners, which start empty each job.
 */
export function runStoreDir(setting: string, env: NodeJS.ProcessEnv): string | null {
  if (setting === "none") return null;
  if (setting !== "") return resolve(setting);
  if (env.RUNNER_ENVIRONMENT !== "self-hosted") return null;
  const base = env.RUNNER_TOOL_CACHE || (env.HOME ? join(env.HOME, ".cache") : "");
  return base ? join(base, "medalist", "runs") : null;
}
