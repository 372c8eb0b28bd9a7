/**
 * The list of a run folder's files that must not leave the runner (written by maskRunFolder in
 * mask-folder.ts, read by whatever uploads or shows the folder). It lives in the run folder as
 * WITHHELD_FILE, with paths relative to the run folder, `/`-separated, already masked.
 */
import { closeSync, constants, openSync, rmSync, writeSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { readInside } from "../util/runfiles.js";

export const WITHHELD_FILE = "withheld.json";

/**
 * Why a file is withheld: `binary` (NUL bytes or invalid UTF-8: cannot be masked; uploaded only
 * with `upload.binaryFiles: true`), `too-large` (past the masking bounds), `hard-link`,
 * `holds-secret` (a file kept as written, the submission, that holds a secret), `unwritable`
 * (holds a secret, or its name does, and could not be rewritten), `unreadable`.
 */
export type WithheldReason =
  "binary" | "too-large" | "hard-link" | "holds-secret" | "unwritable" | "unreadable";

const ManifestSchema = z.object({
  version: z.literal(1),
  /** False when the masking walk stopped early: then nothing of the folder may leave. */
  complete: z.boolean(),
  /** Whether any secret was masked at all (false: no secret long enough was declared). */
  active: z.boolean(),
  withheld: z.array(
    z.object({
      path: z.string(),
      reason: z.enum(["binary", "too-large", "hard-link", "holds-secret", "unwritable", "unreadable"]),
    }),
  ),
});

export type WithheldManifest = z.infer<typeof ManifestSchema>;

/** Most bytes the manifest may take when read back. */
const MAX_MANIFEST_BYTES = 8 * 1024 * 1024;

/** The run folder's manifest, or null when it is missing or unreadable (never masked: withhold all). */
export function withheldFiles(runDir: string): WithheldManifest | null {
  const r = readInside(runDir, WITHHELD_FILE, MAX_MANIFEST_BYTES);
  if (!r.ok) return null;
  try {
    const parsed = ManifestSchema.safeParse(JSON.parse(r.data.toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Must `relPath` (relative to the run folder) stay on the runner? True for every file when the
 * manifest is missing (the folder was never masked) or incomplete; binary files leave only with
 * `binaryFiles`. The manifest itself may leave (it names only masked paths).
 */
export function isWithheld(
  manifest: WithheldManifest | null,
  relPath: string,
  opts: { binaryFiles?: boolean } = {},
): boolean {
  const rel = relPath.split(path.sep).join("/").replace(/^\.\//, "");
  if (rel === WITHHELD_FILE) return false;
  if (!manifest || !manifest.complete) return true;
  const hit = manifest.withheld.find((w) => w.path === rel);
  if (!hit) return false;
  return !(hit.reason === "binary" && opts.binaryFiles === true);
}

/** Writes the manifest, replacing whatever the agent may have left under that name. */
export function writeWithheld(runDir: string, manifest: WithheldManifest): void {
  const file = path.join(runDir, WITHHELD_FILE);
  rmSync(file, { recursive: true, force: true }); // a link or a folder the agent put there: removed
  const fd = openSync(
    file,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
    0o600,
  );
  try {
    writeSync(fd, JSON.stringify(manifest) + "\n");
  } finally {
    closeSync(fd);
  }
}
