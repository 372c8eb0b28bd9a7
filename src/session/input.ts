// What evaluate() takes: the session (config, registry, plan), the baseline and the door's settings;
// a leaf of session/ so that the side runners (paired.ts) need not import evaluate.ts.
import { resolve } from "node:path";
import type { Config } from "../config/schema.js";
import type { AgentConfig } from "../config/parts.js";
import { UserError } from "../errors.js";
import { plan as planSuite, type Plan } from "../plan/plan.js";
import { defaultRegistryDir, loadRegistry, type Registry } from "../registry/registry.js";
import type { SuiteResults } from "../results/schema.js";
import type { runSuite, SuiteOptions } from "../suite/run.js";
import type { History } from "../history/history.js";

/** A config with its registry loaded and its runs planned, once per invocation. */
export interface Session {
  config: Config;
  /** Folder of the config file; relative paths resolve against it. */
  baseDir: string;
  registry: Registry;
  plan: Plan;
  /** The external grader's working folder (on a pull request: a copy of the base commit's files). */
  graderDir?: string;
}

export function openSession(config: Config, baseDir: string): Session {
  const registry = loadRegistry(
    config.registryDir ? resolve(baseDir, config.registryDir) : defaultRegistryDir(),
  );
  return { config, baseDir, registry, plan: planSuite(config, registry) };
}

export type Git = { sha: string | null; ref: string | null };

/** Where the baseline comes from; `resolveBaseline` (session/baseline.ts) makes one from a door's settings. */
export type BaselineInput =
  /** No baseline; `note` says why, when that is worth telling (shown under the results). */
  | { kind: "none"; note?: string }
  | { kind: "results"; results: SuiteResults; description: string }
  | {
      kind: "run";
      agent: AgentConfig;
      description: string;
      git?: Git;
      /** A checkout of the base ref to run from (the action); default: the head's folder. */
      checkout?: (log: (line: string) => void) => Promise<{ baseDir: string; dispose(): void }>;
    };

export interface EvaluateInput {
  session: Session;
  /** base/, head/, report.md and comparison.json go here. */
  resultsDir: string;
  baseline: BaselineInput;
  headGit?: Git;
  /** The head's results when they exist already (merged shards): nothing runs for the head. */
  head?: SuiteResults;
  /** Run only this shard of each side that runs (`medalist run --shard i/N`). */
  shard?: { index: number; count: number; runIds: string[] };
  log?: (line: string) => void;
  signal?: AbortSignal;
  /** Runs one side (tests replace it). */
  runSuite?: typeof runSuite;
  /** Which runs execute again (--fresh, --rerun, --only); both sides follow it. */
  selection?: SuiteOptions["selection"];
  /** A runner-persistent folder of finished runs keyed by identity. */
  storeDir?: string | null;
  /** Why run records found in the results folder are never reused (it lies in a PR's checkout); null: they may be. */
  untrustedRecords?: string | null;
  /** Progress of long runs: heartbeat seconds, a terminal's status line, a finished run's line. */
  progress?: Pick<SuiteOptions, "heartbeatSecs" | "status" | "statusWidth" | "runDone">;
  /**
   * The default branch's history (the action's cache): the report and viewer draw its trend; a
   * monitored head plans its seeds from it (seeds.history, session/informed.ts).
   */
  history?: History;
  /** Lines every rendering of the report starts with (which config judged a pull request). */
  notices?: string[];
  /**
   * With adaptive seeds, stop once the verdict is reached (default true). The action turns it off
   * outside pull requests: the default branch runs its whole suite, so the baseline it saves for
   * later pull requests is never cut short.
   */
  monitor?: boolean;
  /**
   * The staged sharded workflow: the given head's runs by stage (in order) and the plan's stage
   * count; with adaptive seeds and `monitor`, the verdict is the monitor's after one look per stage.
   */
  stages?: { byStage: string[][]; planned: number };
}

/** The suite was cancelled: finished runs are on disk and are reused on the next run. */
export class Cancelled extends UserError {
  /** What was written of the finished runs (report.md, the viewer), when evaluate() wrote it. */
  written: { report: string; viewer: string | null } | null = null;
  constructor(
    /** The sides' results as far as they got (unfinished runs recorded as cancelled). */
    readonly partial: {
      base: SuiteResults | null;
      head: SuiteResults | null;
      description: string;
    } | null = null,
  ) {
    super("cancelled; finished runs are kept in the results folder", 130);
    this.name = "Cancelled";
  }
}
