import type { z } from "zod";
import type { ExecutorConfigPart, ExecutorConfigView } from "../config/executors.js";
import type { AgentConfig } from "../config/parts.js";
import type { ImageEngine } from "./container/engine.js";
import type { OpenBackend, SuiteContext } from "./lifecycle.js";

/** A shell agent for the conformance suite: what every backend must run the same way. */
export interface ShellAgent {
  /** The script `/bin/sh -c` runs. */
  script: string;
  /** An image with /bin/sh, for backends that run containers. */
  image: string;
  /** A folder the runner and every node see (dataDir and the run folders live inside it). */
  sharedDir: string;
}

/**
 * How the conformance suite (test/execute/conformance.test.ts) runs its hostile agent on a
 * backend: every registered backend declares it, so no list of backends lives in the tests.
 */
export interface SelfTest {
  /** Why the backend cannot run on this machine now (no daemon, no cluster), or null. */
  unavailable(): Promise<string | null>;
  /** The variants the suite runs (docker: each OCI runtime the daemon has); one ("") when absent. */
  variants?(): Promise<string[]>;
  /** The config, before validation, that runs the agent here: its `agent` and the backend's block. */
  config(agent: ShellAgent, variant: string): Record<string, unknown>;
  /** What of a suite still runs on the backend (containers, jobs), by name; [] when nothing. */
  running?(suiteId: string): Promise<string[]>;
}

/** One line of `medalist check`: what was checked (agent, executor, image, sandbox), ok, one sentence. */
export interface CheckLine {
  what: string;
  ok: boolean;
  text: string;
}

/** What a backend's `medalist check` hooks read: the agent, its own config block, the config's folder. */
export interface CheckContext<B> {
  agent: AgentConfig;
  block: B;
  baseDir: string;
}

/**
 * One executor backend: everything Medalist knows about it, in its own folder
 * (execute/<name>/index.ts), registered with registerBackend (execute/backends.ts). The config's
 * `executor` names, its blocks, the JSON schema, the run identity, the crash sweep and the
 * conformance suite are all derived from the registered backends. Each attempt is
 * execute/attempt.ts's runAttempt with the driver of the opened backend.
 */
export interface Backend<
  N extends string = string,
  S extends z.ZodType = z.ZodNever,
> extends ExecutorConfigPart<N, S> {
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
  /**
   * Why a pull request's agent would run here under a sandbox too weak for it ("under runc, which
   * is no sandbox (…): how to get one"), or null: the action refuses the run unless the workflow
   * accepts it (allow-runc). Absent: nothing to say.
   */
  weakSandbox?(config: ExecutorConfigView<z.output<S>>): Promise<string | null>;
  /** Settings of this executor that change a run's result: part of every run's identity. */
  identityFacts(config: ExecutorConfigView<z.output<S>>): Record<string, unknown>;
  /** Opens the executor for one suite (daemon, image, queue, endpoint). */
  open(ctx: SuiteContext): Promise<OpenBackend>;
  /** Removes what a crashed earlier suite of this machine left running; the names removed. */
  sweep(ctx: Pick<SuiteContext, "config" | "log" | "outDir">): Promise<string[]>;
  /**
   * `medalist check`'s agent line where this executor runs the agent's command itself (local):
   * its text, or a UserError saying what is wrong. Absent: the line names the image or its build.
   */
  agentCheck?(ctx: CheckContext<z.output<S>>): string;
  /**
   * `medalist check` on this machine: its executor, image and sandbox lines (nothing runs or is
   * built). Absent: one line saying the executor is not checked here.
   */
  machineCheck?(
    ctx: Omit<CheckContext<z.output<S>>, "agent"> & { agent: AgentConfig | null },
  ): Promise<CheckLine[]>;
  /**
   * The container engine this backend builds images in on this machine, connected (a thrown
   * error says why not), for the image commands (medalist mlebench-env build). Absent: none.
   */
  imageEngine?(): Promise<ImageEngine>;
  /** How the conformance suite runs its agent here. */
  readonly selfTest: SelfTest;
}
