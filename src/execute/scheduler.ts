/** A unit of work the scheduler places on the runner's resources. */
export interface SchedTask {
  id: string;
  /** Expected duration in seconds: longest first. */
  expectedSecs: number;
  /** GPUs the task needs (each held exclusively). */
  gpus: number;
}

export interface Resources {
  /** Device ids available on this runner. */
  gpuIds: string[];
  /** Most tasks running at once. */
  maxParallel: number;
}

/**
 * Runs tasks longest-expected-first, each holding its GPUs exclusively, at most maxParallel at once.
 * `work` receives the GPU ids pinned to the task. Stops starting new tasks once `signal` aborts.
 */
export async function schedule<T extends SchedTask>(
  tasks: T[],
  resources: Resources,
  work: (task: T, gpuIds: string[]) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  for (const t of tasks) {
    if (t.gpus > resources.gpuIds.length) {
      throw new Error(`task ${t.id} needs ${t.gpus} GPU(s) but the runner has ${resources.gpuIds.length}`);
    }
  }
  const queue = [...tasks].sort((a, b) => b.expectedSecs - a.expectedSecs);
  const freeGpus = [...resources.gpuIds];
  const running = new Set<Promise<void>>();
  let failure: unknown = null;

  const startable = () => queue.findIndex((t) => t.gpus <= freeGpus.length);
  while ((queue.length > 0 || running.size > 0) && failure === null) {
    while (!signal?.aborted && running.size < resources.maxParallel && queue.length > 0) {
      const i = startable();
      if (i < 0) break;
      const [task] = queue.splice(i, 1);
      const held = freeGpus.splice(0, task.gpus);
      const p: Promise<void> = work(task, held)
        .catch((e) => {
          failure ??= e;
        })
        .finally(() => {
          freeGpus.push(...held);
          running.delete(p);
        });
      running.add(p);
    }
    if (running.size === 0) break;
    await Promise.race(running);
  }
  await Promise.all(running);
  if (failure !== null) throw failure;
}
