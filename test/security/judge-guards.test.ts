// The external grader's environment and the agent's build context (see docs/security.md).
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { validateConfig } from "../../src/config/load.js";
import { checkBuildContext } from "../../src/execute/build-context.js";
import { gradeExternal } from "../../src/grade/external.js";

describe("external grader environment", () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = saved;
  });

  it("has PATH, the locale and a fresh HOME, none of the runner's tokens", async () => {
    process.env = {
      ...saved,
      GITHUB_TOKEN: "ghs_secret",
      ACTIONS_RUNTIME_TOKEN: "rt",
      AWS_SECRET_ACCESS_KEY: "aws",
      LANG: "C.UTF-8",
      TZ: "UTC",
    };
    const dir = mkdtempSync(join(tmpdir(), "medalist-grader-env-"));
    const out = join(dir, "env.json");
    const script = join(dir, "grader.mjs");
    writeFileSync(
      script,
      `import { writeFileSync } from "node:fs"; writeFileSync(${JSON.stringify(out)}, JSON.stringify(process.env)); console.log(JSON.stringify({ score: 1 }));`,
    );
    const r = await gradeExternal([process.execPath, script], {
      competition: "c",
      submission: "/s",
      privateDir: "/p",
    });
    expect(r.valid).toBe(true);
    const env = JSON.parse((await import("node:fs")).readFileSync(out, "utf8")) as Record<string, string>;
    expect(Object.keys(env).sort()).toEqual(["HOME", "LANG", "PATH", "TZ"]);
    expect(env.HOME).not.toBe(saved.HOME);
    expect(JSON.stringify(env)).not.toMatch(/ghs_secret|aws|"rt"/);
  });

  it("runs in the working folder it is given (a copy of the base commit's files on a pull request)", async () => {
    const checkout = mkdtempSync(join(tmpdir(), "medalist-grader-checkout-"));
    const copy = mkdtempSync(join(tmpdir(), "medalist-grader-copy-"));
    mkdirSync(join(checkout, "tools"));
    mkdirSync(join(copy, "tools"));
    writeFileSync(join(checkout, "tools/grade.sh"), `echo '{"score": 0.99}'\n`);
    writeFileSync(join(copy, "tools/grade.sh"), `echo '{"score": 0.25}'\n`);
    const ctx = { competition: "c", submission: "/s", privateDir: "/p" };
    const saved = process.cwd();
    process.chdir(checkout);
    try {
      expect((await gradeExternal(["sh", "tools/grade.sh"], ctx)).score).toBe(0.99);
      expect((await gradeExternal(["sh", "tools/grade.sh"], { ...ctx, cwd: copy })).score).toBe(0.25);
    } finally {
      process.chdir(saved);
    }
  });
});

describe("agent build context", () => {
  const repo = mkdtempSync(join(tmpdir(), "medalist-ctx-"));
  mkdirSync(join(repo, ".git"));
  mkdirSync(join(repo, "agent"));
  const agent = (context: string) =>
    validateConfig({ competitions: { split: "toy" }, executor: "docker", agent: { build: { context } } }, "t")
      .agent;
  const check =
    (context: string, more: { dataDir?: string; outDir?: string; storeDir?: string } = {}) =>
    () =>
      checkBuildContext({
        agent: agent(context),
        baseDir: repo,
        dataDir: more.dataDir ?? join(repo, ".medalist/data"),
        outDir: more.outDir ?? "/elsewhere/results/head",
        storeDir: more.storeDir ?? null,
      });

  it("accepts the agent's own folder", () => {
    expect(check("agent")).not.toThrow();
  });
  it("refuses a context holding the data folder, saying what to do", () => {
    expect(check(".")).toThrow(
      /^agent\.build\.context \S+ contains the data folder \(dataDir, with the private answers\) \S+: the agent's image could copy it; point agent\.build\.context at the folder with the agent's code \(e\.g\. agent\/, with its Dockerfile\), or move that folder outside the context$/,
    );
  });
  it("refuses a context holding .git, the results or the run store, or inside the data folder", () => {
    const away = { dataDir: "/elsewhere/data" };
    expect(check(".", away)).toThrow(/contains a \.git folder/);
    expect(check("agent", { ...away, outDir: join(repo, "agent/out/base") })).toThrow(
      /contains the results folder/,
    );
    expect(check("agent", { ...away, storeDir: join(repo, "agent/runs") })).toThrow(/contains the run store/);
    expect(check(".medalist/data/x")).toThrow(/contains the data folder/);
  });
});
