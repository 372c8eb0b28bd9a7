/**
 * Starting a local agent inside bubblewrap (`bwrap`, Debian's `bubblewrap`), where it is
 * available: its own PID, IPC, UTS, cgroup and user namespaces with a fresh /proc (the runner's
 * processes and their environments are invisible), a read-only view of the system (/usr, /bin,
 * /lib*, /opt, a few files of /etc), the competition's public folder read-only, the run's
 * submission/logs/code folders writable, HOME and /tmp as small in-memory folders; nothing else
 * of the runner (its home, the private answers, other runs, the Docker socket) is mounted. See
 * docs/security.md for what it does not stop.
 */
import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, readdirSync, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { runPaths, type RunSpec } from "../types.js";

export type SandboxMode = "auto" | "bwrap" | "none";

/** The default size of each in-memory folder (HOME, /tmp, /dev/shm). */
export const DEFAULT_SCRATCH_BYTES = 512 * 1024 ** 2;

/** Runner variables the local executor passes on that a sandboxed agent does not get. */
const RUNNER_ONLY = ["SYSTEMROOT"];

/**
 * Read-only system folders, where they exist (a link such as /bin → usr/bin is kept a link). Not
 * /opt: a self-hosted runner often lives there, with its credentials and work folder.
 */
const SYSTEM = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/** The files of /etc that interpreters, TLS and name lookups need; no private keys, no credentials. */
const ETC = [
  "alternatives",
  "ca-certificates",
  "ca-certificates.conf",
  "gai.conf",
  "group",
  "host.conf",
  "hosts",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "localtime",
  "mime.types",
  "nsswitch.conf",
  "os-release",
  "passwd",
  "pki/ca-trust",
  "pki/tls/certs",
  "protocols",
  "resolv.conf",
  "services",
  "ssl/certs",
  "ssl/openssl.cnf",
  "timezone",
];

export interface Launch {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Which sandbox the agent runs in. */
  kind: "bwrap" | "none";
  /** One line for run.log saying so. */
  note: string;
}

const NAMESPACES = [
  "--unshare-user",
  "--unshare-pid",
  "--unshare-ipc",
  "--unshare-uts",
  "--unshare-cgroup-try",
  "--die-with-parent",
  "--new-session",
];
/** bwrap 0.8+: the agent cannot make user namespaces of its own (less kernel to attack). */
const NO_NESTED_USERNS = ["--disable-userns"];

/** The namespace options this machine's bwrap accepts, or null when it cannot start a sandbox. */
let probed: string[] | null | undefined;
/** Why bwrap cannot start a sandbox here, once probed. */
let probeProblem = "";

function namespaceArgs(): string[] | null {
  if (probed !== undefined) return probed;
  probed = null;
  for (const opts of [[...NAMESPACES, ...NO_NESTED_USERNS], NAMESPACES]) {
    try {
      execFileSync("bwrap", [...opts, "--ro-bind", "/", "/", "--proc", "/proc", "--", "true"], {
        stdio: ["ignore", "ignore", "pipe"],
        timeout: 15_000,
      });
      return (probed = opts);
    } catch (e) {
      const err = e as NodeJS.ErrnoException & { stderr?: Buffer };
      const said = err.stderr?.toString().trim().split("\n")[0];
      probeProblem =
        err.code === "ENOENT" ? "bwrap is not installed (not on PATH)" : said || err.message.split("\n")[0];
    }
  }
  return probed;
}

/** Why bwrap cannot start a sandbox on this machine ("bwrap is not installed …"), or null when it can. */
export function bwrapProblem(): string | null {
  return namespaceArgs() === null ? probeProblem || "bwrap cannot start a sandbox" : null;
}

/** Can bwrap start a sandbox on this machine (installed, and user namespaces allowed)? Cached. */
export function bwrapAvailable(): boolean {
  return namespaceArgs() !== null;
}

/** Why the agent's working folder cannot be mounted in the sandbox, or null. */
export function sandboxProblem(cwd: string): string | null {
  const home = os.homedir();
  if (cwd === "/" || inside(home, cwd))
    return `the agent's working folder ${cwd} holds the runner's home: the sandbox would show all of it; use a folder inside the repository`;
  return null;
}

/** The sandbox a mode means on this machine; null when `bwrap` is asked for and cannot run. */
export function resolveSandbox(mode: SandboxMode): "bwrap" | "none" | null {
  if (mode === "none") return "none";
  if (bwrapAvailable()) return "bwrap";
  return mode === "bwrap" ? null : "none";
}

/** Why the agent runs with no sandbox in this mode ("local.sandbox: none", or auto's fallback and its cause). */
export function noSandboxWhy(mode: SandboxMode): string {
  return mode === "none"
    ? "local.sandbox: none"
    : `local.sandbox is auto and bubblewrap cannot start on this runner: ${bwrapProblem() ?? "unknown"}`;
}

export interface LaunchInput {
  file: string;
  args: string[];
  /** The agent's environment as the executor built it (runner's kept variables included). */
  env: Record<string, string>;
  cwd: string;
  spec: RunSpec;
  mode?: SandboxMode;
  scratchBytes?: number;
}

/**
 * How to start the agent: the command itself (no sandbox) or bwrap around it, with the
 * environment the executor built (PATH, LANG, LC_ALL, TZ, the agent's env and the contract's
 * variables) with HOME and TMPDIR pointing inside the sandbox.
 */
export function sandboxLaunch(input: LaunchInput): Launch {
  const mode = input.mode ?? "auto";
  const kind = resolveSandbox(mode);
  if (kind === null)
    throw new Error("local.sandbox is bwrap, but bwrap cannot start a sandbox on this machine");
  if (kind === "none")
    return {
      ...input,
      kind,
      note: `sandbox: none (${noSandboxWhy(mode)}): the agent runs as the runner's user`,
    };
  // The working folder is mounted by its real path only: a link (or a path through one) is refused
  // before bwrap starts, so what was checked is what is mounted.
  if (realOrNull(input.cwd) !== path.resolve(input.cwd))
    throw new Error(
      `the agent's working folder ${input.cwd} is, or goes through, a symbolic link: not mounted`,
    );
  const problem = sandboxProblem(input.cwd);
  if (problem) throw new Error(problem);
  // HOME is an in-memory folder mounted on an empty folder of the run (made here, so that it can be
  // mounted even where the run folder is seen read-only).
  const home = path.join(input.spec.runDir, "home");
  mkdirSync(home, { recursive: true, mode: 0o700 });
  if (!lstatSync(home).isDirectory()) throw new Error(`${home} is not a folder`);
  // The executor's environment holds the runner's HOME and TMPDIR: they point into the sandbox now.
  const env: Record<string, string> = { ...input.env, HOME: home, TMPDIR: "/tmp" };
  for (const k of RUNNER_ONLY) if (!(k in input.spec.env)) delete env[k];
  const args = [
    ...namespaceArgs()!,
    ...mounts(input, home),
    "--chdir",
    input.cwd,
    "--",
    input.file,
    ...input.args,
  ];
  return {
    file: "bwrap",
    args,
    env,
    cwd: input.cwd,
    kind,
    note: "sandbox: bwrap (own PID and user namespaces, the runner's /proc, home and private data not mounted)",
  };
}

/** The mounts, in order: later ones sit on top of earlier ones. */
function mounts(input: LaunchInput, home: string): string[] {
  const scratch = String(input.scratchBytes ?? DEFAULT_SCRATCH_BYTES);
  const out: string[] = ["--proc", "/proc", "--dev", "/dev", "--size", scratch, "--tmpfs", "/dev/shm"];
  for (const dir of SYSTEM) {
    const st = lstatSync(dir, { throwIfNoEntry: false });
    const target = st?.isSymbolicLink() ? realTarget(dir) : null;
    if (target !== null) out.push("--symlink", target, dir);
    else if (st?.isDirectory()) out.push("--ro-bind", dir, dir);
  }
  for (const name of ETC) out.push("--ro-bind-try", `/etc/${name}`, `/etc/${name}`);
  out.push("--ro-bind-try", "/sys", "/sys");
  for (const dev of gpuDevices()) out.push("--dev-bind", dev, dev);
  out.push("--size", scratch, "--tmpfs", "/tmp");
  // The runner's tool cache (setup-python, setup-node install there), without the run store in it.
  const tools = toolCache();
  if (tools) out.push("--ro-bind", tools, tools);
  if (tools && lstatSync(path.join(tools, "medalist"), { throwIfNoEntry: false }))
    out.push("--tmpfs", path.join(tools, "medalist"));
  // The agent's working folder, read-only, with what must stay hidden inside it covered.
  out.push("--ro-bind", input.cwd, input.cwd);
  // Compared by real path: a link inside the folder to one of them is covered through its target.
  const realCwd = realOrNull(input.cwd) ?? input.cwd;
  for (const hidden of hiddenPaths(input.spec, input.cwd)) {
    const real = realOrNull(hidden);
    if (real === null || real === realCwd || !inside(real, realCwd)) continue;
    const at = path.join(input.cwd, path.relative(realCwd, real));
    // A folder is covered by an empty one; a file (a worktree's .git) by an empty file.
    if (lstatSync(real).isDirectory()) out.push("--tmpfs", at);
    else out.push("--ro-bind", "/dev/null", at);
  }
  const p = runPaths(input.spec.runDir);
  out.push("--ro-bind", input.spec.publicDir, input.spec.publicDir);
  for (const dir of [p.submissionDir, p.logsDir, p.codeDir]) out.push("--bind", dir, dir);
  out.push("--ro-bind-try", p.instructionsFile, p.instructionsFile);
  out.push("--size", scratch, "--tmpfs", home);
  return out;
}

function realOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

/** The target of a system link such as /bin → usr/bin, relative; null when it leads nowhere. */
function realTarget(link: string): string | null {
  try {
    return path.relative(path.dirname(link), realpathSync(link)) || ".";
  } catch {
    return null;
  }
}

const inside = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith("/") ? dir : dir + "/");

/**
 * Folders covered when they lie inside the agent's working folder: the data folder (the private
 * answers sit beside the public files), the results folder (other runs), the checkout's .git.
 */
function hiddenPaths(spec: RunSpec, cwd: string): string[] {
  const pub = spec.publicDir;
  const prepared = path.dirname(pub);
  const dataRoot =
    path.basename(pub) === "public" && path.basename(prepared) === "prepared"
      ? path.dirname(path.dirname(prepared))
      : prepared;
  const runs = path.dirname(spec.runDir);
  const results = path.basename(runs) === "runs" ? path.dirname(runs) : runs;
  const privateDir = path.join(prepared, "private");
  return [dataRoot, privateDir, results, path.join(cwd, ".git")].filter((h) => h !== cwd);
}

/** $RUNNER_TOOL_CACHE when it is a real folder outside the runner's home, else null. */
function toolCache(): string | null {
  const dir = process.env.RUNNER_TOOL_CACHE;
  if (!dir || !path.isAbsolute(dir) || !lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) return null;
  const home = os.homedir();
  return dir === "/" || inside(home, dir) || inside(dir, home) ? null : dir;
}

/** NVIDIA device nodes, so that an agent that used a GPU before still can. */
function gpuDevices(): string[] {
  try {
    return readdirSync("/dev")
      .filter((n) => /^nvidia/.test(n))
      .map((n) => `/dev/${n}`);
  } catch {
    return [];
  }
}
