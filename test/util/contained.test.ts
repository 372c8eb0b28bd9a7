// The path resolver for paths a pull request supplies (src/util/contained.ts): a link at any level
// below the repository's top is refused with one sentence naming it; a folder used as a whole is
// used from a private copy made without following links, so a link swapped in later changes nothing.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { validateConfig } from "../../src/config/load.js";
import { checkBuildContext, stageBuildContext } from "../../src/execute/build-context.js";
import { UserError } from "../../src/errors.js";
import { agentCwd, repositoryTop, resolveContained, stageFolder } from "../../src/util/contained.js";

/** A repository: .git, an agent folder with a Dockerfile, a data folder with the answers. */
function repo(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "medalist-contained-"));
  mkdirSync(path.join(dir, ".git"));
  mkdirSync(path.join(dir, "agent", "lib"), { recursive: true });
  writeFileSync(path.join(dir, "agent", "Dockerfile"), "FROM scratch\n");
  writeFileSync(path.join(dir, "agent", "lib", "main.py"), "print('hi')\n");
  mkdirSync(path.join(dir, ".medalist", "data", "toy", "prepared", "private"), { recursive: true });
  writeFileSync(path.join(dir, ".medalist", "data", "toy", "prepared", "private", "answers.csv"), "SECRET\n");
  return dir;
}

function failure(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    return (e as Error).message;
  }
  throw new Error("expected a UserError");
}

const opts = (top: string) => ({ field: "agent.build.context", top, outside: "refuse" as const });

/** Every file under `dir` (relative), no link followed. */
function files(dir: string, rel = ""): string[] {
  return readdirSync(path.join(dir, rel)).flatMap((n) => {
    const r = rel ? `${rel}/${n}` : n;
    return lstatSync(path.join(dir, r)).isDirectory() ? [`${r}/`, ...files(dir, r)] : [r];
  });
}

describe("resolveContained", () => {
  it("returns the real path of a folder reached without links", () => {
    const r = repo();
    expect(resolveContained(path.join(r, "agent"), opts(r))).toBe(path.join(realpathSync(r), "agent"));
    // `..` that stays inside is only spelling.
    expect(resolveContained(path.join(r, "agent/lib/../../agent"), opts(r))).toBe(
      path.join(realpathSync(r), "agent"),
    );
  });

  it("refuses a link as the leaf, whether it points inside or outside the repository", () => {
    const r = repo();
    symlinkSync("../.medalist", path.join(r, "agent", "up"));
    symlinkSync("lib", path.join(r, "agent", "alias"));
    expect(failure(() => resolveContained(path.join(r, "agent/up"), opts(r)))).toBe(
      `agent.build.context: ${r}/agent/up goes through the symbolic link ${r}/agent/up (-> ../.medalist); ` +
        "Medalist does not follow links in the paths a pull request supplies: commit the folder itself",
    );
    expect(failure(() => resolveContained(path.join(r, "agent/alias"), opts(r)))).toMatch(
      /goes through the symbolic link \S+\/agent\/alias \(-> lib\)/,
    );
  });

  it("refuses a link in a middle folder and as the first folder below the top", () => {
    const r = repo();
    mkdirSync(path.join(r, "a", "b"), { recursive: true });
    symlinkSync("../..", path.join(r, "a", "b", "mid"));
    mkdirSync(path.join(r, "agent", "deep"));
    expect(failure(() => resolveContained(path.join(r, "a/b/mid/agent/deep"), opts(r)))).toMatch(
      new RegExp(`goes through the symbolic link ${r}/a/b/mid \\(-> \\.\\./\\.\\.\\)`),
    );
    symlinkSync(".medalist", path.join(r, "up"));
    expect(failure(() => resolveContained(path.join(r, "up/data"), opts(r)))).toMatch(
      new RegExp(`: ${r}/up/data goes through the symbolic link ${r}/up \\(-> \\.medalist\\)`),
    );
    // The leaf a file behind a linked folder: the same.
    expect(
      failure(() => resolveContained(path.join(r, "up/data/toy"), { ...opts(r), kind: "folder" })),
    ).toMatch(/symbolic link \S+\/up /);
  });

  it("takes the repository's top by its real path: a link above the top is the runner's, not the PR's", () => {
    const r = repo();
    const outer = mkdtempSync(path.join(os.tmpdir(), "medalist-contained-outer-"));
    symlinkSync(r, path.join(outer, "checkout"));
    const top = repositoryTop(path.join(outer, "checkout", "agent"));
    expect(top).toBe(path.join(outer, "checkout"));
    expect(resolveContained(path.join(outer, "checkout", "agent"), opts(top))).toBe(
      path.join(realpathSync(r), "agent"),
    );
  });

  it("refuses `..` games that leave the repository, and a missing path", () => {
    const r = repo();
    expect(failure(() => resolveContained(path.join(r, "agent/../../etc"), opts(r)))).toMatch(
      /is outside the repository/,
    );
    expect(failure(() => resolveContained(path.join(r, "agent/nope"), opts(r)))).toMatch(
      /nope does not exist$/,
    );
    expect(
      failure(() => resolveContained(path.join(r, "agent/Dockerfile"), { ...opts(r), kind: "folder" })),
    ).toMatch(/is not a folder$/);
  });

  it("agent.cwd: a link to / is refused; the real folder is returned otherwise", () => {
    const r = repo();
    symlinkSync("/", path.join(r, "rootlink"));
    expect(failure(() => agentCwd("rootlink", r))).toBe(
      `agent.cwd: ${r}/rootlink goes through the symbolic link ${r}/rootlink (-> /); ` +
        "Medalist does not follow links in the paths a pull request supplies: commit the folder itself",
    );
    expect(agentCwd("agent", r)).toBe(path.join(realpathSync(r), "agent"));
  });
});

describe("stageFolder", () => {
  it("copies without following links, leaves out .git, the excluded folders and special files, mode 0700", () => {
    const r = repo();
    const agent = path.join(r, "agent");
    mkdirSync(path.join(agent, ".git"));
    writeFileSync(path.join(agent, ".git", "config"), "token\n");
    mkdirSync(path.join(agent, "results"));
    writeFileSync(path.join(agent, "results", "run.json"), "{}\n");
    execFileSync("mkfifo", [path.join(agent, "pipe")]);
    writeFileSync(path.join(agent, "run.sh"), "#!/bin/sh\n", { mode: 0o4755 });
    symlinkSync("lib/main.py", path.join(agent, "main.py"));
    const s = stageFolder(realpathSync(agent), {
      field: "agent.build.context",
      exclude: [path.join(realpathSync(agent), "results")],
    });
    try {
      expect(files(s.dir).sort()).toEqual(["Dockerfile", "lib/", "lib/main.py", "main.py", "run.sh"]);
      expect(lstatSync(path.join(s.dir, "main.py")).isSymbolicLink()).toBe(true);
      expect(readFileSync(path.join(s.dir, "main.py"), "utf8")).toBe("print('hi')\n");
      expect(statSync(path.join(s.dir, "run.sh")).mode & 0o7777).toBe(0o755);
      expect(statSync(path.dirname(s.dir)).mode & 0o777).toBe(0o700);
    } finally {
      s.dispose();
    }
    expect(existsSync(s.dir)).toBe(false);
  });

  it("refuses a link that leads outside the folder: absolute, `..`, or through another link", () => {
    for (const [name, target, extra] of [
      ["abs", "/etc/passwd", null],
      ["up", "../.medalist/data/toy/prepared/private/answers.csv", null],
      // lexically inside (deep/l/../.. is the folder), but deep/l is a link one level up: outside.
      ["chain", "deep/l/../../x", "deep"],
    ] as const) {
      const r = repo();
      const agent = path.join(r, "agent");
      if (extra) {
        mkdirSync(path.join(agent, extra));
        symlinkSync("../lib", path.join(agent, extra, "l"));
        mkdirSync(path.join(r, "x"));
      }
      symlinkSync(target, path.join(agent, name));
      const msg = failure(() => stageFolder(realpathSync(agent), { field: "agent.build.context" }));
      expect(msg).toMatch(new RegExp(`^agent\\.build\\.context: \\S+/agent/${name} is a symbolic link to `));
      expect(msg).toMatch(/a link in the agent's folder may only lead to a file inside it$/);
    }
  });

  it("a folder swapped for a link after it was staged: the copy is what is used", () => {
    const r = repo();
    const agent = path.join(r, "agent");
    const s = stageFolder(resolveContained(agent, opts(r)), { field: "agent.build.context" });
    // The attacker's move after the check: the agent folder becomes a link to the data folder.
    renameSync(agent, path.join(r, "agent-old"));
    symlinkSync(".medalist/data", agent);
    expect(readFileSync(path.join(agent, "toy/prepared/private/answers.csv"), "utf8")).toBe("SECRET\n");
    try {
      expect(files(s.dir).sort()).toEqual(["Dockerfile", "lib/", "lib/main.py"]);
      expect(JSON.stringify(files(s.dir))).not.toContain("answers");
    } finally {
      s.dispose();
    }
  });

  it("stops at its bounds with one sentence", () => {
    const r = repo();
    writeFileSync(path.join(r, "agent", "big"), Buffer.alloc(4096));
    expect(failure(() => stageFolder(path.join(r, "agent"), { field: "f", maxBytes: 1000 }))).toBe(
      `f: ${path.join(r, "agent")} holds more than 1000 bytes; point it at the folder with the agent's code only`,
    );
    expect(failure(() => stageFolder(path.join(r, "agent"), { field: "f", maxEntries: 2 }))).toMatch(
      /holds more than 2 files and folders;/,
    );
  });
});

describe("the build context on real paths", () => {
  const agentWith = (context: string) =>
    validateConfig({ competitions: { split: "toy" }, executor: "docker", agent: { build: { context } } }, "t")
      .agent;

  it("refuses a context whose real folder holds the data, however the data folder is spelled", () => {
    const r = repo();
    // The data folder spelled through a link outside the repository: its real place is inside the context.
    mkdirSync(path.join(r, "agent", "data"));
    const outer = mkdtempSync(path.join(os.tmpdir(), "medalist-contained-data-"));
    symlinkSync(path.join(r, "agent", "data"), path.join(outer, "data"));
    expect(
      failure(() =>
        checkBuildContext({
          agent: agentWith("agent"),
          baseDir: r,
          dataDir: path.join(outer, "data"),
          outDir: "/elsewhere/results/head",
        }),
      ),
    ).toMatch(
      /^agent\.build\.context \S+\/agent contains the data folder \(dataDir, with the private answers\) /,
    );
  });

  it("refuses the committed `up -> ..` link that passed the lexical checks", () => {
    const r = repo();
    symlinkSync("../.medalist", path.join(r, "agent", "up"));
    const input = {
      agent: agentWith("agent/up"),
      baseDir: r,
      dataDir: path.join(r, ".medalist", "data"),
      outDir: path.join(r, ".medalist", "results", "head"),
    };
    expect(failure(() => stageBuildContext(input))).toMatch(
      /^agent\.build\.context: \S+\/agent\/up goes through the symbolic link \S+\/agent\/up \(-> \.\.\/\.medalist\)/,
    );
  });

  it("refuses a Dockerfile reached through a link, or outside the context", () => {
    const r = repo();
    symlinkSync("../.medalist", path.join(r, "agent", "docker"));
    const input = (dockerfile: string) => ({
      agent: {
        ...agentWith("agent"),
        build: { context: "agent", dockerfile, args: {} },
      },
      baseDir: r,
      dataDir: path.join(r, ".medalist", "data"),
      outDir: path.join(r, ".medalist", "results", "head"),
    });
    expect(failure(() => checkBuildContext(input("docker/Dockerfile")))).toMatch(
      /^agent\.build\.dockerfile: \S+\/agent\/docker\/Dockerfile goes through the symbolic link \S+\/agent\/docker \(-> \.\.\/\.medalist\)/,
    );
    expect(failure(() => checkBuildContext(input("../.medalist/Dockerfile")))).toBe(
      `agent.build.dockerfile: ../.medalist/Dockerfile is outside the build context ${r}/agent; name a file inside it`,
    );
  });

  it("stages the honest context: the agent gets the copy's path, the note says so", () => {
    const r = repo();
    const built = stageBuildContext({
      agent: agentWith("agent"),
      baseDir: r,
      dataDir: path.join(r, ".medalist", "data"),
      outDir: path.join(r, ".medalist", "results", "head"),
    });
    try {
      expect(built.agent.build?.context).toBe(built.staged?.dir);
      expect(built.note).toBe(
        `agent.build.context ${r}/agent: the image is built from a private copy (3 entries, 25 bytes, no link followed)`,
      );
    } finally {
      built.staged?.dispose();
    }
  });
});
