// The outside world the action touches; tests may replace any of it.
import { runSuite } from "../suite/run.js";
import { actionsArtifacts, type ArtifactApi, type ArtifactOptions } from "./artifacts.js";
import { actionsCache, type CacheApi } from "./baseline.js";
import { checkoutBase } from "./base-ref.js";

export interface Deps {
  env: NodeJS.ProcessEnv;
  runSuite: typeof runSuite;
  cache: CacheApi;
  artifacts: (opts: ArtifactOptions) => ArtifactApi;
  checkoutBase: typeof checkoutBase;
}

export const defaultDeps: Deps = {
  env: process.env,
  runSuite,
  cache: actionsCache,
  artifacts: actionsArtifacts,
  checkoutBase,
};
