// Paths an agent command names that the bubblewrap sandbox does not show: said before any run,
// in one sentence, instead of every run failing with the interpreter's "cannot find" line.
import { existsSync, realpathSync } from "node:fs";
import path from "node:path";

/** What the sandbox shows of the runner's files besides the agent's folder (see sandbox.ts). */
const SHOWN = [
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc",
  "/proc",
  "/dev",
  "/sys",
];

const inside = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith("/") ? dir : dir + "/");

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** The words of a command that name a file: absolute, or relative with a "/" (also after "--x="). */
function pathWords(command: string | string[]): string[] {
  const words = Array.isArray(command) ? command : command.split(/\s+/);
  return words
    .map((w) => w.replace(/^['"]|['"]$/g, "").replace(/^--?[\w-]+=/, ""))
    .filter((w) => w.includes("/") && !/^[a-z][a-z0-9+.-]*:\/\//i.test(w) && !w.includes("$"));
}

/**
 * The sentence saying that the command names a file on this machine that the sandbox will not
 * show (outside agent.cwd and the system folders), and what to do; null when every such file is shown.
 */
export function hiddenCommandPath(command: string | string[], cwd: string): string | null {
  const realCwd = real(cwd);
  const tools = process.env.RUNNER_TOOL_CACHE;
  for (const word of pathWords(command)) {
    const abs = path.resolve(cwd, word);
    if (!existsSync(abs)) continue;
    const r = real(abs);
    if (inside(r, realCwd) || SHOWN.some((d) => inside(abs, d) || inside(r, d))) continue;
    if (tools && path.isAbsolute(tools) && inside(r, real(tools))) continue;
    return (
      `agent.command names ${word}, which the local sandbox (bubblewrap) does not show: it mounts agent.cwd (${cwd}), ` +
      `the system folders and the run's own folders only; set agent.cwd to a folder that holds ${path.basename(abs)} ` +
      `(e.g. ${path.dirname(abs)}) and name it relative to that, or move it under ${cwd}`
    );
  }
  return null;
}
