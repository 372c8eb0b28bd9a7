// Every input and output name of every action in one place: each action.yml must declare exactly
// the names listed in ACTIONS (test/action/io-names.test.ts checks it, and that no other file spells one).

export const Inputs = {
  Config: "config",
  GitHubToken: "github-token",
  Baseline: "baseline",
  Comment: "comment",
  FailOn: "fail-on",
  AllowForkPrs: "allow-fork-prs",
  DataDir: "data-dir",
  ResultsDir: "results-dir",
  RunsDir: "runs-dir",
  /** Days the uploaded artifacts are kept (the repository's maximum caps it). */
  RetentionDays: "retention-days",
  /** UNSAFE: judge a pull request with its own config instead of the base commit's. */
  TrustPrConfig: "trust-pr-config",
  /** UNSAFE: run executor local / Slurm mode command on pull requests. */
  AllowUnsandboxedAgent: "allow-unsandboxed-agent",
  /** On pull requests, let Docker run the agent under a runtime that is no sandbox (runc). */
  AllowRunc: "allow-runc",
  /** A secret that seals run records and shard results (suite/seal.ts); empty: the runner's key file. */
  RunKey: "run-key",
} as const;

/** The inputs only the sub-actions (plan/, run/, report/, decide/) have. */
export const StepInputs = {
  /** Which sub-action the shared bundle runs: all (the main action), plan, run, report or decide. */
  Step: "step",
  Shards: "shards",
  MaxShards: "max-shards",
  TargetWall: "target-wall",
  Stages: "stages",
  Stage: "stage",
  Durations: "durations",
  UsdPerGpuHour: "usd-per-gpu-hour",
  Shard: "shard",
  Plan: "plan",
} as const;

export const Outputs = {
  MedalRate: "medal-rate",
  BaselineMedalRate: "baseline-medal-rate",
  Delta: "delta",
  Verdict: "verdict",
  ResultsPath: "results-path",
  ReportPath: "report-path",
  CommentUrl: "comment-url",
} as const;

export const PlanOutputs = {
  Matrix: "matrix",
  Count: "count",
  Empty: "empty",
  Stages: "stages",
  Plan: "plan",
} as const;

export const DecideOutputs = {
  Decision: "decision",
  Sentence: "sentence",
  Verdict: "verdict",
} as const;

const I = Inputs;
const S = StepInputs;
const common = [I.Config, I.GitHubToken, I.Baseline, I.TrustPrConfig, I.AllowUnsandboxedAgent] as const;

/** Each action's folder (action.yml beside the repository's top for "."), its inputs and outputs. */
export const ACTIONS = {
  ".": { inputs: Object.values(Inputs), outputs: Object.values(Outputs) },
  plan: {
    inputs: [
      ...common,
      I.ResultsDir,
      S.Step,
      S.Shards,
      S.MaxShards,
      S.TargetWall,
      S.Stages,
      S.Durations,
      S.UsdPerGpuHour,
    ],
    outputs: Object.values(PlanOutputs),
  },
  run: {
    inputs: [
      ...common,
      I.AllowForkPrs,
      I.AllowRunc,
      I.DataDir,
      I.ResultsDir,
      I.RetentionDays,
      I.RunKey,
      S.Step,
      S.Shard,
      S.Stage,
      S.Plan,
    ],
    outputs: [Outputs.ResultsPath],
  },
  report: {
    inputs: [
      ...common,
      I.Comment,
      I.FailOn,
      I.AllowForkPrs,
      I.ResultsDir,
      I.RetentionDays,
      I.RunKey,
      S.Step,
      S.Shards,
      S.Stages,
    ],
    outputs: Object.values(Outputs),
  },
  decide: {
    inputs: [...common, I.AllowForkPrs, I.ResultsDir, I.RunKey, S.Step, S.Stage, S.Stages],
    outputs: Object.values(DecideOutputs),
  },
} as const;

/** Cache keys: medalist-<suite hash>-<commit sha>; restore falls back on the prefix. */
export const CACHE_KEY_PREFIX = "medalist";
