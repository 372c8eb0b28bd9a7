// The executors' parts of the config: each executor's name, its own block (docker:, slurm:, …)
// and the checks it needs from the rest of the config. The built-in executors' parts live in
// config/blocks/ and are registered here; execute/backends.ts registers the part of every backend
// it registers, so config/ never imports execute/.
import type { z } from "zod";

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

/** One executor's part of the config. */
export interface ExecutorConfigPart<N extends string = string, S extends z.ZodType = z.ZodNever> {
  /** The value of `executor:` in the config. */
  readonly name: N;
  /** The executor's own config block (the key is its name), or null when it has none. */
  readonly configSchema: S | null;
  /** The block's value when the config leaves it out. */
  readonly configDefault: z.output<S> | null;
  /** What this executor needs from the rest of the config (checked only when it is chosen). */
  check(config: ExecutorConfigView<z.output<S>>): ConfigIssue[];
}

/** The registered parts by executor name, in registration order. */
const parts = new Map<string, ExecutorConfigPart<string, z.ZodType>>();

/**
 * Registers an executor's part of the config. The config schema (config/schema.ts's
 * configSchema()) is built from the parts registered when it is used. The same part again is a
 * no-op (a backend registers the part config/ registered for it); another part under a taken name
 * is refused.
 */
export function registerExecutorConfig<N extends string, S extends z.ZodType>(
  part: ExecutorConfigPart<N, S>,
): void {
  const known = parts.get(part.name);
  if (known === undefined) parts.set(part.name, part as ExecutorConfigPart<string, z.ZodType>);
  else if (!samePart(known, part)) throw new Error(`the executor "${part.name}" is registered twice`);
}

function samePart(
  a: ExecutorConfigPart<string, z.ZodType>,
  b: ExecutorConfigPart<string, z.ZodType>,
): boolean {
  return a.configSchema === b.configSchema && a.configDefault === b.configDefault && a.check === b.check;
}

/** Every registered part, in registration order. */
export function executorConfigs(): ExecutorConfigPart<string, z.ZodType>[] {
  return [...parts.values()];
}

/** The named executor's part, or undefined. */
export function executorConfigOf(name: string): ExecutorConfigPart<string, z.ZodType> | undefined {
  return parts.get(name);
}

/** The view an executor's checks and identity facts read: the agent and its own block. */
export function configView(name: string, config: { agent: AgentView }): ExecutorConfigView<unknown> {
  return { agent: config.agent, block: (config as Record<string, unknown>)[name] };
}
