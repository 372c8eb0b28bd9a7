import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { join, posix } from "node:path";
import { UserError } from "../errors.js";
import type { RegistryEntry } from "../registry/registry.js";
import type { Competition } from "../registry/schema.js";
import { downloadCompetition, type KaggleCredentials } from "./kaggle.js";
import { DownloadGate } from "./download-gate.js";
import { acquireLock, LockBusyError } from "./lock.js";
import {
  buildManifest,
  manifestStillValid,
  md5File,
  readManifest,
  rememberManifest,
  writeManifest,
  type Manifest,
} from "./manifest.js";
import { runTableSplit } from "./split.js";
import { runTables } from "./tables.js";
import { CUSTOM_PREPARERS } from "./custom.js";
import { prepareToy } from "./toy.js";
import { extractZip } from "./zip.js";
import { writeDescription } from "./description.js";

export interface PrepareOptions {
  /** MLE-bench's data root: <dataDir>/<id>/prepared/{public,private}. */
  dataDir: string;
  /** Kaggle API base URL (default https://www.kaggle.com/api/v1). */
  kaggleUrl?: string;
  /** Credentials; read from the environment or ~/.kaggle/kaggle.json when a download is needed. */
  credentials?: KaggleCredentials;
  /** Shared by a batch: credentials looked up once, an unreachable host tried once. */
  gate?: DownloadGate;
  /** Base URL of upstream's competition folders, to fetch description.md from (pinned MD5); none: a stub. */
  descriptionUrl?: string;
  /** Accept a Kaggle zip whose MD5 differs from upstream's pin. */
  skipVerification?: boolean;
  /** How long to wait for another process preparing the same competition (ms). */
  lockWaitMs?: number;
  downloadRetries?: number;
  retryDelayMs?: number;
  log?: (line: string) => void;
}

export type PrepareStatus = "ready" | "reused" | "prepared" | "generated";

export interface PrepareResult {
  id: string;
  status: PrepareStatus;
  ms: number;
  /** Prepared files whose MD5 differs from upstream's checksums.yaml. */
  upstreamMismatches: string[];
}

export function preparedDir(dataDir: string, id: string): string {
  return join(dataDir, id, "prepared");
}

/** The files that must exist, relative to prepared/: the sample submission and the answers. */
export function requiredFiles(c: Competition): string[] {
  return [posix.normalize(`public/${c.sampleSubmission}`), posix.normalize(`private/${c.answers}`)];
}

/** The instant check: a manifest whose files still have their recorded sizes and mtimes. */
export function warmCheck(c: Competition, dataDir: string): Manifest | undefined {
  const dir = preparedDir(dataDir, c.id);
  const m = readManifest(dir);
  if (!m || m.competition !== c.id) return undefined;
  return manifestStillValid(dir, m, requiredFiles(c)) === undefined ? m : undefined;
}

/** False when Medalist must not write into `dir`: no write bit for anyone (even for root), or no write access. */
export function writableFolder(dir: string): boolean {
  try {
    if ((statSync(dir).mode & 0o222) === 0) return false;
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Complete data in a folder Medalist may not write to (a read-only `mlebench prepare` output): checked
 * without a lock, its manifest kept in memory only, so it is hashed again by every invocation.
 * undefined: not such a folder (the normal path takes over); an incomplete one is refused here.
 */
async function checkReadOnly(c: Competition, dataDir: string, log: (line: string) => void) {
  const dir = preparedDir(dataDir, c.id);
  const compDir = join(dataDir, c.id);
  if (!existsSync(dir) || (writableFolder(compDir) && writableFolder(dir))) return undefined;
  const missing = requiredFiles(c).filter((f) => !existsSync(join(dir, f)));
  if (missing.length > 0)
    throw new UserError(
      `${c.id}: ${dir} is read-only and incomplete (missing ${missing.join(", ")}); ` +
        "re-run `mlebench prepare` where it can write, then run again",
      1,
    );
  log(`${c.id}: checking read-only data prepared by MLE-bench (nothing is written into ${compDir})`);
  const m = await buildManifest(dir, c.id, "reused", requiredFiles(c), c.prepare?.checksums);
  rememberManifest(dir, m);
  return m;
}

/** Makes one competition's prepared data ready: warm check, reuse, or download + recipe. */
export async function prepareCompetition(entry: RegistryEntry, opts: PrepareOptions): Promise<PrepareResult> {
  const c = entry.competition;
  const t0 = performance.now();
  const log = opts.log ?? (() => {});
  const done = (status: PrepareStatus, m?: Manifest): PrepareResult => ({
    id: c.id,
    status,
    ms: performance.now() - t0,
    upstreamMismatches: m?.upstreamMismatches ?? [],
  });
  // Toy data is checked by its generator (a fingerprint of its parameters), under the lock below.
  const warm = c.source === "toy" ? undefined : warmCheck(c, opts.dataDir);
  if (warm) return done("ready", warm);
  const readOnly = c.source === "toy" ? undefined : await checkReadOnly(c, opts.dataDir, log);
  if (readOnly) return done("reused", readOnly);

  const compDir = join(opts.dataDir, c.id);
  const zip = join(compDir, `${c.id}.zip`);
  const gate = opts.gate ?? new DownloadGate(opts.credentials);
  // Nothing here yet and a download ahead: credentials first, before any folder is made.
  const downloadAhead =
    c.source !== "toy" &&
    !existsSync(preparedDir(opts.dataDir, c.id)) &&
    !!c.prepare?.split &&
    !existsSync(zip);
  const credentials = downloadAhead ? gate.credentials(c.id) : undefined;
  mkdirSync(compDir, { recursive: true });
  let release: () => void;
  try {
    release = await acquireLock(join(compDir, ".medalist-prepare.lock"), {
      waitMs: opts.lockWaitMs ?? 3600_000,
    });
  } catch (e) {
    if (e instanceof LockBusyError)
      throw new UserError(`${c.id}: another process is preparing it (${e.message})`, 1);
    throw e;
  }
  try {
    if (c.source === "toy") {
      const dir = preparedDir(opts.dataDir, c.id);
      const { prepared } = prepareToy(c, opts.dataDir);
      const still = prepared ? undefined : warmCheck(c, opts.dataDir);
      if (still) return done("ready", still);
      const m = await buildManifest(dir, c.id, "toy", requiredFiles(c));
      writeManifest(dir, m);
      return done("generated", m);
    }
    // Another process may have finished while we waited.
    const after = warmCheck(c, opts.dataDir);
    if (after) return done("ready", after);
    // Leftovers of an interrupted preparation (we hold the lock, so nobody is using them).
    for (const name of readdirSync(compDir))
      if (name.startsWith(".staging-")) rmSync(join(compDir, name), { recursive: true, force: true });

    const dir = preparedDir(opts.dataDir, c.id);
    const required = requiredFiles(c);
    const upstream = c.prepare?.checksums;

    if (existsSync(dir)) {
      const missing = required.filter((f) => !existsSync(join(dir, f)));
      if (missing.length > 0) {
        throw new UserError(
          `${c.id}: ${dir} exists but is incomplete (missing ${missing.join(", ")}); ` +
            "remove it, or re-run `mlebench prepare`, then run again",
          1,
        );
      }
      log(`${c.id}: checking data prepared by MLE-bench`);
      const m = await buildManifest(dir, c.id, "reused", required, upstream);
      writeManifest(dir, m);
      return done("reused", m);
    }

    const recipe = c.prepare?.split;
    if (!recipe) {
      throw new UserError(
        `${c.id}: Medalist has no native preparation for it${c.prepare?.note ? ` (${c.prepare.note})` : ""}. ` +
          `Prepare it with MLE-bench (mlebench prepare -c ${c.id} --data-dir ${opts.dataDir}); Medalist then reuses it`,
        1,
      );
    }

    const md5 = opts.skipVerification ? undefined : c.prepare?.zipMd5;
    if (!existsSync(zip)) {
      const creds = credentials ?? gate.credentials(c.id);
      log(`${c.id}: downloading from Kaggle`);
      try {
        await downloadCompetition(c.id, zip, {
          baseUrl: opts.kaggleUrl,
          credentials: creds,
          md5,
          retries: opts.downloadRetries,
          retryDelayMs: opts.retryDelayMs,
          log,
        });
      } catch (e) {
        throw gate.failed(c.id, e);
      }
    } else if (md5 && (await md5File(zip)) !== md5) {
      throw new UserError(
        `${c.id}: ${zip} has an MD5 different from upstream's ${md5}; delete it to download again, ` +
          "or run with --skip-verification to accept it",
        1,
      );
    }

    const staging = join(compDir, `.staging-${process.pid}-${Date.now()}`);
    let description: "upstream" | "stub" | undefined;
    try {
      const raw = join(staging, "raw");
      const out = join(staging, "prepared");
      log(`${c.id}: extracting ${zip}`);
      await extractZip(zip, raw);
      mkdirSync(join(out, "public"), { recursive: true });
      mkdirSync(join(out, "private"), { recursive: true });
      if (recipe.kind === "tables") await runTables(recipe, raw, out);
      else if (recipe.kind === "custom") {
        const run = CUSTOM_PREPARERS[recipe.preparer];
        if (!run) throw new Error(`${c.id}: unknown preparer "${recipe.preparer}"`);
        await run(raw, out);
      } else {
        const sizes = await runTableSplit(recipe, raw, out, log);
        log(`${c.id}: ${sizes.train} train rows, ${sizes.test} test rows`);
      }
      if (!existsSync(join(out, "public", "description.md"))) {
        description = await writeDescription(
          c,
          join(out, "public", "description.md"),
          opts.descriptionUrl,
          log,
        );
      }
      const missing = required.filter((f) => !existsSync(join(out, f)));
      if (missing.length > 0) throw new Error(`${c.id}: the recipe did not produce ${missing.join(", ")}`);
      rmSync(raw, { recursive: true, force: true });
      renameSync(out, dir);
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
    // The manifest is written last: its presence marks the preparation complete.
    const m = { ...(await buildManifest(dir, c.id, "recipe", required, upstream)), description };
    writeManifest(dir, m);
    if (m.upstreamMismatches.length > 0) {
      log(`${c.id}: warning: ${m.upstreamMismatches.join(", ")} differ from upstream's checksums`);
    }
    return done("prepared", m);
  } finally {
    release();
  }
}

export interface PrepareFailure {
  id: string;
  message: string;
  /** 2 for the user's input or set-up (no credentials), 1 otherwise. */
  exitCode: number;
}

export interface PrepareBatch {
  results: PrepareResult[];
  failures: PrepareFailure[];
  /** The cause shared by the competitions not downloaded (no credentials, no network), said once. */
  stopped: { message: string; exitCode: number } | null;
}

/**
 * Prepares several competitions one after another; a failure does not stop the others, but
 * missing credentials or an unreachable Kaggle stop every later download at once (one line each).
 */
export async function prepareCompetitions(
  entries: RegistryEntry[],
  opts: PrepareOptions,
): Promise<PrepareBatch> {
  const results: PrepareResult[] = [];
  const failures: PrepareFailure[] = [];
  const gate = opts.gate ?? new DownloadGate(opts.credentials);
  for (const e of entries) {
    try {
      results.push(await prepareCompetition(e, { ...opts, gate }));
    } catch (err) {
      const exitCode = err instanceof UserError ? err.exitCode : 1;
      failures.push({ id: e.competition.id, message: (err as Error).message, exitCode });
    }
  }
  const cause = gate.stopped;
  return { results, failures, stopped: cause ? { message: cause.message, exitCode: cause.exitCode } : null };
}
