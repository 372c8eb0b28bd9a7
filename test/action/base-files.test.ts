// The git side of the judge's files: every level of a path looked up in the base commit's tree,
// a symbolic link at any level refused by name, "missing" only when git has no entry; the
// checkout's side checked with lstat; copies of the base tree bounded and free of escaping links.
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  baseKind,
  checkNoLinks,
  differsFromBase,
  extractFolder,
  extractPaths,
  fetchFile,
  repoRelative,
  repoTop,
} from "../../src/action/base-config.js";
import { baseGraderDir } from "../../src/action/judge.js";
import { UserError } from "../../src/errors.js";
import { FakeGitHub } from "../fixtures/github/server.js";

describe("judge files read from the base commit", () => {
  let repo: string;
  let top: string;
  let sha: string;
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], {
      cwd: repo,
      encoding: "utf8",
    }).trim();
  const write = (path: string, text: string) => {
    mkdirSync(join(repo, path, ".."), { recursive: true });
    writeFileSync(join(repo, path), text);
  };
  const link = (path: string, target: string) => {
    mkdirSync(join(repo, path, ".."), { recursive: true });
    symlinkSync(target, join(repo, path));
  };
  /** The UserError's message of `f`, failing when it throws none or another error. */
  const refusal = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      expect(e).toBeInstanceOf(UserError);
      return (e as Error).message;
    }
    throw new Error("expected a refusal");
  };

  beforeAll(() => {
    repo = mkdtempSync(join(tmpdir(), "medalist-base-files-"));
    git("init", "-q", "-b", "main");
    write("a/b/c/file", "real\n");
    link("la", "a"); // a link at the first level
    link("a/lb", "b"); // at the second
    link("a/b/c/lf", "file"); // the file itself
    write("reg/x/competition.json", "{}\n");
    link("reg/x/out", "../../a"); // leaves reg/
    write("reg2/x/competition.json", "{}\n");
    link("reg2/x/same", "competition.json"); // stays inside reg2/
    link("reg3", "/etc"); // absolute
    write("big/blob", "x".repeat(4096));
    git("add", "-A");
    git("commit", "-q", "-m", "base");
    sha = git("rev-parse", "HEAD");
    top = repoTop(repo)!;
  });
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  it("names what each path is, level by level", () => {
    expect(baseKind(top, sha, "a/b/c/file", "t")).toBe("file");
    expect(baseKind(top, sha, "a/b", "t")).toBe("folder");
    expect(baseKind(top, sha, "", "t")).toBe("folder");
    // Missing only where git has no entry: at the first level, deeper, or below a file.
    expect(baseKind(top, sha, "nope", "t")).toBe("missing");
    expect(baseKind(top, sha, "a/nope/x", "t")).toBe("missing");
    expect(baseKind(top, sha, "a/b/c/file/x", "t")).toBe("missing");
  });

  it("refuses a symbolic link at every level, naming it, never 'missing'", () => {
    const short = sha.slice(0, 7);
    for (const [path, level] of [
      ["la/b/c/file", "la"],
      ["la", "la"],
      ["a/lb/c/file", "a/lb"],
      ["a/b/c/lf", "a/b/c/lf"],
      ["reg3/passwd", "reg3"],
    ]) {
      expect(refusal(() => baseKind(top, sha, path, `config ${path}`))).toBe(
        `config ${path}: ${level} is a symbolic link in the base commit ${short}; on a pull request the judge's files are read from the base commit through real folders only`,
      );
    }
  });

  it("copies a folder of the base commit, refusing links on the way and links out of it", () => {
    const temp = mkdtempSync(join(tmpdir(), "medalist-base-files-x-"));
    try {
      const copy = extractFolder(top, sha, "reg2", temp, "registryDir reg2")!;
      expect(readFileSync(join(copy, "x/same"), "utf8")).toBe("{}\n");
      expect(extractFolder(top, sha, "nope", temp)).toBeNull();
      expect(refusal(() => extractFolder(top, sha, "la/b", temp, "registryDir la/b"))).toContain(
        "registryDir la/b: la is a symbolic link in the base commit",
      );
      expect(refusal(() => extractFolder(top, sha, "a/lb/c", temp, "registryDir x"))).toContain(
        "a/lb is a symbolic link",
      );
      expect(refusal(() => extractFolder(top, sha, "reg3", temp, "registryDir reg3"))).toContain(
        "reg3 is a symbolic link",
      );
      expect(refusal(() => extractFolder(top, sha, "reg", temp, "registryDir reg"))).toBe(
        `registryDir reg: reg/x/out in the base commit ${sha.slice(0, 7)} is a symbolic link out of reg; the judge's files are copied without such links`,
      );
      expect(refusal(() => extractFolder(top, sha, "a/b/c/file", temp, "registryDir f"))).toContain(
        "is a file in the base commit",
      );
      // Bounded: more bytes than allowed is one sentence, and nothing is copied.
      const dir = join(temp, "bounded");
      expect(refusal(() => extractPaths(top, sha, ["big"], dir, "externalGrader", { maxBytes: 1000 }))).toBe(
        `externalGrader: the base commit ${sha.slice(0, 7)} holds 4096 bytes there, more than the 1000 bytes Medalist copies for the judge`,
      );
      expect(existsSync(dir)).toBe(false);
      // The whole tree: links that stay inside the repository are kept; an absolute one is refused.
      expect(refusal(() => extractPaths(top, sha, [""], join(temp, "all"), "externalGrader"))).toContain(
        "reg3 in the base commit",
      );
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  });

  it("refuses a symbolic link at every level of the checkout", () => {
    const work = mkdtempSync(join(tmpdir(), "medalist-base-files-w-"));
    try {
      mkdirSync(join(work, "a/b"), { recursive: true });
      writeFileSync(join(work, "a/b/f"), "x");
      symlinkSync("a", join(work, "l1"));
      symlinkSync("b", join(work, "a/l2"));
      symlinkSync("f", join(work, "a/b/l3"));
      checkNoLinks(work, "a/b/f", "t");
      checkNoLinks(work, "a/b/missing/x", "t");
      for (const [path, level] of [
        ["l1/b/f", "l1"],
        ["a/l2/f", "a/l2"],
        ["a/b/l3", "a/b/l3"],
      ])
        expect(refusal(() => checkNoLinks(work, path, "baseline.path x"))).toBe(
          `baseline.path x: ${level} is a symbolic link in this pull request's checkout; on a pull request the judge's files are read through real folders only`,
        );
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it("takes a path relative to the checkout's top as spelled, through the runner's links above it", () => {
    const outer = mkdtempSync(join(tmpdir(), "medalist-base-files-ws-"));
    try {
      // The workspace spelled through a link (the runner's), the config's folder a link (the PR's).
      symlinkSync(repo, join(outer, "ws"));
      const ws = join(outer, "ws");
      expect(repoRelative(top, join(ws, "la/b/c/file"), [ws])).toBe("la/b/c/file");
      expect(repoRelative(top, join(top, "a/b"), [])).toBe("a/b");
      expect(repoRelative(top, join(outer, "elsewhere"), [ws])).toBeNull();
      expect(repoRelative(top, "/etc/passwd", [ws])).toBeNull();
    } finally {
      rmSync(outer, { recursive: true, force: true });
    }
  });

  it("tells a file changed in the checkout from the base commit's", () => {
    expect(differsFromBase(top, sha, "a/b/c/file")).toBe(false);
    writeFileSync(join(repo, "a/b/c/file"), "changed\n");
    expect(differsFromBase(top, sha, "a/b/c/file")).toBe(true);
    rmSync(join(repo, "a/b/c/file"));
    symlinkSync("../../../big/blob", join(repo, "a/b/c/file"));
    expect(differsFromBase(top, sha, "a/b/c/file")).toBe(true);
    git("checkout", "-q", "--", "a/b/c/file");
    expect(differsFromBase(top, sha, "a/b/c/file")).toBe(false);
  });

  it("through the contents API: 'missing' only when a folder's listing says so", async () => {
    const gh = new FakeGitHub();
    await gh.start();
    const sha = "a".repeat(40);
    const read = (path: string) =>
      fetchFile({ token: "t", apiUrl: gh.url, owner: "acme", repo: "agent", sha, path });
    const refused = async (path: string) => {
      try {
        await read(path);
      } catch (e) {
        expect(e).toBeInstanceOf(UserError);
        return (e as Error).message;
      }
      throw new Error("expected a refusal");
    };
    try {
      gh.files.set(`${sha}:ci/medalist.yml`, "name: x\n");
      gh.files.set(`${sha}:other/file`, "x");
      gh.links.set(`${sha}:linked`, "ci");
      expect(await read("ci/medalist.yml")).toBe("name: x\n");
      expect(await read("nope.yml")).toBeNull();
      expect(await read("ci/nope.yml")).toBeNull();
      expect(await read("other/file/x.yml")).toBeNull();
      expect(await refused("linked/medalist.yml")).toBe(
        `config linked/medalist.yml: linked is a symbolic link at the base commit ${sha.slice(0, 7)}; on a pull request the judge's files are read through real folders only`,
      );
      expect(await refused("linked")).toContain("it is a symbolic link at the base commit");
      // A token that cannot list the repository: never "missing".
      gh.faults.push({ method: "GET", path: /\/contents\/?$/, status: 404, times: 5 });
      expect(await refused("nope.yml")).toContain("cannot tell whether nope.yml at the base commit");
    } finally {
      await gh.stop();
    }
  });

  it("the grader's files: the whole base tree when it fits, else the folders its arguments name", () => {
    const temp = mkdtempSync(join(tmpdir(), "medalist-base-files-g-"));
    const saved = process.cwd();
    const g = mkdtempSync(join(tmpdir(), "medalist-base-files-grader-"));
    const run = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], {
        cwd: g,
        encoding: "utf8",
      }).trim();
    try {
      run("init", "-q", "-b", "main");
      mkdirSync(join(g, "tools"));
      mkdirSync(join(g, "data"));
      writeFileSync(join(g, "tools/grade.sh"), "echo base\n");
      writeFileSync(join(g, "data/big"), "x".repeat(8192));
      run("add", "-A");
      run("commit", "-q", "-m", "base");
      const gsha = run("rev-parse", "HEAD");
      const gtop = repoTop(g)!;
      // The pull request's checkout: its own script.
      writeFileSync(join(g, "tools/grade.sh"), "echo pr\n");
      process.chdir(g);
      const env = { RUNNER_TEMP: temp };
      const git = { top: gtop, sha: gsha };
      const whole = baseGraderDir(["sh", "tools/grade.sh", "{submission}"], gtop, git, env);
      expect(readFileSync(join(whole.dir, "tools/grade.sh"), "utf8")).toBe("echo base\n");
      expect(existsSync(join(whole.dir, "data/big"))).toBe(true);
      expect(whole.changed).toEqual(["tools/grade.sh"]);
      expect(whole.dir.startsWith(temp)).toBe(true);
      // Past the bound: only the script's folder.
      const part = baseGraderDir(["sh", "tools/grade.sh"], gtop, git, env, 4096);
      expect(readFileSync(join(part.dir, "tools/grade.sh"), "utf8")).toBe("echo base\n");
      expect(existsSync(join(part.dir, "data"))).toBe(false);
      // An absolute path into the checkout would run the pull request's file.
      expect(refusal(() => baseGraderDir(["sh", join(g, "tools/grade.sh")], gtop, git, env))).toContain(
        "is in the pull request's checkout; on a pull request the grader runs in a copy of the base commit's files",
      );
      expect(refusal(() => baseGraderDir(["sh", "tools/grade.sh"], gtop, null, env))).toContain(
        "externalGrader: on a pull request the grader runs in a copy of the base commit's files, which needs the repository checked out with git",
      );
    } finally {
      process.chdir(saved);
      rmSync(temp, { recursive: true, force: true });
      rmSync(g, { recursive: true, force: true });
    }
  });
});
