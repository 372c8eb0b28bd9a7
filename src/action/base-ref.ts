// A checkout of the base commit next to the workspace, for `baseline: run`.
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { UserError } from "../errors.js";

const git = (cwd: string, args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

/**
 * Adds a detached worktree at `sha` (fetching that one commit when the checkout is shallow) and
 * returns the folder that corresponds to `headBaseDir` in it.
 */
export async function checkoutBase(
  sha: string,
  headBaseDir: string,
  log: (line: string) => void,
): Promise<{ baseDir: string; dispose: () => void }> {
  let top: string;
  try {
    top = git(headBaseDir, ["rev-parse", "--show-toplevel"]);
  } catch {
    throw new UserError("baseline: run needs the repository checked out with git (actions/checkout)");
  }
  try {
    git(top, ["cat-file", "-e", `${sha}^{commit}`]);
  } catch {
    log(`fetching the base commit ${sha.slice(0, 7)}`);
    try {
      git(top, ["fetch", "--no-tags", "--depth=1", "origin", sha]);
    } catch (e) {
      throw new UserError(
        `baseline: run could not fetch the base commit ${sha}: ${(e as Error).message.split("\n")[0]}`,
      );
    }
  }
  const dir = join(mkdtempSync(join(process.env.RUNNER_TEMP || tmpdir(), "medalist-base-")), "tree");
  git(top, ["worktree", "add", "--detach", dir, sha]);
  log(`base commit ${sha.slice(0, 7)} checked out in ${dir}`);
  return {
    baseDir: join(dir, relative(top, headBaseDir)),
    dispose: () => {
      try {
        git(top, ["worktree", "remove", "--force", dir]);
      } catch {
        // Left for the runner's cleanup.
      }
    },
  };
}
