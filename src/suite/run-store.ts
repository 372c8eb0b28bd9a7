import { cpSync, existsSync, lstatSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";

/**
 * A folder of finished runs outside the checkout, keyed by run id and identity, so that a re-run
 * job on the same (self-hosted) runner finds them after `actions/checkout` cleaned the workspace.
 * The key is the identity: an entry stands only for a run with exactly the same inputs.
 */
export const storeKey = (runId: string, identity: string) => `${runId}-${identity}`;

/** Copies only folders, regular files and links (as links, never followed): nothing special. */
function copyTree(from: string, to: string): void {
  cpSync(from, to, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (src) => {
      const st = lstatSync(src);
      return st.isDirectory() || st.isFile() || st.isSymbolicLink();
    },
  });
}

/** Copies a stored run into runDir; false when the store has none for this identity. */
export function fetchRun(storeDir: string, runId: string, identity: string, runDir: string): boolean {
  const entry = join(storeDir, storeKey(runId, identity));
  if (!existsSync(join(entry, "run.json"))) return false;
  rmSync(runDir, { recursive: true, force: true });
  copyTree(entry, runDir);
  return true;
}

/** Saves a finished run's folder under its identity (replacing an older copy). */
export function putRun(storeDir: string, runId: string, identity: string, runDir: string): void {
  mkdirSync(storeDir, { recursive: true });
  const entry = join(storeDir, storeKey(runId, identity));
  const tmp = `${entry}.tmp-${process.pid}-${Date.now().toString(36)}`;
  copyTree(runDir, tmp);
  rmSync(entry, { recursive: true, force: true });
  renameSync(tmp, entry);
}
