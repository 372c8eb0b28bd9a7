// docs/mlebench.md's "Try it offline" steps, followed literally: its medalist.yml written as the page
// shows it beside upstream's agents/dummy layout (the project's own fixture), then each command of its
// sh block run as a user types it, in that folder. The lines the page promises are checked against
// what the commands print, with their exit codes. It tags mlebench-env on the daemon, as the page does.
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cachedRootfs } from "../../src/mlebench/env-image.js";
import { runCli } from "../helpers/cli.js";
import { requireDocker } from "./helpers.js";
import { existsSync } from "node:fs";

const docker = await requireDocker();
const ROOT = resolve(import.meta.dirname, "..", "..");
const DOC = readFileSync(join(ROOT, "docs", "mlebench.md"), "utf8");
const work = mkdtempSync(join(tmpdir(), "medalist-first-hour-mlebench-"));

/** The section of the page under `heading`, up to the next heading of its level or above. */
function section(heading: string): string {
  const at = DOC.indexOf(heading);
  expect(at, `docs/mlebench.md has no heading ${heading}`).toBeGreaterThan(-1);
  const rest = DOC.slice(at + heading.length);
  const end = rest.search(/\n#{1,3} /);
  return end < 0 ? rest : rest.slice(0, end);
}

const blocks = (text: string, lang: string) =>
  [...text.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]);

/** A sentence the page quotes in a code span, as a pattern: "…" stands for what varies. */
function promised(text: string, starts: string): RegExp {
  const prose = text.replace(/```[\s\S]*?```/g, "").replace(/\n/g, " ");
  const span = [...prose.matchAll(/`([^`]+)`/g)].map((m) => m[1]).find((t) => t.startsWith(starts));
  expect(span, `the page quotes a line starting ${starts}`).toBeDefined();
  const parts = span!.split("…").map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join(".+")}$`);
}

// The page's first build imports the cached root filesystem (scripts/ci-docker.sh makes it).
const base = docker
  ? existsSync(cachedRootfs()) ||
    (await docker
      .getImage("mlebench-env-base:bookworm")
      .inspect()
      .then(
        () => true,
        () => false,
      ))
  : false;
if (docker && !base) {
  const reason = `no root filesystem at ${cachedRootfs()}; run scripts/ci-docker.sh`;
  if (process.env.MEDALIST_REQUIRE_DOCKER === "1") throw new Error(`MEDALIST_REQUIRE_DOCKER=1 but ${reason}`);
  console.warn(`[test/docker] skipping: ${reason}`);
}

describe.skipIf(!docker || !base)("docs/mlebench.md, Try it offline with upstream's agents/dummy", () => {
  const cwd = process.cwd();
  afterAll(async () => {
    process.chdir(cwd);
    // The dummy's image and the writable-/home layer over it (mlebench-env stays: the page builds it for the user).
    for (const tag of ["medalist-agent:dummy-home", "medalist-agent:dummy"])
      await docker!
        .getImage(tag)
        .remove({ force: true })
        .catch(() => {});
    rmSync(work, { recursive: true, force: true });
  });

  it("builds mlebench-env, then runs the unchanged dummy on it: every run completed, exit 0", async () => {
    const text = section("### Try it offline with upstream's `agents/dummy`");
    const [config] = blocks(text, "yaml");
    const [script] = blocks(text, "sh");
    expect(config).toBeDefined();
    const commands = script.split("\n").filter((l) => l.trim() !== "");
    expect(commands).toEqual(["medalist mlebench-env build", "medalist run --config medalist.yml"]);
    // "Copy agents/dummy/ of your MLE-bench checkout into an empty folder … and beside it this medalist.yml".
    cpSync(join(ROOT, "test/fixtures/mlebench-upstream/agents"), join(work, "agents"), { recursive: true });
    writeFileSync(join(work, "medalist.yml"), config);
    process.chdir(work);

    const build = await runCli(...commands[0].split(" ").slice(1));
    expect(build.code, build.all).toBe(0);
    expect(build.stdout.trim().split("\n").at(-1)).toMatch(promised(text, "built mlebench-env"));

    const run = await runCli(...commands[1].split(" ").slice(1));
    expect(run.code, run.all).toBe(0);
    const done = run.stderr
      .split("\n")
      .filter((l) => /^\[head\] \d\/3 \S+\.s0: /.test(l) && !l.includes("started"));
    expect(done).toHaveLength(3);
    for (const line of done) expect(line).toMatch(/^\[head\] \d\/3 toy-[a-z-]+\.s0: completed in [\d.]+s, /);
    const runs = join(work, ".medalist", "dummy", "head", "runs");
    const folders = readdirSync(runs);
    expect(folders).toHaveLength(3);
    for (const f of folders) {
      const log = readFileSync(join(runs, f, "run.log"), "utf8");
      expect(log).toMatch(/stdout pip \d+\.\d+(\.\d+)? from \/opt\/conda\/envs\/agent\//);
      expect(log).toContain("Submission is valid.");
      // runc: EACCES; gVisor (docker.runtime auto picks runsc where the daemon has it) answers EINVAL.
      expect(log).toMatch(/cannot (open directory|access) '\/private': (Permission denied|Invalid argument)/);
    }
  }, 600_000);
});
