import type { z } from "zod";
import type { AttemptDriver } from "./attempt.js";
import type { OpenExecutor, SuiteContext } from "./lifecycle.js";

/** The parts of the agent's config an executor's checks read. */
export interface AgentView {
  command?: string | string[];
  image?: string;
  build?: unknown;
  /** An MLE-bench agent folder (docker only): the image is built from it. */
  mlebench?: unknown;
}

/** What an executor's checks and identity facts see: the agent and its own config block. */
export interface ExecutorConfigView<C> {
  agent: AgentView;
  block: C;
}

/** One config mistake: the path of the bad field and one sentence. */
export interface ConfigIssue {
  path: (string | number)[];
  message: string;
}

/** An executor opened for one suite: the lifecycle's OpenExecutor, with runs going through a driver. */
export type BackendExecutor = Omit<OpenExecutor, "execute"> & {
  /** The backend's part of each attempt; execute/attempt.ts does the rest. */
  driver(): AttemptDriver;
};

/**
 * Everything Medalist knows about one executor, in its own folder, registered by one line in
 * execute/backends.ts. The config's `executor` names, its blocks, the JSON schema, the run
 * identity and the crash sweep are all derived from the list.
 */
export interface ExecutorDescriptor<N extends string = string, S extends z.ZodType = z.ZodNever> {
  /** The value of `executor:` in the config. */
  readonly name: N;
  /** The executor's own config block (the key is its name), or null when it has none. */
  readonly configSchema: S | null;
  /** The block's value when the config leaves it out. */
  readonly configDefault: z.output<S> | null;
  /** What this executor needs from the rest of the config (checked only when it is chosen). */
  check(config: ExecutorConfigView<z.output<S>>): ConfigIssue[];
  /**
   * What runs the agent outside a sandbox with this config ("executor: local"), or null: on a pull
   * request the action refuses it unless the workflow allows unsandboxed agents.
   */
  unsandboxed(config: ExecutorConfigView<z.output<S>>): string | null;
  /**
   * Why the agent would run with no sandbox at all although the config did not say so (a sandbox
   * that cannot start on this runner), or null: on a pull request the action refuses it.
   */
  noSandbox?(config: ExecutorConfigView<z.output<S>>): string | null;
  /** Settings of this executor that change a run's result: part of every run's identity. */
  identityFacts(config: ExecutorConfigView<z.output<S>>): Record<string, unknown>;
  /** Opens the executor for one suite (daemon, image, queue, endpoint). */
  open(ctx: SuiteContext): Promise<BackendExecutor>;
  /** Removes what a crashed earlier suite of this machine left running; the names removed. */
  sweep(ctx: Pick<SuiteContext, "config" | "log" | "outDir">): Promise<string[]>;
}
