// Uploads the runs' trajectories (logs, code, submission; one artifact per side) and the report as
// workflow artifacts. The agent names the files of its run folder: a name the artifact service
// refuses is renamed (see planUpload) and every change is said; withheld files never leave.
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { DefaultArtifactClient } from "@actions/artifact";
import { copyOut, listRegularFiles } from "../util/runfiles.js";
import { isWithheld, WITHHELD_FILE, withheldFiles, type WithheldManifest } from "../execute/withheld.js";

export interface ArtifactApi {
  upload: (name: string, files: string[], root: string) => Promise<{ id?: number }>;
  /** This workflow run's artifacts (the newest of each name). */
  list?: () => Promise<{ id: number; name: string }[]>;
  /** Unpacks one artifact into `path`. */
  download?: (id: number, path: string) => Promise<void>;
}

/** How uploads are kept: the retention-days input. */
export interface ArtifactOptions {
  retentionDays: number;
}

export const actionsArtifacts = (opts: ArtifactOptions): ArtifactApi => {
  const client = new DefaultArtifactClient();
  return {
    upload: (name, files, root) =>
      client.uploadArtifact(name, files, root, { retentionDays: opts.retentionDays }),
    list: async () =>
      (await client.listArtifacts({ latest: true })).artifacts.map((a) => ({ id: a.id, name: a.name })),
    download: async (id, path) => void (await client.downloadArtifact(id, { path })),
  };
};

/** Every regular file under `dir` (empty when it does not exist), read back safely: see listFiles. */
export function filesUnder(dir: string): string[] {
  return safeIsDir(dir) ? listRegularFiles(dir, 1_000_000, Number.MAX_SAFE_INTEGER) : [];
}

/**
 * Which files under `root` stay on the runner: those a run folder's withheld.json names (files the
 * attempt could not mask: execute/withheld.ts), and every file of a run folder that was never masked.
 * A run folder is the nearest folder, from `root` down, holding run.json or withheld.json; files
 * outside any run folder (results.json, the viewer) are not withheld. `rel` is relative to `root`.
 */
export function withheldBy(root: string, opts: { binaryFiles?: boolean } = {}): (rel: string) => boolean {
  // Per folder: null when it is not a run folder, else its manifest (null inside: never masked).
  const seen = new Map<string, { manifest: WithheldManifest | null } | null>();
  const runFolder = (dir: string) => {
    if (!seen.has(dir)) {
      const is = existsSync(join(dir, "run.json")) || existsSync(join(dir, WITHHELD_FILE));
      seen.set(dir, is ? { manifest: withheldFiles(dir) } : null);
    }
    return seen.get(dir)!;
  };
  return (rel) => {
    const parts = rel.split("/");
    for (let i = 0; i < parts.length; i++) {
      const run = runFolder(join(root, ...parts.slice(0, i)));
      if (run) return isWithheld(run.manifest, parts.slice(i).join("/"), opts);
    }
    return false;
  };
}

/** A run folder's files, read back safely: no links, no hard links, bounded (util/runfiles.ts). */
const listFiles = (dir: string): string[] => listRegularFiles(dir);

/** Uploads every plain file under `dir` as one artifact; returns its id (undefined when empty). */
export async function uploadFolder(
  api: ArtifactApi,
  name: string,
  dir: string,
  withheld: (rel: string) => boolean = withheldBy(dir),
  /** Told what was renamed or skipped (file names the agent chose). */
  onNotes?: (notes: UploadNote[]) => void,
): Promise<number | undefined> {
  if (!safeIsDir(dir)) return undefined;
  const files = listFiles(dir);
  if (!files.length) return undefined;
  const r = await uploadFiles(api, name, dir, files, withheld);
  if (r.notes.length) onNotes?.(r.notes);
  return r.id;
}

/** Artifact names may not hold " : < > | * ? \ / or line breaks (nor be empty). */
export const artifactName = (s: string) => s.replace(/[":<>|*?\\/\r\n]+/g, "_") || "_";

/**
 * Characters @actions/artifact (6.x, validateFilePath) refuses anywhere in a file's path inside an
 * artifact; one such file makes the whole upload throw.
 */
const REFUSED_IN_PATH = /[":<>|*?\r\n]/g;
const refused = (rel: string) => /[":<>|*?\r\n]/.test(rel);

/** What happened to one file of a run folder on its way into the artifact. */
export interface UploadNote {
  /** Path relative to the run folder, as the agent named it. */
  path: string;
  action: "renamed" | "skipped";
  /** The name inside the artifact (renamed). */
  to?: string;
  why: string;
}

export interface UploadPlan {
  /** Each file to upload and its path inside the artifact ("/"-separated, relative). */
  files: { source: string; name: string }[];
  notes: UploadNote[];
}

/** `name` made different from every name in `taken`: "a.txt" → "a~2.txt", "a~3.txt", … */
function unique(name: string, taken: Set<string>): string {
  if (!taken.has(name)) return name;
  const slash = name.lastIndexOf("/");
  const dot = name.lastIndexOf(".");
  const cut = dot > slash + 1 ? dot : name.length;
  for (let i = 2; ; i++) {
    const next = `${name.slice(0, cut)}~${i}${name.slice(cut)}`;
    if (!taken.has(next)) return next;
  }
}

/**
 * The artifact's names for a run folder's files: a name with a character the artifact service
 * refuses gets "_" in its place (each path part, folders included); a name that then collides
 * with another is made unique; files withheld by the runner are skipped. Every change is a note.
 */
export function planUpload(
  root: string,
  files: string[],
  withheld: (rel: string) => boolean = () => false,
): UploadPlan {
  const out: UploadPlan = { files: [], notes: [] };
  const rels = files.map((f) => relative(root, f).split(sep).join("/"));
  // Names that need no change keep them: a renamed file never takes a clean file's name.
  const taken = new Set(rels.filter((r) => !refused(r)));
  files.forEach((source, i) => {
    const rel = rels[i];
    if (withheld(rel)) {
      out.notes.push({
        path: rel,
        action: "skipped",
        why: "withheld by the runner (a file that cannot be masked)",
      });
      return;
    }
    const clean = rel.replace(REFUSED_IN_PATH, "_");
    if (clean === rel) return void out.files.push({ source, name: rel });
    const to = unique(clean, taken);
    taken.add(to);
    out.files.push({ source, name: to });
    out.notes.push({
      path: rel,
      action: "renamed",
      to,
      why: 'the artifact service refuses " : < > | * ? and line breaks in file names',
    });
  });
  return out;
}

/**
 * Uploads `files` (under `root`) as one artifact under planUpload's names. When a name changes,
 * the files are first copied (no link followed, see copyOut) into a private folder under their new
 * names; a file that cannot be copied is skipped with a note. Throws only what the service throws.
 */
export async function uploadFiles(
  api: ArtifactApi,
  name: string,
  root: string,
  files: string[],
  withheld: (rel: string) => boolean = withheldBy(root),
): Promise<{ id?: number; notes: UploadNote[] }> {
  const plan = planUpload(root, files, withheld);
  const notes = plan.notes;
  if (!plan.files.length) return { notes };
  if (plan.files.every((f) => relative(root, f.source).split(sep).join("/") === f.name))
    return {
      ...(await api.upload(
        artifactName(name),
        plan.files.map((f) => f.source),
        root,
      )),
      notes,
    };
  const stage = mkdtempSync(join(process.env.RUNNER_TEMP || tmpdir(), "medalist-upload-"));
  try {
    const staged: string[] = [];
    for (const f of plan.files) {
      const dest = join(stage, ...f.name.split("/"));
      const rel = relative(root, f.source);
      let why: string | null;
      try {
        mkdirSync(dirname(dest), { recursive: true });
        const copied = copyOut(root, rel, dest, Number.MAX_SAFE_INTEGER);
        why = copied.ok ? null : copied.problem;
      } catch (e) {
        // A renamed folder that meets a file of the same name ("a_b" and "a:b/x"), and the like.
        why = `it could not be copied under the name ${JSON.stringify(f.name)} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
      }
      if (why === null) staged.push(dest);
      else notes.push({ path: rel, action: "skipped", why });
    }
    if (!staged.length) return { notes };
    return { ...(await api.upload(artifactName(name), staged, stage)), notes };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** The upload notes of a run on one line, for the log ("" when none). */
export function notesText(notes: UploadNote[]): string {
  // Names in JSON quotes: a line break in an agent's file name cannot start a workflow command.
  const q = (p: string) => JSON.stringify(p);
  return notes
    .map((n) =>
      n.action === "renamed"
        ? `${q(n.path)} uploaded as ${q(n.to ?? "")} (${n.why})`
        : `${q(n.path)} not uploaded: ${n.why}`,
    )
    .join("; ");
}

/** The deepest folder holding every one of `dirs` (absolute paths). */
function commonFolder(dirs: string[]): string {
  const split = dirs.map((d) => resolve(d).split(sep));
  const first = split[0];
  let n = first.length;
  for (const parts of split.slice(1)) {
    let i = 0;
    while (i < n && i < parts.length && parts[i] === first[i]) i++;
    n = i;
  }
  return first.slice(0, n).join(sep) || sep;
}

/**
 * One side's runs as one artifact: every run folder's files, named from the folders' common parent
 * down ("toy-species.s0/logs/agent.log"), renamed or withheld as uploadFiles does (withheld.json of
 * each run folder). Folders that do not exist are left out. Throws what the service throws.
 */
export async function uploadRuns(
  api: ArtifactApi,
  name: string,
  folders: string[],
  opts: { binaryFiles?: boolean } = {},
): Promise<{ id?: number; notes: UploadNote[] }> {
  const present = [...new Set(folders.map((f) => resolve(f)))].filter(safeIsDir);
  if (!present.length) return { notes: [] };
  const root = commonFolder(present.map((f) => dirname(f)));
  const files = present.flatMap(listFiles);
  if (!files.length) return { notes: [] };
  return uploadFiles(api, name, root, files, withheldBy(root, opts));
}

function safeIsDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
