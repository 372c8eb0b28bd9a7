// A shard's artifact is bounded per run as the run store is (suite/run-store.ts): the agent chooses
// its files' sizes, and a zip reads every byte of a sparse file's holes. A run past the bound is
// uploaded without its largest files, said in one sentence; its result (results.json, run.json)
// always goes.
import { lstatSync } from "node:fs";
import { relative, sep } from "node:path";
import { MAX_STORED_RUN_BYTES, MAX_STORED_RUN_ENTRIES } from "../suite/run-store.js";
import { RUN_SEAL } from "../suite/seal.js";

/** The runner's own files of a run folder: always uploaded (small, written by the runner). */
const RECORD_FILES = new Set(["run.json", RUN_SEAL, "withheld.json"]);

export interface UploadBound {
  /** Most bytes (apparent sizes: holes count, a zip reads them) of one run's files. */
  maxBytes?: number;
  /** Most files of one run. */
  maxFiles?: number;
}

/** The bound the run step applies: MEDALIST_MAX_UPLOAD_RUN_BYTES lowers it (tests). */
export function uploadBound(env: NodeJS.ProcessEnv): Required<UploadBound> {
  const n = Number(env.MEDALIST_MAX_UPLOAD_RUN_BYTES);
  return {
    maxBytes: Number.isSafeInteger(n) && n > 0 ? n : MAX_STORED_RUN_BYTES,
    maxFiles: MAX_STORED_RUN_ENTRIES,
  };
}

const size = (file: string) => lstatSync(file, { throwIfNoEntry: false })?.size ?? 0;

function bytesText(n: number): string {
  if (n >= 1024 ** 3) return `${(n / 1024 ** 3).toFixed(1)} GiB`;
  if (n >= 1024 ** 2) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${n} bytes`;
}

/**
 * `files` (under `root`) with each run folder (<side>/runs/<run>/) cut to the bound: the runner's
 * record files first, then the smallest files while they fit; every file left out is counted in
 * that run's one sentence. Files outside run folders are kept.
 */
export function boundRuns(
  root: string,
  files: string[],
  bound: Required<UploadBound>,
): { files: string[]; notes: string[] } {
  const byRun = new Map<string, { file: string; rel: string; bytes: number }[]>();
  const kept: string[] = [];
  for (const file of files) {
    const parts = relative(root, file).split(sep);
    if (parts.length < 4 || parts[1] !== "runs") {
      kept.push(file);
      continue;
    }
    const run = parts.slice(0, 3).join("/");
    if (!byRun.has(run)) byRun.set(run, []);
    byRun.get(run)!.push({ file, rel: parts.slice(3).join("/"), bytes: size(file) });
  }
  const notes: string[] = [];
  for (const [run, list] of byRun) {
    const order = [...list].sort(
      (a, b) =>
        Number(RECORD_FILES.has(b.rel)) - Number(RECORD_FILES.has(a.rel)) ||
        a.bytes - b.bytes ||
        (a.rel < b.rel ? -1 : 1),
    );
    let bytes = 0;
    let count = 0;
    const out: typeof list = [];
    for (const f of order) {
      const fits = bytes + f.bytes <= bound.maxBytes && count < bound.maxFiles;
      if (RECORD_FILES.has(f.rel) || fits) {
        bytes += f.bytes;
        count++;
        kept.push(f.file);
      } else out.push(f);
    }
    if (out.length === 0) continue;
    const total = out.reduce((a, f) => a + f.bytes, 0);
    const largest = out.reduce((a, f) => (f.bytes > a.bytes ? f : a));
    notes.push(
      `${run}: ${out.length} file${out.length === 1 ? "" : "s"} (${bytesText(total)}, the largest ${JSON.stringify(largest.rel)}) left out of the shard's upload: a run's files are bounded to ${bytesText(bound.maxBytes)} and ${bound.maxFiles} files; its result is uploaded`,
    );
  }
  return { files: kept, notes };
}
