// A long synchronous loop blocks its vitest worker's event loop. The worker's own calls to the main
// process (onTaskUpdate, with vitest's fixed 60 s timeout) then go unanswered: their replies wait
// unread behind the loop, and once it has run past 60 s (a fuzz loop on a loaded runner) the run
// ends with the unhandled error `[vitest-worker]: Timeout calling "onTaskUpdate"`, every test green.
// Such loops await breathe() each case: at most every `everyMs` it lets the event loop turn once.

/** A function to await in a long loop; it yields to the event loop once per `everyMs`. */
export function breather(everyMs = 500): () => Promise<void> {
  let last = Date.now();
  return async () => {
    if (Date.now() - last < everyMs) return;
    await new Promise((resolve) => setImmediate(resolve));
    last = Date.now();
  };
}
