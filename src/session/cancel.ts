// One cancellation policy for both doors: the first SIGINT/SIGTERM stops the runs gracefully
// (finished runs stay on disk, each executor's close removes what it started); a second one kills
// every local run's processes at once and exits 130. The listeners go when the caller disposes.
import { killAllRunsNow } from "../execute/procs.js";

export interface Cancellation {
  signal: AbortSignal;
  /** Removes the signal listeners; call it when the evaluation is over, however it ended. */
  dispose(): void;
}

export function cancelOnSignals(
  log: (line: string) => void,
  exit: (code: number) => void = (code) => process.exit(code),
): Cancellation {
  const ac = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (ac.signal.aborted) {
      log(`medalist: second ${sig}: killing the runs and exiting now; finished runs are kept`);
      killAllRunsNow();
      exit(130);
      return;
    }
    log(
      `medalist: ${sig} received: stopping runs; finished runs are kept and reported (again to exit at once)`,
    );
    ac.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    signal: ac.signal,
    dispose: () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}
