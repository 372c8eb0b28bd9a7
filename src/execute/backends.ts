import type { z } from "zod";
import { UserError } from "../errors.js";
import { runAttempt } from "./attempt.js";
import type { AgentView, ExecutorConfigView, ExecutorDescriptor } from "./descriptor.js";
import { dockerDescriptor } from "./docker/backend.js";
import type { OpenExecutor, SuiteContext } from "./lifecycle.js";
import { localDescriptor } from "./local/index.js";
import { slurmDescriptor } from "./slurm/executor.js";

/**
 * Every executor, in one list. Adding one is a folder under execute/ with its descriptor, and one
 * line here: the config's `executor` names and blocks, the JSON schema, run identities and the
 * crash sweep follow from this list.
 */
export const BACKENDS = [localDescriptor, dockerDescriptor, slurmDescriptor] as const;

type Backend = (typeof BACKENDS)[number];
export type ExecutorName = Backend["name"];

/** Config blocks by executor name, for the executors that have one. */
export type ExecutorBlocks = {
  [D in Backend as NonNullable<D["configSchema"]> extends z.ZodNever ? never : D["name"]]: z.ZodDefault<
    NonNullable<D["configSchema"]>
  >;
};

/** Every descriptor, as the loose type the registry's functions walk. */
const ALL = BACKENDS as unknown as readonly ExecutorDescriptor<string, z.ZodType>[];

export const EXECUTOR_NAMES = BACKENDS.map((b) => b.name) as [ExecutorName, ...ExecutorName[]];

/** The config blocks of every executor that has one, each defaulted. */
export function executorBlocks(): ExecutorBlocks {
  const out: Record<string, z.ZodType> = {};
  for (const b of ALL) if (b.configSchema) out[b.name] = b.configSchema.default(b.configDefault);
  return out as unknown as ExecutorBlocks;
}

/** The descriptor of the named executor (a UserError naming the known ones otherwise). */
export function descriptorOf(name: string): ExecutorDescriptor<string, z.ZodType> {
  const d = ALL.find((b) => b.name === name);
  if (!d) throw new UserError(`executor: unknown executor "${name}" (known: ${EXECUTOR_NAMES.join(", ")})`);
  return d;
}

/** The named executor's identity facts ({} for a backend outside the list: a test's stand-in). */
export function identityFactsOf(name: string, config: { agent: AgentView }): Record<string, unknown> {
  const d = ALL.find((b) => b.name === name);
  return d ? d.identityFacts(configView(name, config)) : {};
}

/** What would run a pull request's agent unsandboxed with this config ("executor: local"), or null. */
export function unsandboxedBy(name: string, config: { agent: AgentView }): string | null {
  return descriptorOf(name).unsandboxed(configView(name, config));
}

/** Why a pull request's agent would run with no sandbox at all on this runner (a fallback), or null. */
export function noSandboxBy(name: string, config: { agent: AgentView }): string | null {
  return descriptorOf(name).noSandbox?.(configView(name, config)) ?? null;
}

/** The view an executor's checks and identity facts read: the agent and its own block. */
export function configView(name: string, config: { agent: AgentView }): ExecutorConfigView<unknown> {
  return { agent: config.agent, block: (config as Record<string, unknown>)[name] };
}

/**
 * Opens the named executor for one suite: first its sweep of a crashed suite's leftovers, then
 * open. Every attempt goes through execute/attempt.ts with the backend's driver.
 */
export async function openExecutor(name: string, ctx: SuiteContext): Promise<OpenExecutor> {
  const d = descriptorOf(name);
  await d
    .sweep(ctx)
    .catch((e: unknown) => ctx.log(`could not sweep ${name} leftovers: ${(e as Error).message}`));
  const ex = await d.open(ctx);
  return {
    name: ex.name,
    resources: ex.resources,
    perRun: ex.perRun,
    facts: ex.facts,
    agentPaths: ex.agentPaths?.bind(ex),
    validationUrl: ex.validationUrl?.bind(ex),
    execute: (spec, signal) => runAttempt(spec, signal, ex.driver()),
    close: () => ex.close(),
  };
}
