/** A unit of work the scheduler places on the runner's resources. */
export interface SchedTask {
  id: string;
  /** Expected duration in seconds: longest first. */
  expectedSecs: number;
  /** GPUs the task needs (each held exclusively). */
  gpus: number;
  /** CPUs the task reserves from the runner's budget (default 0: not counted). */
  cpus?: number;
}

export interface Resources {
  /** Device ids available on this runner. */
  gpuIds: string[];
  /** Most tasks running at once. */
  maxParallel: number;
  /** CPU budget shared by running tasks (default: unlimited). */
  cpus?: number;
}

export type Order = "longest-first" | "fifo";

/** Whether a queued task starts when its turn comes, waits for a later turn, or never starts. */
export type Admit<T> = (task: T) => "start" | "wait" | "skip";

/**
 * The scheduler's state: a queue and the free resources. `next()` picks the first queued task
 * that fits (so short tasks backfill around a task waiting for GPUs); `release()` frees what a
 * finished task held. Shared by `schedule` (real work) and `simulate` (benchmarks).
 */
export class Pool<T extends SchedTask> {
  private readonly queue: T[];
  private readonly freeGpus: string[];
  private freeCpus: number;
  private runningCount = 0;

  constructor(
    tasks: T[],
    private readonly resources: Resources,
    order: Order = "longest-first",
  ) {
    for (const t of tasks) {
      if (t.gpus > resources.gpuIds.length) {
        throw new Error(`task ${t.id} needs ${t.gpus} GPU(s) but the runner has ${resources.gpuIds.length}`);
      }
      if (resources.cpus !== undefined && (t.cpus ?? 0) > resources.cpus) {
        throw new Error(`task ${t.id} needs ${t.cpus} CPU(s) but the runner's budget is ${resources.cpus}`);
      }
    }
    if (!(resources.maxParallel >= 1)) throw new Error("maxParallel must be at least 1");
    // Array.prototype.sort is stable: equal durations keep their given order.
    this.queue = order === "fifo" ? [...tasks] : [...tasks].sort((a, b) => b.expectedSecs - a.expectedSecs);
    this.freeGpus = [...resources.gpuIds];
    this.freeCpus = resources.cpus ?? Infinity;
  }

  get pending(): number {
    return this.queue.length;
  }

  get running(): number {
    return this.runningCount;
  }

  /**
   * The next task that fits now, with the GPU ids it holds; null when none fits. `admit` may hold a
   * task back for now ("wait") or drop it from the queue for good ("skip").
   */
  next(admit?: Admit<T>): { task: T; gpuIds: string[] } | null {
    if (this.runningCount >= this.resources.maxParallel) return null;
    let i = -1;
    for (let k = 0; k < this.queue.length; k++) {
      const t = this.queue[k];
      if (t.gpus > this.freeGpus.length || (t.cpus ?? 0) > this.freeCpus) continue;
      const a = admit ? admit(t) : "start";
      if (a === "skip") this.queue.splice(k--, 1);
      else if (a === "start") {
        i = k;
        break;
      }
    }
    if (i < 0) return null;
    const [task] = this.queue.splice(i, 1);
    const gpuIds = this.freeGpus.splice(0, task.gpus);
    this.freeCpus -= task.cpus ?? 0;
    this.runningCount++;
    return { task, gpuIds };
  }

  release(task: T, gpuIds: string[]): void {
    this.freeGpus.push(...gpuIds);
    this.freeCpus += task.cpus ?? 0;
    this.runningCount--;
  }
}

/**
 * Runs tasks longest-expected-first, each holding its GPUs exclusively and its CPUs from the
 * budget, at most maxParallel at once. `work` receives the GPU ids pinned to the task. Stops
 * starting new tasks once `signal` aborts; the first error from `work` stops new starts and is
 * rethrown after the running tasks end.
 */
export async function schedule<T extends SchedTask>(
  tasks: T[],
  resources: Resources,
  work: (task: T, gpuIds: string[]) => Promise<void>,
  signal?: AbortSignal,
  admit?: Admit<T>,
): Promise<void> {
  const pool = new Pool(tasks, resources);
  const running = new Set<Promise<void>>();
  let failure: { error: unknown } | null = null;

  for (;;) {
    while (!signal?.aborted && failure === null) {
      const picked = pool.next(admit);
      if (!picked) break;
      const { task, gpuIds } = picked;
      const p: Promise<void> = Promise.resolve()
        .then(() => work(task, gpuIds))
        .catch((error) => {
          failure ??= { error };
        })
        .finally(() => {
          pool.release(task, gpuIds);
          running.delete(p);
        });
      running.add(p);
    }
    if (running.size === 0) break;
    await Promise.race(running);
  }
  if (failure !== null) throw (failure as { error: unknown }).error;
}

export interface Placement {
  id: string;
  start: number;
  end: number;
  gpuIds: string[];
}

/**
 * Simulated time, no sleeping: runs the same policy as `schedule` with each task taking
 * `durationOf(task)` seconds (its expectedSecs by default). Returns the makespan and placements.
 */
export function simulate<T extends SchedTask>(
  tasks: T[],
  resources: Resources,
  opts: { order?: Order; durationOf?: (t: T) => number } = {},
): { makespan: number; placements: Placement[] } {
  const pool = new Pool(tasks, resources, opts.order ?? "longest-first");
  const durationOf = opts.durationOf ?? ((t: T) => t.expectedSecs);
  const running: { task: T; gpuIds: string[]; end: number }[] = [];
  const placements: Placement[] = [];
  let now = 0;
  for (;;) {
    for (let p = pool.next(); p; p = pool.next()) {
      const end = now + durationOf(p.task);
      running.push({ ...p, end });
      placements.push({ id: p.task.id, start: now, end, gpuIds: p.gpuIds });
    }
    if (running.length === 0) break;
    // Advance to the earliest end; release everything ending then.
    now = Math.min(...running.map((r) => r.end));
    for (let i = running.length - 1; i >= 0; i--) {
      if (running[i].end <= now) {
        pool.release(running[i].task, running[i].gpuIds);
        running.splice(i, 1);
      }
    }
  }
  if (pool.pending > 0) throw new Error("simulate: tasks left that never fit");
  return { makespan: now, placements };
}

/** max(total GPU-seconds ÷ GPUs, longest task): no schedule can finish sooner. */
export function makespanLowerBound(tasks: SchedTask[], gpuCount: number): number {
  const total = tasks.reduce((s, t) => s + t.expectedSecs * Math.max(t.gpus, 1), 0);
  const longest = tasks.reduce((m, t) => Math.max(m, t.expectedSecs), 0);
  return Math.max(total / Math.max(gpuCount, 1), longest);
}
