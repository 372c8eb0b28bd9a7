// The config as the action reads it, and the baseline its settings ask for.
import { resolve } from "node:path";
import * as core from "@actions/core";
import { loadConfig, type LoadedConfig } from "../config/load.js";
import type { Config } from "../config/schema.js";
import { UserError } from "../errors.js";
import type { SuiteResults } from "../results/schema.js";
import { resolveBaseline, type BaselineSource } from "../session/baseline.js";
import { openSession, type BaselineInput, type Session } from "../session/input.js";
import { keysTried, restoreFromCache } from "./baseline.js";
import type { Deps } from "./deps.js";
import type { EventInfo } from "./event.js";
import type { JudgedConfig } from "./judge.js";
import { effectiveSettings, type EffectiveSettings, type Settings } from "./inputs.js";

export interface ActionSession {
  session: Session;
  /** The config file's folder (the base ref's checkout mirrors it). */
  configDir: string;
  settings: EffectiveSettings;
  /** The agent the base side runs with `baseline: run` (on a pull request: the base commit's). */
  baseAgent: Config["agent"];
}

/**
 * The config with data and registry folders absolute, and the effective settings: action input >
 * config > default; inputs left at their default do not override the config.
 */
export function loadSession(settings: Settings, judged?: JudgedConfig): ActionSession {
  const loaded: LoadedConfig = judged ?? loadConfig(settings.configPath);
  const eff = effectiveSettings(settings, loaded.config, loaded.baseDir);
  const config: Config = {
    ...loaded.config,
    dataDir: resolve(settings.dataDir ?? resolve(loaded.baseDir, loaded.config.dataDir)),
    registryDir: loaded.config.registryDir ? resolve(loaded.baseDir, loaded.config.registryDir) : undefined,
    gate: { ...loaded.config.gate, failOn: eff.failOn },
  };
  // The registry is loaded and the suite planned once; the cache key needs the suite hash.
  return {
    session: { ...openSession(config, loaded.baseDir), graderDir: judged?.graderDir },
    configDir: loaded.baseDir,
    settings: { ...eff, notices: judged?.notices },
    baseAgent: judged?.baseAgent ?? config.agent,
  };
}

/**
 * The baseline the settings ask for: the cache (restored first: a broken cache service fails the
 * job before any GPU time is spent), a file, none, or the base commit run in this job (or, for a
 * report job, in the shard jobs: `ranInShards`).
 */
export function actionBaseline(
  deps: Deps,
  s: ActionSession,
  event: EventInfo,
  opts: { shard?: boolean; ranInShards?: SuiteResults } = {},
): Promise<BaselineInput> {
  const { session, settings } = s;
  const b = settings.baseline;
  const suiteHash = session.plan.suiteHash;
  const base = event.pr ? ` ${event.pr.baseSha.slice(0, 7)}` : "";
  const source: BaselineSource = b.source === "file" ? { ...b, path: resolve(b.path), shown: b.path } : b;
  return resolveBaseline(source, {
    config: session.config,
    baseAgent: s.baseAgent,
    shard: opts.shard,
    ranInShards: opts.ranInShards && {
      results: opts.ranInShards,
      description: `the base commit${base} evaluated in the shard jobs`,
    },
    run: () => {
      const sha = event.pr?.baseSha;
      if (!sha) throw new UserError("baseline: run needs a pull_request event (the base ref comes from it)");
      return {
        description: `the base commit ${sha.slice(0, 7)} evaluated in this job`,
        git: { sha, ref: event.pr?.baseRef ?? null },
        checkout: (log) => deps.checkoutBase(sha, s.configDir, log),
      };
    },
    restoreCache: async () => {
      if (!event.pr)
        return {
          kind: "none",
          note: "baseline: cache compares pull requests; this event has no base commit",
        };
      // Throws (failing the job before any agent runs) when the cache service fails: not a miss.
      const cached = await restoreFromCache(deps.cache, suiteHash, event.pr.baseSha);
      if (!cached) {
        const note =
          `no cached baseline for suite ${suiteHash}: tried the ${keysTried(suiteHash, event.pr.baseSha)}; ` +
          "run the baseline workflow on the default branch, or use `baseline: run`";
        core.warning(`medalist: ${note}`);
        return { kind: "none", note };
      }
      core.info(`baseline: ${cached.description}`);
      return { kind: "results", ...cached };
    },
  });
}
