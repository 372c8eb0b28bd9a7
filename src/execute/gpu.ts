import { execFile } from "node:child_process";

/** One GPU as nvidia-smi reports it. */
export interface GpuInfo {
  index: string;
  uuid: string;
  name: string;
  /** Total memory in MiB; null when not reported. */
  memoryMiB: number | null;
}

export interface GpuDetection {
  /** Device ids to pin to runs (nvidia-smi indices, or the configured list). */
  ids: string[];
  gpus: GpuInfo[];
  /** GPU model for the results, e.g. "NVIDIA H100 80GB HBM3" or "2× NVIDIA A10, 1× NVIDIA T4". */
  model: string | null;
  source: "config" | "nvidia-smi" | "none";
}

export const NVIDIA_SMI_ARGS = ["--query-gpu=index,uuid,name,memory.total", "--format=csv,noheader"];

/** Parses `nvidia-smi --query-gpu=index,uuid,name,memory.total --format=csv,noheader`. */
export function parseNvidiaSmi(output: string): GpuInfo[] {
  const gpus: GpuInfo[] = [];
  for (const raw of output.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "") continue;
    const cells = line.split(",").map((c) => c.trim());
    if (cells.length < 4) throw new Error(`unexpected nvidia-smi line: ${JSON.stringify(line)}`);
    // A GPU name never holds a comma in practice, but keep any as part of the name.
    const [index, uuid] = cells;
    const memory = cells[cells.length - 1];
    const name = cells.slice(2, -1).join(", ");
    if (!/^\d+$/.test(index)) throw new Error(`unexpected nvidia-smi index: ${JSON.stringify(line)}`);
    const m = /^(\d+(?:\.\d+)?)\s*(MiB|GiB)?$/i.exec(memory);
    const memoryMiB = m ? Number(m[1]) * (m[2]?.toLowerCase() === "gib" ? 1024 : 1) : null;
    gpus.push({ index, uuid, name, memoryMiB });
  }
  return gpus;
}

/** "NVIDIA H200" for identical GPUs; "2× NVIDIA A10, 1× NVIDIA T4" for a mix; null for none. */
export function gpuModel(gpus: GpuInfo[]): string | null {
  if (gpus.length === 0) return null;
  const counts = new Map<string, number>();
  for (const g of gpus) counts.set(g.name, (counts.get(g.name) ?? 0) + 1);
  if (counts.size === 1) return gpus[0].name;
  return [...counts].map(([name, n]) => `${n}× ${name}`).join(", ");
}

/** Runs nvidia-smi; resolves null when it is not installed or fails (no GPU, no driver). */
export function runNvidiaSmi(command = "nvidia-smi", timeoutMs = 15_000): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(command, NVIDIA_SMI_ARGS, { timeout: timeoutMs, env: process.env }, (err, stdout) => {
      resolve(err ? null : stdout);
    });
  });
}

/**
 * The runner's GPUs: the configured ids when given (named from nvidia-smi when it answers),
 * otherwise whatever nvidia-smi lists; none when it is absent.
 */
export async function detectGpus(
  opts: { gpuIds?: string[]; nvidiaSmi?: string } = {},
): Promise<GpuDetection> {
  const out = await runNvidiaSmi(opts.nvidiaSmi);
  const all = out === null ? [] : parseNvidiaSmi(out);
  if (opts.gpuIds !== undefined) {
    const gpus = all.filter((g) => opts.gpuIds!.includes(g.index) || opts.gpuIds!.includes(g.uuid));
    return { ids: [...opts.gpuIds], gpus, model: gpuModel(gpus), source: "config" };
  }
  if (all.length === 0) return { ids: [], gpus: [], model: null, source: "none" };
  return { ids: all.map((g) => g.index), gpus: all, model: gpuModel(all), source: "nvidia-smi" };
}
