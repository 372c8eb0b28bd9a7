// Every input and output name in one place (action.yml must agree; test/action checks it).

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

export const Outputs = {
  MedalRate: "medal-rate",
  BaselineMedalRate: "baseline-medal-rate",
  Delta: "delta",
  Verdict: "verdict",
  ResultsPath: "results-path",
  ReportPath: "report-path",
  CommentUrl: "comment-url",
} as const;

/** Cache keys: medalist-<suite hash>-<commit sha>; restore falls back on the prefix. */
export const CACHE_KEY_PREFIX = "medalist";
