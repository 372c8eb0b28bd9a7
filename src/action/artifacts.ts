// Uploads each run's trajectory (logs, code, submission) and the report as workflow artifacts.
import { statSync } from "node:fs";
import { listRegularFiles } from "../util/runfiles.js";
import { resolve } from "node:path";
import { DefaultArtifactClient } from "@actions/artifact";

export interface ArtifactApi {
  upload: (name: string, files: string[], root: string) => Promise<{ id?: number }>;
  /** This workflow run's artifacts (the newest of each name). */
  list?: () => Promise<{ id: number; name: string }[]>;
  /** Unpacks one artifact into `path`. */
  download?: (id: number, path: string) => Promise<void>;
}

export const actionsArtifacts = (): ArtifactApi => {
  const client = new DefaultArtifactClient();
  return {
    upload: (name, files, root) => client.uploadArtifact(name, files, root, { retentionDays: 30 }),
    list: async () =>
      (await client.listArtifacts({ latest: true })).artifacts.map((a) => ({ id: a.id, name: a.name })),
    download: async (id, path) => void (await client.downloadArtifact(id, { path })),
  };
};

/** Every regular file under `dir` (empty when it does not exist), read back safely: see listFiles. */
export function filesUnder(dir: string): string[] {
  return safeIsDir(dir) ? listRegularFiles(dir, 1_000_000, Number.MAX_SAFE_INTEGER) : [];
}

/** A run folder's files, read back safely: no links, no hard links, bounded (util/runfiles.ts). */
const listFiles = (dir: string): string[] => listRegularFiles(dir);

/** Uploads every plain file under `dir` as one artifact; returns its id (undefined when empty). */
export async function uploadFolder(api: ArtifactApi, name: string, dir: string): Promise<number | undefined> {
  if (!safeIsDir(dir)) return undefined;
  const files = listFiles(dir);
  if (!files.length) return undefined;
  return (await api.upload(name, files, dir)).id;
}

/** Artifact names may not hold " : < > | * ? \ / or line breaks. */
export const artifactName = (s: string) => s.replace(/[":<>|*?\\/\r\n]+/g, "_");

export interface TrajectoryUpload {
  /** Run directory as written in results.json (relative to the results file). */
  runDir: string;
  localPath: string;
  url: string | null;
}

export interface UploadOutcome {
  uploads: TrajectoryUpload[];
  /** Set when nothing could be uploaded (GHES, no artifact service, permissions). */
  warning: string | null;
}

/** Uploads one artifact per run directory, a few at a time; stops at the first failure with a warning. */
export async function uploadTrajectories(
  api: ArtifactApi | null,
  runs: { name: string; runDir: string; resultsDir: string }[],
  artifactPage: (id: number) => string,
  unsupported: string | null,
): Promise<UploadOutcome> {
  const uploads: TrajectoryUpload[] = runs.map((r) => ({
    runDir: r.runDir,
    localPath: resolve(r.resultsDir, r.runDir),
    url: null,
  }));
  if (unsupported || !api) return { uploads, warning: unsupported ?? "no artifact client" };
  let warning: string | null = null;
  let next = 0;
  const worker = async () => {
    while (next < runs.length && warning === null) {
      const i = next++;
      const dir = uploads[i].localPath;
      if (!safeIsDir(dir)) continue;
      const files = listFiles(dir);
      if (files.length === 0) continue;
      try {
        const { id } = await api.upload(artifactName(runs[i].name), files, dir);
        if (id !== undefined) uploads[i].url = artifactPage(id);
      } catch (e) {
        warning ??= (e as Error).message;
      }
    }
  };
  await Promise.all([worker(), worker(), worker()]);
  return { uploads, warning };
}

function safeIsDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
