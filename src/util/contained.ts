/**
 * Paths a pull request supplies (build context, Dockerfile, MLE-bench agent folder, agent.cwd) are
 * resolved, not spelled: a symbolic link is the PR's choice of *which* bytes, so a path inside the
 * repository is walked from the repository's real top folder down, one lstat per component, and a
 * link at any level is refused with one sentence naming it. A folder that is then used as a whole
 * (a Docker build context) is used from a private copy made without following links, so nothing
 * can be swapped between the check and the use.
 *
 * Links inside a staged folder: kept (as links) only when relative and leading to a file or folder
 * inside the folder, checked on the copy (by the kernel, which nobody else can change); any other
 * link (absolute, leading out, or leading nowhere) is refused. Docker sends
 * the context as a tar archive, so the daemon never follows a link out of it in any case.
 */
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeSync,
  type Stats,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { UserError } from "../errors.js";

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** Whether `p` is `dir` or inside it (both absolute and normalised). */
export function within(dir: string, p: string): boolean {
  const rel = path.relative(dir, p);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/**
 * The repository a config folder belongs to: the nearest folder at or above `baseDir` that holds a
 * `.git` entry, else `baseDir` itself. Lexical (as spelled): the caller resolves below it.
 */
export function repositoryTop(baseDir: string): string {
  const start = path.resolve(baseDir);
  for (let d = start; ; d = path.dirname(d)) {
    if (lstatSync(path.join(d, ".git"), { throwIfNoEntry: false })) return d;
    if (path.dirname(d) === d) return start;
  }
}

/** The real path of `p`, or of its longest existing ancestor with the rest appended. */
export function realOrSpelled(p: string): string {
  const abs = path.resolve(p);
  const rest: string[] = [];
  for (let d = abs; ; d = path.dirname(d)) {
    try {
      return path.join(realpathSync(d), ...rest.reverse());
    } catch {
      if (path.dirname(d) === d) return abs;
      rest.push(path.basename(d));
    }
  }
}

export interface ResolveOptions {
  /** The setting that named the path (agent.build.context, …): each sentence starts with it. */
  field: string;
  /** The repository's top folder (see repositoryTop); links below it are refused. */
  top: string;
  /**
   * A path outside `top`: "refuse" (a pull request's paths) or "accept" (a trusted config's own
   * folder elsewhere on the runner, taken by its real path).
   */
  outside: "refuse" | "accept";
  /** What the path must be: a folder or a file (default: either). */
  kind?: "folder" | "file";
  /** A path that does not exist (yet) is returned as spelled below its last real folder (default: refused). */
  mayBeMissing?: boolean;
}

/**
 * The real path of `abs` (absolute, as spelled). Inside the repository every component from the
 * top down is checked with lstat: a link at any level is refused, naming the path and the link.
 * A UserError when it does not exist, is not the kind asked for, or lies outside (see `outside`).
 */
export function resolveContained(abs: string, opts: ResolveOptions): string {
  const spelled = path.resolve(abs);
  const top = path.resolve(opts.top);
  let real: string;
  if (!within(top, spelled)) {
    if (opts.outside === "refuse")
      throw new UserError(
        `${opts.field}: ${spelled} is outside the repository (${top}); the agent is built and run from the repository only`,
      );
    real = opts.mayBeMissing ? realOrSpelled(spelled) : realOrThrow(spelled, opts.field);
  } else {
    let cur: string;
    try {
      cur = realpathSync(top);
    } catch {
      throw new UserError(`${opts.field}: the repository folder ${top} does not exist`);
    }
    let shown = top;
    for (const part of path
      .relative(top, spelled)
      .split(path.sep)
      .filter((p) => p !== "")) {
      cur = path.join(cur, part);
      shown = path.join(shown, part);
      const st = lstatSync(cur, { throwIfNoEntry: false });
      if (!st) {
        if (opts.mayBeMissing) return path.join(cur, path.relative(shown, spelled));
        throw new UserError(`${opts.field}: ${spelled} does not exist`);
      }
      if (st.isSymbolicLink())
        throw new UserError(
          `${opts.field}: ${spelled} goes through the symbolic link ${shown} (-> ${linkText(cur)}); ` +
            "Medalist does not follow links in the paths a pull request supplies: commit the folder itself",
        );
    }
    real = cur;
  }
  const st = lstatSync(real, { throwIfNoEntry: false });
  if (!st && opts.mayBeMissing) return real;
  if (!st) throw new UserError(`${opts.field}: ${spelled} does not exist`);
  if (opts.kind === "folder" && !st.isDirectory())
    throw new UserError(`${opts.field}: ${spelled} is not a folder`);
  if (opts.kind === "file" && !st.isFile())
    throw new UserError(`${opts.field}: ${spelled} is not a regular file`);
  return real;
}

/** Whether an open descriptor is the file at `p` (Linux /proc; true where that cannot be told). */
function openedAt(fd: number, p: string): boolean {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`) === p;
  } catch {
    return true;
  }
}

function realOrThrow(p: string, field: string): string {
  try {
    return realpathSync(p);
  } catch {
    throw new UserError(`${field}: ${p} does not exist`);
  }
}

function linkText(p: string): string {
  try {
    return readlinkSync(p);
  } catch {
    return "?";
  }
}

export interface StageOptions {
  /** The setting that named the folder: each sentence starts with it. */
  field: string;
  /** Real folders left out of the copy wherever they sit (data, results, run store). */
  exclude?: string[];
  /** Most entries copied (default 200,000). */
  maxEntries?: number;
  /** Most bytes copied (default 16 GiB). */
  maxBytes?: number;
  /** Where the private copy is made (default $RUNNER_TEMP, else the system's temp folder). */
  tempRoot?: string;
}

export interface Staged {
  /** The private copy (mode 0700, runner-owned). */
  dir: string;
  entries: number;
  bytes: number;
  /** Removes the copy. */
  dispose(): void;
}

/** Entries never copied into a staged folder, wherever they sit: git's folders (credentials). */
const NEVER = new Set([".git"]);

/**
 * A private copy of the real folder `src` (see resolveContained), made without following any link:
 * regular files by their bytes (opened with O_NOFOLLOW, checked on the descriptor), folders
 * recreated, `.git` and the `exclude` folders left out, special files (FIFOs, sockets, devices)
 * left out, setuid/setgid bits dropped. Links are kept only when they lead inside the folder (see
 * the file's comment); any other link is refused with one sentence naming it.
 */
export function stageFolder(src: string, opts: StageOptions): Staged {
  if (realOrSpelled(src) !== path.resolve(src))
    throw new UserError(`${opts.field}: ${src} is reached through a symbolic link; resolve it first`);
  const maxEntries = opts.maxEntries ?? 200_000;
  const maxBytes = opts.maxBytes ?? 16 * 1024 ** 3;
  const exclude = new Set((opts.exclude ?? []).map((p) => path.resolve(p)));
  const root = mkdtempSync(
    path.join(opts.tempRoot ?? (process.env.RUNNER_TEMP || os.tmpdir()), "medalist-stage-"),
  );
  chmodSync(root, 0o700);
  const dir = path.join(root, "context");
  const dispose = () => rmSync(root, { recursive: true, force: true });
  let entries = 0;
  let bytes = 0;
  const links: { rel: string; target: string }[] = [];
  const over = (what: string): never => {
    throw new UserError(
      `${opts.field}: ${src} holds more than ${what}; point it at the folder with the agent's code only`,
    );
  };
  const copyFile = (from: string, to: string, shown: string) => {
    let fd: number;
    try {
      fd = openSync(from, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
    } catch (e) {
      throw new UserError(`${opts.field}: cannot read ${shown} (${(e as NodeJS.ErrnoException).code})`);
    }
    let out = -1;
    try {
      const st = fstatSync(fd);
      // The file itself, where it was expected: no folder on the way swapped for a link meanwhile.
      if (!st.isFile() || !openedAt(fd, from))
        throw new UserError(`${opts.field}: ${shown} changed while it was copied`);
      out = openSync(to, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
      const buf = Buffer.allocUnsafe(1024 * 1024);
      for (;;) {
        const n = readSync(fd, buf, 0, buf.length, null);
        if (n === 0) break;
        bytes += n;
        if (bytes > maxBytes) over(`${maxBytes} bytes`);
        let off = 0;
        while (off < n) off += writeSync(out, buf, off, n - off);
      }
      chmodSync(to, st.mode & 0o777);
    } finally {
      closeSync(fd);
      if (out >= 0) closeSync(out);
    }
  };
  const walk = (from: string, to: string, rel: string) => {
    let names: string[];
    try {
      // `from` is a real path: a folder on the way swapped for a link would change it.
      if (realpathSync(from) !== from)
        throw new UserError(`${opts.field}: ${from} changed while it was copied`);
      names = readdirSync(from).sort();
      if (realpathSync(from) !== from)
        throw new UserError(`${opts.field}: ${from} changed while it was copied`);
    } catch (e) {
      if (e instanceof UserError) throw e;
      throw new UserError(
        `${opts.field}: cannot read ${path.join(src, rel)} (${(e as NodeJS.ErrnoException).code})`,
      );
    }
    for (const name of names) {
      if (++entries > maxEntries) over(`${maxEntries} files and folders`);
      const f = path.join(from, name);
      const t = path.join(to, name);
      const r = rel ? `${rel}/${name}` : name;
      if (NEVER.has(name) || exclude.has(f)) continue;
      const st: Stats | undefined = lstatSync(f, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) {
        mkdirSync(t, { mode: 0o700 });
        walk(f, t, r);
        chmodSync(t, (st.mode & 0o777) | 0o700);
      } else if (st.isFile()) copyFile(f, t, path.join(src, r));
      else if (st.isSymbolicLink()) {
        const target = readlinkSync(f);
        const lands = path.resolve(path.dirname(path.join(dir, r)), target);
        if (path.isAbsolute(target) || !within(dir, lands))
          throw new UserError(
            `${opts.field}: ${path.join(src, r)} is a symbolic link to ${target}, outside ${src}; ` +
              "a link in the agent's folder may only lead to a file inside it",
          );
        symlinkSync(target, t);
        links.push({ rel: r, target });
      }
      // FIFOs, sockets and device nodes are never copied.
    }
  };
  try {
    mkdirSync(dir, { mode: 0o700 });
    walk(src, dir, "");
    // Checked again on the finished copy, by the kernel: a chain of links (`a -> b/..` with `b` a
    // link) must still end inside it.
    const realDir = realpathSync(dir);
    for (const l of links) {
      let real: string | null = null;
      try {
        real = realpathSync(path.join(dir, l.rel));
      } catch {
        // Leads nowhere in the copy (into a left-out folder, or out of it): refused as well.
      }
      if (real === null || !within(realDir, real))
        throw new UserError(
          `${opts.field}: ${path.join(src, l.rel)} is a symbolic link to ${l.target}, which leads ${real === null ? "to nothing" : "outside"} in the copy of ${src}; ` +
            "a link in the agent's folder may only lead to a file inside it",
        );
    }
  } catch (e) {
    dispose();
    throw e;
  }
  return { dir, entries, bytes, dispose };
}

/** agent.cwd's real folder (default: the config's folder); a UserError naming a link on the way. */
export function agentCwd(cwd: string | undefined, baseDir: string): string {
  return resolveContained(path.resolve(baseDir, cwd ?? "."), {
    field: "agent.cwd",
    top: repositoryTop(baseDir),
    outside: "accept",
    kind: "folder",
  });
}
