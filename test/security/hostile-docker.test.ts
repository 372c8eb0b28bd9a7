import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runSuite } from "../../src/suite/run.js";
import { validateConfig } from "../../src/config/load.js";
import { requireDocker, TEST_IMAGE } from "../docker/helpers.js";

const root = resolve(import.meta.dirname, "..", "..");
const docker = await requireDocker();

/**
 * One hostile agent, root in its image, one attack per seed. It finds the host path of its data
 * mount in /proc/self/mountinfo and tries to make the grader read the private answers.
 */
const ATTACKS = [
  // 0: a symbolic link to the answers on the host
  'ln -s "$PRIV/answers.csv" /home/submission/submission.csv',
  // 1: a hard link (the answers are not mounted; a second name for any file is refused)
  "cp /home/data/sample_submission.csv /home/submission/x.csv && ln /home/submission/x.csv /home/submission/submission.csv",
  // 2: a FIFO (a reader that follows it would block forever)
  "mkfifo /home/submission/submission.csv",
  // 3: a directory
  "mkdir /home/submission/submission.csv",
  // 4: a device node (mknod needs CAP_MKNOD, dropped: the node is never made)
  "mknod /home/submission/submission.csv b 8 0 || echo mknod refused; mknod /home/code/disk b 8 0 || true",
  // 5: a setuid-root copy of a shell for a host user, a FIFO and a symlinked submission folder entry
  "cp /bin/busybox /home/code/esc && chmod 4755 /home/code/esc && mkfifo /home/logs/pipe && " +
    "cp /home/data/sample_submission.csv /home/submission/submission.csv",
];

const SCRIPT =
  // The host folder behind /home/data, as the agent can read it from mountinfo.
  `HOSTDATA=$(awk '$5=="/home/data"{print $4}' /proc/self/mountinfo); PRIV=$(dirname "$HOSTDATA")/private; ` +
  `echo "host data at $HOSTDATA"; case "$SEED" in ` +
  ATTACKS.map((a, i) => `${i}) ${a} ;;`).join(" ") +
  " esac; ls -la /home/submission /home/code; true";

describe.skipIf(!docker)("a hostile agent in Docker gets nothing (real daemon)", () => {
  it("links, FIFOs, folders and device nodes as submission.csv are invalid with a reason; setuid files are defused", async () => {
    const outDir = mkdtempSync(join(tmpdir(), "medalist-hostile-out-"));
    const config = validateConfig(
      {
        name: "hostile",
        competitions: { include: ["toy-churn"] },
        seeds: ATTACKS.length,
        executor: "docker",
        agent: { image: TEST_IMAGE, command: SCRIPT },
        limits: { time: 60, memory: "256m", cpus: 0.5 },
        dataDir: mkdtempSync(join(tmpdir(), "medalist-hostile-data-")),
        // Root in the image: the strongest agent this layer must hold against.
        docker: { network: "none", retries: 0, user: "image" },
      },
      "test",
    );
    const lines: string[] = [];
    const results = await runSuite({
      config,
      baseDir: root,
      outDir,
      label: "head",
      log: (l) => lines.push(l),
    });
    const bySeed = new Map(results.runs.map((r) => [r.seed, r]));
    const expectInvalid = (seed: number, reason: RegExp) => {
      const r = bySeed.get(seed)!;
      expect(r.outcome, lines.join("\n")).toBe("completed");
      expect(r.grade?.valid_submission).toBe(false);
      expect(r.grade?.score).toBeNull();
      expect(r.grade?.any_medal).toBe(false);
      expect(r.grade?.error).toMatch(reason);
    };
    expectInvalid(0, /symbolic link/);
    expectInvalid(1, /hard link/);
    expectInvalid(2, /FIFO|no submission file/); // removed before grading
    const run2 = join(outDir, bySeed.get(2)!.runDir);
    if (results.environment.runtime === "runsc")
      // gVisor keeps a FIFO made in a bind mount inside the sandbox: the runner never sees one.
      expect(existsSync(join(run2, "submission", "submission.csv"))).toBe(false);
    else
      expect(readFileSync(join(run2, "run.log"), "utf8")).toMatch(
        /removed special files from submission\/: submission.csv/,
      );
    expectInvalid(3, /not a regular file|directory/);
    expectInvalid(4, /no submission file/);
    expect(readFileSync(join(outDir, bySeed.get(4)!.runDir, "run.log"), "utf8")).toContain("mknod refused");

    // Seed 5 is gradeable (the sample), but what it planted is harmless on the host.
    const run5 = join(outDir, bySeed.get(5)!.runDir);
    expect(bySeed.get(5)!.grade?.valid_submission).toBe(true);
    const esc = lstatSync(join(run5, "code", "esc"));
    expect(esc.mode & 0o6000).toBe(0);
    expect(readdirSync(join(run5, "logs"))).not.toContain("pipe");
    // An unprivileged host user cannot even reach the run folder.
    const asNobody = () =>
      execFileSync(
        "setpriv",
        ["--reuid=65534", "--regid=65534", "--clear-groups", "stat", "-c", "%a", join(run5, "code", "esc")],
        {
          stdio: "pipe",
        },
      );
    expect(asNobody).toThrow();
    expect((lstatSync(run5).mode & 0o777).toString(8)).toBe("700");
    // No device node anywhere in the run folders.
    for (const r of results.runs)
      for (const sub of ["submission", "code", "logs"])
        for (const f of readdirSync(join(outDir, r.runDir, sub))) {
          const st = lstatSync(join(outDir, r.runDir, sub, f));
          expect(st.isBlockDevice() || st.isCharacterDevice() || st.isFIFO()).toBe(false);
        }
  }, 240_000);

  it("an agent writing 1 GB to /home/logs is stopped at its quota; the suite goes on to the next run", async () => {
    const outDir = mkdtempSync(join(tmpdir(), "medalist-hostile-out-"));
    const config = validateConfig(
      {
        name: "flood",
        competitions: { include: ["toy-churn"] },
        seeds: 2,
        executor: "docker",
        agent: {
          image: TEST_IMAGE,
          command:
            'if [ "$SEED" = 0 ]; then dd if=/dev/zero of=/home/logs/flood bs=1M count=1024 2>/dev/null; sleep 300; fi; ' +
            "cp /home/data/sample_submission.csv /home/submission/submission.csv",
        },
        limits: { time: 300, disk: { logs: "64m" } },
        dataDir: mkdtempSync(join(tmpdir(), "medalist-hostile-data-")),
        docker: { network: "none", retries: 0 },
      },
      "test",
    );
    const t0 = Date.now();
    const results = await runSuite({ config, baseDir: root, outDir, label: "head" });
    const [flooded, next] = [0, 1].map((seed) => results.runs.find((r) => r.seed === seed)!);
    expect(flooded.outcome).toBe("failed");
    expect(flooded.error).toMatch(/^disk: \/home\/logs (went over its 64\.0 MiB quota|quota 64 MiB reached)/);
    expect(next.outcome).toBe("completed");
    expect(next.grade?.valid_submission).toBe(true);
    expect(Date.now() - t0).toBeLessThan(150_000);
    rmSync(outDir, { recursive: true, force: true });
  }, 240_000);
});
