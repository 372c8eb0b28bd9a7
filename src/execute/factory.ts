import { UserError } from "../errors.js";
import { dockerBackend } from "./docker/backend.js";
import type { ExecutorBackend, OpenExecutor, SuiteContext } from "./lifecycle.js";
import { localBackend } from "./local/index.js";
import { slurmBackend } from "./slurm/index.js";

/** Every executor, by the name `executor:` takes in the config. Add a backend: one line here. */
const BACKENDS: Record<string, ExecutorBackend> = {
  local: localBackend,
  docker: dockerBackend,
  slurm: slurmBackend,
};

export function backendNames(): string[] {
  return Object.keys(BACKENDS);
}

/** Opens the named executor for one suite. */
export function openExecutor(name: string, ctx: SuiteContext): Promise<OpenExecutor> {
  const backend = BACKENDS[name];
  if (!backend)
    throw new UserError(`executor: unknown executor "${name}" (known: ${backendNames().join(", ")})`);
  return backend.open(ctx);
}
