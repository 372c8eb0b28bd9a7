import { existsSync, readdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/** Medalist's own data folder, relative to the config file. */
export const MEDALIST_DATA_DIR = ".medalist/data";

export interface DataDirEnv {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  home?: string;
}

/**
 * Where `mlebench prepare` puts data by default: appdirs' user cache folder + mle-bench/data, i.e.
 * $XDG_CACHE_HOME (when absolute) or ~/.cache on Linux, ~/Library/Caches on macOS.
 */
export function mlebenchDataDir(where: DataDirEnv = {}): string {
  const env = where.env ?? process.env;
  const home = where.home ?? homedir();
  const platform = where.platform ?? process.platform;
  const xdg = env.XDG_CACHE_HOME;
  const cache =
    platform === "darwin"
      ? join(home, "Library", "Caches")
      : xdg && isAbsolute(xdg)
        ? xdg
        : join(home, ".cache");
  return join(cache, "mle-bench", "data");
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** True when `dir` holds at least one prepared competition: <dir>/<id>/prepared/{public,private}/. */
export function holdsPreparedData(dir: string): boolean {
  if (!existsSync(dir)) return false;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return false;
  }
  return names.some(
    (id) => isDir(join(dir, id, "prepared", "public")) && isDir(join(dir, id, "prepared", "private")),
  );
}

/** The default `dataDir`: MLE-bench's data folder when it holds prepared competitions, else Medalist's own. */
export function defaultDataDir(where: DataDirEnv = {}): string {
  const upstream = mlebenchDataDir(where);
  return holdsPreparedData(upstream) ? upstream : MEDALIST_DATA_DIR;
}
