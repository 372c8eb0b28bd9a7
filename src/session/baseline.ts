// The baseline a door asked for (its settings: none, a file, a run, the cache) turned into the
// `BaselineInput` the evaluation takes. Each door supplies only what it alone can do: the action
// restores the cache and checks out the base commit; the CLI runs the base from the head's folder.
import { resolve } from "node:path";
import { UserError } from "../errors.js";
import type { Config } from "../config/schema.js";
import type { AgentConfig } from "../config/parts.js";
import type { SuiteResults } from "../results/schema.js";
import { readResults } from "../suite/store.js";
import type { BaselineInput } from "./input.js";

/** Where the baseline comes from, as a door's settings name it (a file path is absolute or cwd-relative). */
export type BaselineSource =
  | { source: "none" }
  | { source: "cache" }
  | { source: "run" }
  | { source: "file"; path: string; /** The path as the user wrote it. */ shown?: string };

type RunBaseline = Omit<BaselineInput & { kind: "run" }, "kind" | "agent">;

export interface BaselineContext {
  config: Config;
  /** A shard job: only a baseline that runs matters here; the report job reads the others. */
  shard?: boolean;
  /** The base run in this job: its description, commit and checkout (default: the head's folder). */
  run?: () => RunBaseline;
  /** The base already ran in the shard jobs: their merged results. */
  ranInShards?: { results: SuiteResults; description: string };
  /** The agent a run baseline falls back to (default: the head's; on a pull request, the base commit's). */
  baseAgent?: AgentConfig;
  /** Restores the baseline from the Actions cache (the action only). */
  restoreCache?: () => Promise<BaselineInput>;
}

const HEAD_ONLY = "baseline: none; only the head was evaluated";

/** A baseline read from a results file; `shown` is the path as the user wrote it. */
export function fileBaseline(path: string, shown = path): BaselineInput & { kind: "results" } {
  const results = readResults(path);
  const sha = results.git.sha ? ` (commit ${results.git.sha.slice(0, 7)})` : "";
  return { kind: "results", results, description: `results file ${shown}${sha}` };
}

/** The agent the base runs: baseline.agent when the config names one, else `fallback` (the head's agent). */
export function baselineAgent(config: Config, fallback: AgentConfig = config.agent): AgentConfig {
  const b = config.baseline;
  return b?.source === "run" && b.agent ? b.agent : fallback;
}

export async function resolveBaseline(b: BaselineSource, ctx: BaselineContext): Promise<BaselineInput> {
  if (b.source === "run") {
    if (ctx.ranInShards) return { kind: "results", ...ctx.ranInShards };
    const run = ctx.run?.() ?? { description: "evaluated in this job (baseline agent)" };
    return { kind: "run", agent: baselineAgent(ctx.config, ctx.baseAgent), ...run };
  }
  if (ctx.shard) return { kind: "none" };
  if (b.source === "file") return fileBaseline(b.path, b.shown ?? b.path);
  if (b.source === "cache") {
    if (!ctx.restoreCache)
      throw new UserError("baseline: cache is the GitHub Actions cache, which only the action reads");
    return ctx.restoreCache();
  }
  return { kind: "none", note: HEAD_ONLY };
}

/** The baseline on the command line: the config's, with --baseline FILE standing in for the cache. */
export function cliBaseline(config: Config, baseDir: string, baselineFile?: string): BaselineSource {
  if (baselineFile) return { source: "file", path: resolve(baselineFile), shown: baselineFile };
  const b = config.baseline ?? { source: "none" as const };
  if (b.source === "cache") {
    throw new UserError(
      'baseline.source: "cache" is the GitHub Actions cache, which the command line cannot read. ' +
        "To reproduce the CI run, download the baseline's results.json (the report artifact of the default-branch run) " +
        "and pass it: medalist run --config FILE --baseline results.json",
    );
  }
  return b.source === "file" ? { source: "file", path: resolve(baseDir, b.path), shown: b.path } : b;
}
