import type { z } from "zod";
import { UserError } from "../errors.js";
import { runAttempt } from "./attempt.js";
import { configView, registerExecutorConfig, type AgentView } from "../config/executors.js";
import type { Backend } from "./backend.js";
import { dockerBackend } from "./docker/index.js";
import type { OpenExecutor, SuiteContext } from "./lifecycle.js";
import { localBackend } from "./local/index.js";
import { slurmBackend } from "./slurm/index.js";

/** The registered backends by name, in registration order. */
const registry = new Map<string, Backend<string, z.ZodType>>();

/**
 * Registers a backend: its identity facts, sweep and conformance suite follow from this call, and
 * its part of the config (`executor` name, block, checks) is registered with config/executors.ts.
 * A backend package may register at any time before its config is loaded: config/schema.ts's
 * configSchema() follows the registry.
 */
export function registerBackend<N extends string, S extends z.ZodType>(backend: Backend<N, S>): void {
  if (registry.has(backend.name)) throw new Error(`the executor "${backend.name}" is registered twice`);
  registerExecutorConfig(backend);
  registry.set(backend.name, backend as Backend<string, z.ZodType>);
}

/** Every registered backend, in registration order. */
export function registeredBackends(): Backend<string, z.ZodType>[] {
  return [...registry.values()];
}

/** The backends Medalist ships: registered like any other (config/blocks/ holds their config parts). */
for (const b of [localBackend, dockerBackend, slurmBackend]) registerBackend<string, z.ZodType>(b);

/** The named backend (a UserError naming the registered ones otherwise). */
export function backendOf(name: string): Backend<string, z.ZodType> {
  const d = registry.get(name);
  if (!d)
    throw new UserError(`executor: unknown executor "${name}" (known: ${[...registry.keys()].join(", ")})`);
  return d;
}

/** The named executor's identity facts ({} for a backend outside the registry: a test's stand-in). */
export function identityFactsOf(name: string, config: { agent: AgentView }): Record<string, unknown> {
  const d = registry.get(name);
  return d ? d.identityFacts(configView(name, config)) : {};
}

/** What would run a pull request's agent unsandboxed with this config ("executor: local"), or null. */
export function unsandboxedBy(name: string, config: { agent: AgentView }): string | null {
  return backendOf(name).unsandboxed(configView(name, config));
}

/** Why a pull request's agent would run with no sandbox at all on this runner (a fallback), or null. */
export function noSandboxBy(name: string, config: { agent: AgentView }): string | null {
  return backendOf(name).noSandbox?.(configView(name, config)) ?? null;
}

/**
 * Opens the named executor for one suite: first its sweep of a crashed suite's leftovers, then
 * open. Every attempt goes through execute/attempt.ts with the backend's driver.
 */
export function openExecutor(name: string, ctx: SuiteContext): Promise<OpenExecutor> {
  return openBackend(backendOf(name), ctx);
}

/** openExecutor for a backend in hand (the conformance suite's broken variants are not registered). */
export async function openBackend(d: Backend<string, z.ZodType>, ctx: SuiteContext): Promise<OpenExecutor> {
  const name = d.name;
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
