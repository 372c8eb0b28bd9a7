import { runAttempt, type AttemptDriver } from "../../src/execute/attempt.js";
import type { ExecResult, RunSpec } from "../../src/execute/types.js";

/** One attempt of a run on an executor: the attempt wrapper with its driver, as openExecutor does. */
export function attemptOn(
  executor: { driver(): AttemptDriver },
  spec: RunSpec,
  signal?: AbortSignal,
): Promise<ExecResult> {
  return runAttempt(spec, signal, executor.driver());
}
