import { describe, expect, it } from "vitest";
import { makespanLowerBound, Pool, schedule, simulate, type SchedTask } from "../../src/execute/scheduler.js";

const task = (id: string, expectedSecs: number, gpus = 0, cpus?: number): SchedTask => ({
  id,
  expectedSecs,
  gpus,
  cpus,
});
const tick = () => new Promise((r) => setTimeout(r, 1));

describe("schedule", () => {
  it("starts the longest task first", async () => {
    const order: string[] = [];
    await schedule([task("a", 1), task("b", 5), task("c", 3)], { gpuIds: [], maxParallel: 1 }, async (t) => {
      order.push(t.id);
    });
    expect(order).toEqual(["b", "c", "a"]);
  });

  it("never gives one GPU to two running tasks", async () => {
    const held = new Set<string>();
    let overlap = false;
    let peak = 0;
    const tasks = Array.from({ length: 8 }, (_, i) => task(`t${i}`, 8 - i, 1));
    await schedule(tasks, { gpuIds: ["0", "1"], maxParallel: 8 }, async (_t, ids) => {
      expect(ids).toHaveLength(1);
      if (held.has(ids[0])) overlap = true;
      held.add(ids[0]);
      peak = Math.max(peak, held.size);
      await tick();
      held.delete(ids[0]);
    });
    expect(overlap).toBe(false);
    expect(peak).toBe(2);
  });

  it("keeps running tasks within the CPU budget", async () => {
    let cpus = 0;
    let peak = 0;
    const tasks = Array.from({ length: 6 }, (_, i) => task(`t${i}`, i, 0, 2));
    await schedule(tasks, { gpuIds: [], maxParallel: 10, cpus: 5 }, async (t) => {
      cpus += t.cpus ?? 0;
      peak = Math.max(peak, cpus);
      await tick();
      cpus -= t.cpus ?? 0;
    });
    expect(peak).toBe(4);
  });

  it("backfills a short task while a multi-GPU task waits", () => {
    const pool = new Pool([task("big", 10, 2), task("small", 1, 1), task("first", 20, 1)], {
      gpuIds: ["0", "1"],
      maxParallel: 4,
    });
    const a = pool.next();
    expect(a?.task.id).toBe("first");
    expect(pool.next()?.task.id).toBe("small");
    expect(pool.next()).toBeNull();
  });

  it("stops starting tasks once aborted", async () => {
    const ac = new AbortController();
    const ran: string[] = [];
    await schedule(
      [task("a", 3), task("b", 2), task("c", 1)],
      { gpuIds: [], maxParallel: 1 },
      async (t) => {
        ran.push(t.id);
        ac.abort();
      },
      ac.signal,
    );
    expect(ran).toEqual(["a"]);
  });

  it("rethrows the first failure after running tasks end", async () => {
    let finished = 0;
    await expect(
      schedule([task("a", 2), task("b", 1)], { gpuIds: [], maxParallel: 2 }, async (t) => {
        if (t.id === "b") throw new Error("boom");
        await tick();
        finished++;
      }),
    ).rejects.toThrow("boom");
    expect(finished).toBe(1);
  });

  it("rejects tasks that can never fit", async () => {
    await expect(
      schedule([task("a", 1, 3)], { gpuIds: ["0"], maxParallel: 1 }, async () => {}),
    ).rejects.toThrow(/needs 3 GPU/);
    await expect(
      schedule([task("a", 1, 0, 8)], { gpuIds: [], maxParallel: 1, cpus: 4 }, async () => {}),
    ).rejects.toThrow(/needs 8 CPU/);
  });
});

describe("simulate", () => {
  it("places tasks in simulated time without overlapping GPUs", () => {
    const tasks = [task("a", 5, 1), task("b", 4, 1), task("c", 3, 1), task("d", 2, 1)];
    const { makespan, placements } = simulate(tasks, { gpuIds: ["0", "1"], maxParallel: 4 });
    expect(makespan).toBe(7);
    for (const p of placements) {
      for (const q of placements) {
        if (p !== q && p.gpuIds[0] === q.gpuIds[0]) expect(p.end <= q.start || q.end <= p.start).toBe(true);
      }
    }
  });

  it("longest-first beats first-in-first-out on a skewed queue", () => {
    const tasks = [
      task("s1", 1, 1),
      task("s2", 1, 1),
      task("s3", 1, 1),
      task("s4", 1, 1),
      task("long", 4, 1),
    ];
    const res = { gpuIds: ["0", "1"], maxParallel: 2 };
    expect(simulate(tasks, res).makespan).toBe(4);
    expect(simulate(tasks, res, { order: "fifo" }).makespan).toBe(6);
    expect(makespanLowerBound(tasks, 2)).toBe(4);
  });
});

describe("schedule with admit (history-informed reserves)", () => {
  it("holds a waiting task back without blocking the others, starts it once admitted, drops a skipped one", async () => {
    const order: string[] = [];
    let admitted = false;
    const admit = (t: SchedTask) =>
      t.id === "reserve" ? (admitted ? "start" : "wait") : t.id === "never" ? "skip" : "start";
    await schedule(
      [task("reserve", 9), task("never", 8), task("a", 5), task("b", 3)],
      { gpuIds: [], maxParallel: 1 },
      async (t) => {
        order.push(t.id);
        if (t.id === "b") admitted = true;
      },
      undefined,
      admit,
    );
    expect(order).toEqual(["a", "b", "reserve"]);
  });

  it("ends when only waiting tasks are left and nothing runs", async () => {
    const order: string[] = [];
    await schedule(
      [task("w", 9), task("a", 1)],
      { gpuIds: [], maxParallel: 2 },
      async (t) => void order.push(t.id),
      undefined,
      (t) => (t.id === "w" ? "wait" : "start"),
    );
    expect(order).toEqual(["a"]);
  });
});
