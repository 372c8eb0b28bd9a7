// Paths a pull request supplies, on the real daemon: a build context or an MLE-bench agent folder
// reached through a committed symbolic link is refused with one sentence naming the link, before
// any image is built; an honest agent is built from a private copy and runs; a folder swapped for a
// link after it was staged changes nothing in the image.
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { validateConfig } from "../../src/config/load.js";
import { UserError } from "../../src/errors.js";
import { stageBuildContext } from "../../src/execute/build-context.js";
import { buildImage } from "../../src/execute/container/image.js";
import { imageEngine } from "../../src/execute/docker/engine.js";
import { runSuite } from "../../src/suite/run.js";
import { requireDocker, TEST_IMAGE } from "./helpers.js";

const docker = await requireDocker();
const T = 240_000;
const tags: string[] = [];

/** A repository with an honest agent folder, a data folder (the answers) and the PR's planted files. */
function repo(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "medalist-build-paths-"));
  mkdirSync(path.join(dir, ".git"));
  mkdirSync(path.join(dir, "agent"));
  writeFileSync(path.join(dir, "agent", "Dockerfile"), `FROM ${TEST_IMAGE}\nCOPY . /agent\n`);
  writeFileSync(
    path.join(dir, "agent", "run.sh"),
    'cp "$DATA_DIR/sample_submission.csv" "$SUBMISSION_DIR/submission.csv"\n',
  );
  // What the PR commits next to it: a Dockerfile that copies the data folder into the image.
  mkdirSync(path.join(dir, ".medalist"));
  writeFileSync(path.join(dir, ".medalist", "Dockerfile"), `FROM ${TEST_IMAGE}\nCOPY data /stolen\n`);
  return dir;
}

function config(dir: string, name: string, agent: Record<string, unknown>) {
  tags.push(`medalist-agent:${name}`);
  return validateConfig(
    {
      name,
      competitions: { include: ["toy-churn"] },
      seeds: 1,
      executor: "docker",
      agent,
      limits: { time: 60 },
      dataDir: path.join(dir, ".medalist", "data"),
      docker: { network: "none" },
      run: { retries: 0 },
    },
    path.join(dir, "medalist.yml"),
  );
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    return (e as Error).message;
  }
  throw new Error("expected a UserError");
}

const imageExists = (tag: string) =>
  docker!
    .getImage(tag)
    .inspect()
    .then(
      () => true,
      () => false,
    );

describe.skipIf(!docker)("build paths on the real daemon", () => {
  afterAll(async () => {
    for (const tag of tags)
      await docker!
        .getImage(tag)
        .remove({ force: true })
        .catch(() => {});
  });

  it("an honest agent is built from a private copy and runs", { timeout: T }, async () => {
    const dir = repo();
    const lines: string[] = [];
    const results = await runSuite({
      config: config(dir, "paths-honest", { build: { context: "agent" }, command: "sh /agent/run.sh" }),
      baseDir: dir,
      outDir: path.join(dir, ".medalist", "results", "head"),
      label: "head",
      log: (l) => lines.push(l),
    });
    expect(
      results.runs.map((r) => r.outcome),
      lines.join("\n"),
    ).toEqual(["completed"]);
    expect(results.runs[0].grade?.valid_submission).toBe(true);
    expect(lines).toContain(
      `agent.build.context ${dir}/agent: the image is built from a private copy (2 entries, ${
        `FROM ${TEST_IMAGE}\nCOPY . /agent\n`.length +
        'cp "$DATA_DIR/sample_submission.csv" "$SUBMISSION_DIR/submission.csv"\n'.length
      } bytes, no link followed)`,
    );
    // The copy is gone with the suite.
    const staged = lines.find((l) => l.startsWith("building "))!.split(" ")[3];
    expect(
      readdirSync(path.dirname(path.dirname(staged))).filter(
        (n) => n === path.basename(path.dirname(staged)),
      ),
    ).toEqual([]);
  });

  it(
    "a build context through a committed link is refused, naming it; no image is built",
    { timeout: T },
    async () => {
      const dir = repo();
      symlinkSync("../.medalist", path.join(dir, "agent", "up"));
      const c = config(dir, "paths-linked", {
        build: { context: "agent/up" },
        command: "cp -r /stolen /home/submission",
      });
      const msg = await refusal(
        runSuite({
          config: c,
          baseDir: dir,
          outDir: path.join(dir, ".medalist", "results", "head"),
          label: "head",
        }),
      );
      expect(msg).toBe(
        `agent.build.context: ${dir}/agent/up goes through the symbolic link ${dir}/agent/up (-> ../.medalist); ` +
          "Medalist does not follow links in the paths a pull request supplies: commit the folder itself",
      );
      expect(await imageExists("medalist-agent:paths-linked")).toBe(false);
    },
  );

  it("an MLE-bench agent folder through a committed link is refused, naming it", { timeout: T }, async () => {
    const dir = repo();
    mkdirSync(path.join(dir, "agents", "tiny"), { recursive: true });
    writeFileSync(path.join(dir, "agents", "tiny", "start.sh"), "#!/bin/bash\n");
    writeFileSync(
      path.join(dir, "agents", "tiny", "config.yaml"),
      "tiny:\n  start: tiny/start.sh\n  dockerfile: evil/Dockerfile\n",
    );
    symlinkSync("../.medalist", path.join(dir, "agents", "evil"));
    const c = config(dir, "paths-mle-linked", { mlebench: { agentsDir: "agents", id: "tiny" } });
    const msg = await refusal(
      runSuite({
        config: c,
        baseDir: dir,
        outDir: path.join(dir, ".medalist", "results", "head"),
        label: "head",
      }),
    );
    expect(msg).toBe(
      `tiny/config.yaml: tiny.dockerfile: ${realpathSync(dir)}/agents/evil/Dockerfile goes through the symbolic link ${realpathSync(dir)}/agents/evil (-> ../.medalist); ` +
        "Medalist does not follow links in the paths a pull request supplies: commit the folder itself",
    );
    expect(await imageExists("medalist-agent:paths-mle-linked")).toBe(false);
    // The agents folder itself as a link: refused the same way.
    symlinkSync("agents", path.join(dir, "agents2"));
    const c2 = config(dir, "paths-mle-linked2", { mlebench: { agentsDir: "agents2", id: "tiny" } });
    expect(
      await refusal(
        runSuite({
          config: c2,
          baseDir: dir,
          outDir: path.join(dir, ".medalist", "results", "head"),
          label: "head",
        }),
      ),
    ).toMatch(
      /^agent\.mlebench\.agentsDir: \S+\/agents2 goes through the symbolic link \S+\/agents2 \(-> agents\)/,
    );
  });

  it(
    "a folder swapped for a link to the data after staging: the image holds the staged copy",
    { timeout: T },
    async () => {
      const dir = repo();
      mkdirSync(path.join(dir, ".medalist", "data", "toy", "prepared", "private"), { recursive: true });
      writeFileSync(
        path.join(dir, ".medalist", "data", "toy", "prepared", "private", "answers.csv"),
        "SECRET\n",
      );
      writeFileSync(
        path.join(dir, "agent", "Dockerfile"),
        `FROM ${TEST_IMAGE}\nCOPY . /ctx\nRUN test -f /ctx/run.sh && ! find /ctx | grep -q answers\n`,
      );
      const c = config(dir, "paths-swapped", { build: { context: "agent" }, command: "true" });
      const built = stageBuildContext({
        agent: c.agent,
        baseDir: dir,
        dataDir: path.join(dir, ".medalist", "data"),
        outDir: path.join(dir, ".medalist", "results", "head"),
      });
      try {
        renameSync(path.join(dir, "agent"), path.join(dir, "agent-old"));
        symlinkSync(".medalist/data", path.join(dir, "agent"));
        const lines: string[] = [];
        const image = await buildImage(
          imageEngine(docker!),
          { ...built.agent.build!, args: {}, tag: "medalist-agent:paths-swapped" },
          (l) => lines.push(l),
        );
        expect(image.id, lines.join("\n")).toMatch(/^sha256:/);
      } finally {
        built.staged?.dispose();
      }
    },
  );
});
