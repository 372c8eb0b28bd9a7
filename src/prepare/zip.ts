import { createWriteStream, mkdirSync, readdirSync } from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import { pipeline } from "node:stream/promises";
import yauzl from "yauzl";
import yazl from "yazl";

/**
 * Extracts a zip into `dest` keeping entry paths, non-recursively (inner archives stay archives),
 * like Python's zipfile.extractall. Entries that would land outside `dest` are refused.
 */
export async function extractZip(zipFile: string, dest: string): Promise<number> {
  const root = resolve(dest);
  mkdirSync(root, { recursive: true });
  const zip = await yauzl.openPromise(zipFile, {
    lazyEntries: true,
    autoClose: false,
    strictFileNames: false,
  });
  let count = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      const name = entry.fileName.replace(/\\/g, "/");
      const target = resolve(root, name);
      if (target !== root && !target.startsWith(root + sep))
        throw new Error(`${zipFile}: entry "${name}" escapes the folder`);
      if (name.endsWith("/")) {
        mkdirSync(target, { recursive: true });
        continue;
      }
      mkdirSync(dirname(target), { recursive: true });
      await pipeline(await zip.openReadStreamPromise(entry), createWriteStream(target));
      count++;
    }
  } finally {
    zip.close();
  }
  return count;
}

/** Zips files under their bare names (DEFLATE, or stored when `compress` is false). */
export async function zipFiles(files: string[], zipFile: string, compress = true): Promise<void> {
  const z = new yazl.ZipFile();
  for (const f of files) z.addFile(f, basename(f), { compress });
  const done = pipeline(z.outputStream, createWriteStream(zipFile));
  z.end();
  await done;
}

/** Zips the files of a folder (sorted, DEFLATE) under their bare names, like upstream's compress(). */
export function zipFolder(dir: string, zipFile: string): Promise<void> {
  const files = readdirSync(dir).sort();
  return zipFiles(
    files.map((name) => join(dir, name)),
    zipFile,
  );
}
