// Every agent container's limits: what the config says, else defaults derived from the runner and
// how many runs share it (docs/docker.md, "Limits"). Pure: the caller passes the runner's shape.
import type { Limits } from "../../config/parts.js";
import { MLEBENCH_SHM_BYTES } from "../mlebench-container.js";
import { defaultTmp } from "../container/writable.js";

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/** Processes and threads per container unless limits.pids says otherwise. */
export const DEFAULT_PIDS = 4096;
/**
 * The filesystem the writable places of a read-only root share, or the writable layer where the
 * storage driver can bound it (limits.disk.root: writable), unless limits.disk.root says.
 */
export const DEFAULT_ROOT = 16 * GiB;

/** What the defaults are derived from. */
export interface RunnerShape {
  /** Bytes of memory on the runner (os.totalmem()). */
  totalMem: number;
  /** CPUs on the runner. */
  cpus: number;
  /** Runs at once on this runner (the scheduler's maxParallel). */
  parallel: number;
  /** An MLE-bench agent: /dev/shm as upstream sizes it (4 GiB), within the memory limit. */
  mlebench?: boolean;
}

/** The limits a run's container gets, every one set. */
export interface RunLimits {
  cpus: number;
  memory: number;
  pids: number;
  /** /dev/shm; undefined keeps Docker's 64 MiB. */
  shmSize?: number;
  /** Size of each of /tmp and /var/tmp (in-memory, counted in the memory limit). */
  tmp: number;
}

/** Memory kept for the runner itself: a tenth of it, at least 1 GiB, at most 8 GiB. */
export function memoryReserve(totalMem: number): number {
  return Math.min(8 * GiB, Math.max(GiB, Math.round(totalMem / 10)));
}

/**
 * The config's limits with every unset one derived: memory (runner's memory less its reserve,
 * shared by the runs at once; at least 256 MiB), CPUs (the runner's shared by the runs at once,
 * at least 0.1), pids 4096, /tmp a quarter of the memory (at most 1 GiB), /dev/shm 4 GiB for an
 * MLE-bench agent within half the memory. Values the config sets are kept as they are.
 */
export function runLimits(
  limits: Pick<Limits, "cpus" | "memory" | "pids" | "shmSize"> & { disk?: { tmp?: number } },
  shape: RunnerShape,
): RunLimits {
  const parallel = Math.max(1, shape.parallel);
  const memory =
    limits.memory ??
    Math.max(256 * MiB, Math.floor((shape.totalMem - memoryReserve(shape.totalMem)) / parallel / MiB) * MiB);
  const cpus = limits.cpus ?? Math.max(0.1, Math.floor((shape.cpus / parallel) * 100) / 100);
  const shmSize =
    limits.shmSize ?? (shape.mlebench ? Math.min(MLEBENCH_SHM_BYTES, Math.floor(memory / 2)) : undefined);
  const tmp = limits.disk?.tmp ?? defaultTmp(memory);
  return { cpus, memory, pids: limits.pids ?? DEFAULT_PIDS, shmSize, tmp };
}

/** "24 GiB", "512 MiB", "1.5 GiB": a size as the limits' sentences write it. */
export function sizeText(n: number): string {
  const [unit, div] = n >= GiB ? ["GiB", GiB] : n >= MiB ? ["MiB", MiB] : ["KiB", 1024];
  const v = n / div;
  return `${Number.isInteger(v) ? v : Number(v.toFixed(1))} ${unit}`;
}

/** One line for the suite log: the limits each run gets and where the defaults came from. */
export function limitsNote(
  l: RunLimits,
  set: Record<"cpus" | "memory" | "pids" | "tmp", boolean>,
  shape: RunnerShape,
): string {
  const from = (key: keyof typeof set) => (set[key] ? "" : "*");
  const parts = [
    `memory ${sizeText(l.memory)}${from("memory")} (no swap)`,
    `${l.cpus} CPU(s)${from("cpus")}`,
    `${l.pids} processes${from("pids")}`,
    `/tmp and /var/tmp ${sizeText(l.tmp)}${from("tmp")} each`,
  ];
  if (l.shmSize !== undefined) parts.push(`/dev/shm ${sizeText(l.shmSize)}`);
  const derived = Object.values(set).some((v) => !v)
    ? `; * derived from this runner's ${sizeText(shape.totalMem)} and ${shape.cpus} CPU(s) shared by ${Math.max(1, shape.parallel)} run(s) at once (set limits.* to change)`
    : "";
  return `limits per run: ${parts.join(", ")}${derived}`;
}
