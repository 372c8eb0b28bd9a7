// Simulated runs on a pool of slots (pure): the expected-cost estimate and the benches share it.

/**
 * Starts `queue`'s runs in order on `slots` slots, each as soon as one is free; when a run ends,
 * `ended(run)` says whether the verdict is reached. From then on no run starts, and the runs in
 * flight stop there (`stopInFlight`: their time left is not paid) or finish. `ended` may add runs
 * to `queue` (and reorder it) before returning. Returns the slot time paid and the time the last
 * run ended.
 */
export function simulatePool<R>(
  queue: R[],
  slots: number,
  duration: (run: R) => number,
  ended: (run: R) => boolean,
  stopInFlight: boolean,
): { paid: number; wall: number } {
  const running: { run: R; end: number }[] = [];
  let now = 0;
  let paid = 0;
  let reached = false;
  for (;;) {
    while (!reached && running.length < slots && queue.length) {
      const run = queue.shift()!;
      const d = duration(run);
      running.push({ run, end: now + d });
      paid += d;
    }
    if (running.length === 0) break;
    running.sort((a, b) => a.end - b.end);
    const next = running.shift()!;
    now = next.end;
    if (reached) continue;
    reached = ended(next.run);
    if (reached && stopInFlight) {
      for (const r of running) paid -= r.end - now;
      running.length = 0;
    }
  }
  return { paid, wall: now };
}
