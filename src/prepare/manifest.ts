import { createHash } from "node:crypto";
import {
  createReadStream,
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";

/**
 * The checksum manifest of a prepared competition, <data-dir>/<id>/prepared/medalist-manifest.json.
 * It lists the files upstream checksums (top-level CSV/JSON/… of public/ and private/) plus the
 * answers and sample submission, with size, mtime and MD5 (comparable with upstream's checksums.yaml).
 * Written last, so its presence means the preparation finished.
 */
export const MANIFEST_NAME = "medalist-manifest.json";

const FileEntry = z.strictObject({ size: z.number(), mtimeMs: z.number(), md5: z.string() });

export const ManifestSchema = z.strictObject({
  version: z.literal(1),
  competition: z.string(),
  /** reused: prepared by MLE-bench (or by hand); recipe: by Medalist's recipe; toy: generated. */
  origin: z.enum(["reused", "recipe", "toy"]),
  createdAt: z.string(),
  /** Paths relative to prepared/, e.g. "public/train.csv". */
  files: z.record(z.string(), FileEntry),
  /** Files whose MD5 differs from upstream's (empty when they match or nothing is pinned). */
  upstreamMismatches: z.array(z.string()).default([]),
  /** Where public/description.md came from, for data Medalist prepared. */
  description: z.enum(["upstream", "stub"]).optional(),
  /** Number of entries per folder (public/, private/ and their sub-folders), for information. */
  counts: z.record(z.string(), z.number()).default({}),
});
export type Manifest = z.output<typeof ManifestSchema>;

const HASHED = /\.(csv|json|jsonl|parquet|bson)$/;

export function md5File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash("md5");
    createReadStream(file)
      .on("data", (b) => h.update(b))
      .on("error", reject)
      .on("end", () => resolve(h.digest("hex")));
  });
}

/** The files a manifest covers: top-level hashed files of public/ and private/, plus `extra`. */
export function manifestFiles(preparedDir: string, extra: string[]): string[] {
  const out = new Set<string>();
  for (const side of ["public", "private"]) {
    const dir = join(preparedDir, side);
    if (!existsSync(dir)) continue;
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      if (d.isFile() && HASHED.test(d.name)) out.add(`${side}/${d.name}`);
    }
  }
  for (const e of extra) out.add(e);
  return [...out].sort();
}

function folderCounts(preparedDir: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const side of ["public", "private"]) {
    const dir = join(preparedDir, side);
    if (!existsSync(dir)) continue;
    const entries = readdirSync(dir, { withFileTypes: true });
    counts[side] = entries.length;
    for (const d of entries)
      if (d.isDirectory()) counts[`${side}/${d.name}`] = readdirSync(join(dir, d.name)).length;
  }
  return counts;
}

export async function buildManifest(
  preparedDir: string,
  competition: string,
  origin: Manifest["origin"],
  extra: string[],
  upstream?: { public: Record<string, string>; private: Record<string, string> },
): Promise<Manifest> {
  const files: Manifest["files"] = {};
  for (const rel of manifestFiles(preparedDir, extra)) {
    const file = join(preparedDir, rel);
    const st = statSync(file);
    files[rel] = { size: st.size, mtimeMs: st.mtimeMs, md5: await md5File(file) };
  }
  const mismatches: string[] = [];
  if (upstream) {
    for (const side of ["public", "private"] as const) {
      for (const [name, md5] of Object.entries(upstream[side])) {
        const got = files[`${side}/${name}`]?.md5;
        if (got !== md5) mismatches.push(`${side}/${name}`);
      }
    }
  }
  return {
    version: 1,
    competition,
    origin,
    createdAt: new Date().toISOString(),
    files,
    upstreamMismatches: mismatches,
    counts: folderCounts(preparedDir),
  };
}

/** Writes the manifest atomically (temp file + rename). */
export function writeManifest(preparedDir: string, m: Manifest): void {
  const file = join(preparedDir, MANIFEST_NAME);
  writeFileSync(`${file}.tmp-${process.pid}`, JSON.stringify(m, null, 2) + "\n");
  renameSync(`${file}.tmp-${process.pid}`, file);
}

/**
 * Manifests of read-only prepared folders, kept in memory for this process only (nothing may be
 * written there): built by prepareCompetition, read by readManifest like a file.
 */
const inMemory = new Map<string, Manifest>();

export function rememberManifest(preparedDir: string, m: Manifest): void {
  inMemory.set(resolve(preparedDir), m);
}

export function readManifest(preparedDir: string): Manifest | undefined {
  const file = join(preparedDir, MANIFEST_NAME);
  if (!existsSync(file)) return inMemory.get(resolve(preparedDir));
  try {
    const parsed = ManifestSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The warm check: every listed file still has its recorded size and mtime (stat only, no hashing). */
export function manifestStillValid(preparedDir: string, m: Manifest, required: string[]): string | undefined {
  for (const rel of required) if (!(rel in m.files)) return `${rel} not in the manifest`;
  for (const [rel, f] of Object.entries(m.files)) {
    let st;
    try {
      st = statSync(join(preparedDir, rel));
    } catch {
      return `${rel} is missing`;
    }
    if (st.size !== f.size || st.mtimeMs !== f.mtimeMs) return `${rel} changed since it was checked`;
  }
  return undefined;
}
