import type { ExecResult, RunSpec } from "../execute/types.js";

export interface RetryPolicy {
  /** Further attempts after the first. */
  retries: number;
  /** Wait before the first retry, doubled each time. */
  delayMs: number;
}

/**
 * The one retry policy: an infrastructure error the executor marks `retryable` is tried again,
 * up to `retries` more times, with a doubling delay; never after a cancel.
 */
export async function executeWithRetries(
  execute: (spec: RunSpec, signal?: AbortSignal) => Promise<ExecResult>,
  spec: RunSpec,
  policy: RetryPolicy,
  opts: {
    signal?: AbortSignal;
    onRetry?: (attempt: number, failed: ExecResult, delayMs: number) => void;
  } = {},
): Promise<{ result: ExecResult; attempts: number }> {
  let delay = policy.delayMs;
  for (let attempt = 1; ; attempt++) {
    const result = await execute({ ...spec, attempt }, opts.signal);
    const again =
      result.outcome === "infra_error" &&
      result.retryable === true &&
      !result.cancelled &&
      attempt <= policy.retries &&
      !opts.signal?.aborted;
    if (!again) return { result, attempts: attempt };
    opts.onRetry?.(attempt, result, delay);
    await sleep(delay, opts.signal);
    delay *= 2;
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
