// Which run records the action may reuse. On a pull request the checkout is the PR's: a record found
// there (committed, or left by an earlier job) is never reused, whatever its seal says, and the
// report's first lines name what was ignored. Elsewhere a record counts only when sealed (suite/seal.ts).
import { existsSync, lstatSync, readdirSync, realpathSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { isInside } from "../config/trust.js";
import { UserError } from "../errors.js";
import type { EventInfo } from "./event.js";

export interface RecordTrust {
  /** Why records in the results folder are never reused; null: reused when sealed by this runner. */
  untrusted: string | null;
  /** The run store to use: null when there is none or it lies in the pull request's checkout. */
  storeDir: string | null;
  /** Run records found in the checkout before this job wrote any (paths as shown). */
  ignored: string[];
  /** The report's first line about them; null when none were found. */
  notice: string | null;
  /** Log lines (a run store that is not used). */
  notes: string[];
}

/** Most records listed: enough to count any suite, bounded against a flood of folders. */
const MAX_LISTED = 100_000;

/** `p` with its links resolved, also when its last parts do not exist yet. */
export function realPath(p: string): string {
  const abs = resolve(p);
  let head = abs;
  const rest: string[] = [];
  while (!existsSync(head)) {
    const up = dirname(head);
    if (up === head) return abs;
    rest.unshift(basename(head));
    head = up;
  }
  try {
    return join(realpathSync(head), ...rest);
  } catch {
    return abs;
  }
}

/** Folders of `dir` (never through a link), bounded. */
function subfolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort()
      .slice(0, MAX_LISTED);
  } catch {
    return [];
  }
}

/** run.json files of run folders: results/<side>/runs/<run>/run.json, store/<entry>/run.json; no link followed. */
export function runRecordsIn(dir: string, layout: "results" | "store"): string[] {
  const out: string[] = [];
  const runFolders =
    layout === "store"
      ? [dir]
      : subfolders(dir)
          .filter((side) => subfolders(join(dir, side)).includes("runs"))
          .map((side) => join(dir, side, "runs"));
  for (const runs of runFolders) {
    for (const run of subfolders(runs)) {
      if (out.length >= MAX_LISTED) return out;
      const file = join(runs, run, "run.json");
      if (lstatSync(file, { throwIfNoEntry: false })?.isFile()) out.push(file);
    }
  }
  return out;
}

/**
 * On a pull request, a results folder named inside the checkout that leads out of it goes through a
 * link the pull request committed: refused before anything is written there.
 */
export function refuseLinkedResultsDir(
  resultsDir: string,
  event: Pick<EventInfo, "pr">,
  env: NodeJS.ProcessEnv,
): void {
  if (!event.pr) return;
  const named = resolve(resultsDir);
  const real = realPath(named);
  const lexical = resolve(env.GITHUB_WORKSPACE || process.cwd());
  if (isInside(lexical, named) && !isInside(realPath(lexical), real))
    throw new UserError(
      `results-dir ${resultsDir} lies in the checkout but leads out of it through a link (to ${real}); on a pull request the checkout's links are the pull request's: name a folder outside the checkout`,
    );
}

/**
 * What may be reused this job: on a pull request, nothing from a results folder or run store that
 * resolves (links followed) inside the checkout; the records found there are listed for the report.
 */
export function recordTrust(opts: {
  resultsDir: string;
  storeDir: string | null;
  event: Pick<EventInfo, "pr">;
  env: NodeJS.ProcessEnv;
}): RecordTrust {
  const { event, env } = opts;
  const none: RecordTrust = {
    untrusted: null,
    storeDir: opts.storeDir,
    ignored: [],
    notice: null,
    notes: [],
  };
  if (!event.pr) return none;
  const workspace = realPath(env.GITHUB_WORKSPACE || process.cwd());
  const shown = (p: string) => {
    const rel = relative(workspace, realPath(p));
    return rel === "" ? "." : rel;
  };
  const results = realPath(opts.resultsDir);
  const ignored: string[] = [];
  let untrusted: string | null = null;
  if (isInside(workspace, results)) {
    untrusted = `it lies in the pull request's checkout (${shown(results)})`;
    ignored.push(...runRecordsIn(results, "results").map(shown));
  }
  let storeDir = opts.storeDir;
  const notes: string[] = [];
  if (storeDir && isInside(workspace, realPath(storeDir))) {
    ignored.push(...runRecordsIn(realPath(storeDir), "store").map(shown));
    notes.push(
      `the run store ${storeDir} lies in the pull request's checkout: it is not used on this pull request (input runs-dir)`,
    );
    storeDir = null;
  }
  const n = ignored.length;
  const notice =
    n === 0
      ? null
      : `> ⚠️ **${n} run record${n === 1 ? "" : "s"} found in the checkout ${n === 1 ? "was" : "were"} ignored** (${ignored[0]}${n > 1 ? ", …" : ""}): on a pull request Medalist reuses only runs this runner wrote and sealed, never files in the checkout.`;
  return { untrusted, storeDir, ignored, notice, notes };
}
