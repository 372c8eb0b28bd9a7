import * as core from "@actions/core";
import type { SuiteResults } from "../results/schema.js";
import { readResults } from "../suite/store.js";

/**
 * A restored baseline that cannot be read (corrupt, or a version this Medalist cannot migrate) is
 * a cache miss with a warning that says why, never a failed job.
 */
export function readCachedResults(
  file: string,
  key: string,
  warn: (message: string) => void = core.warning,
): SuiteResults | null {
  try {
    return readResults(file);
  } catch (e) {
    warn(
      `medalist: the cached baseline under key ${key} is unreadable, so it is treated as a miss: ${(e as Error).message}`,
    );
    return null;
  }
}
