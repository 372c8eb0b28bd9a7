// Scheduler makespan in simulated time (no sleeping): 22 competitions × 3 seeds of mixed
// durations on 4 GPUs, against the lower bound max(total ÷ GPUs, longest run) and FIFO.
import { makespanLowerBound, simulate, type SchedTask } from "../src/execute/scheduler.js";
import { rng } from "../src/prepare/random.js";

const GPUS = ["0", "1", "2", "3"];
const COMPETITIONS = 22;
const SEEDS = 3;

interface Task extends SchedTask {
  actualSecs: number;
}

/**
 * A workload like an MLE-bench lite suite: per competition an expected duration (a third short,
 * 10–40 min; a third medium, 1–3 h; a third long, 4–10 h), and per seed an actual duration within
 * ±`noise` of it (agents finish early or late; the scheduler only knows the expectation).
 */
export function workload(seed: number, noise: number): Task[] {
  const r = rng(seed);
  const tasks: Task[] = [];
  for (let c = 0; c < COMPETITIONS; c++) {
    const band = c % 3;
    const [lo, hi] = band === 0 ? [600, 2400] : band === 1 ? [3600, 10800] : [14400, 36000];
    const expected = Math.round(lo + r() * (hi - lo));
    for (let s = 0; s < SEEDS; s++) {
      const actual = Math.round(expected * (1 + noise * (2 * r() - 1)));
      tasks.push({ id: `c${c}-s${s}`, expectedSecs: expected, actualSecs: actual, gpus: 1 });
    }
  }
  return tasks;
}

function ratios(tasks: Task[]) {
  const res = { gpuIds: GPUS, maxParallel: GPUS.length };
  const actual = (t: Task) => t.actualSecs;
  const bound = makespanLowerBound(
    tasks.map((t) => ({ ...t, expectedSecs: t.actualSecs })),
    GPUS.length,
  );
  return {
    bound,
    lpt: simulate(tasks, res, { durationOf: actual }).makespan / bound,
    fifo: simulate(tasks, res, { order: "fifo", durationOf: actual }).makespan / bound,
  };
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const f = (x: number) => `${x.toFixed(3)}×`;
const hours = (s: number) => `${(s / 3600).toFixed(2)} h`;

export async function benchScheduler(): Promise<string> {
  const rows: string[] = [];
  for (const noise of [0, 0.3]) {
    const one = ratios(workload(1, noise));
    const many = Array.from({ length: 200 }, (_, i) => ratios(workload(1000 + i, noise)));
    const lpt = many.map((m) => m.lpt);
    const fifo = many.map((m) => m.fifo);
    const beats = many.filter((m) => m.lpt < m.fifo).length;
    rows.push(
      `| ${noise === 0 ? "exact" : `±${noise * 100}%`} | ${hours(one.bound)} | ${f(one.lpt)} | ${f(one.fifo)} | ` +
        `${f(pct(lpt, 0.5))} / ${f(pct(lpt, 0.95))} / ${f(Math.max(...lpt))} | ${f(pct(fifo, 0.5))} | ${beats}/${many.length} |`,
    );
  }
  return [
    "## Scheduler makespan (simulated)",
    "",
    `${COMPETITIONS} competitions × ${SEEDS} seeds on ${GPUS.length} GPUs, one GPU per run; durations mixed ` +
      "(10 min – 10 h). Ratio = makespan ÷ max(total ÷ GPUs, longest run). Goal: longest-first ≤ 1.05× and better than FIFO. " +
      '"Noise": actual run times differ from the expectation the scheduler sorts by.',
    "",
    "| durations | lower bound (workload 1) | longest-first (workload 1) | FIFO (workload 1) | longest-first over 200 workloads: median / p95 / worst | FIFO median | longest-first better |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await benchScheduler());
