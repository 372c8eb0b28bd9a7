import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..", "..");
// tsx by path: the child runs in a temporary folder, where the bare name does not resolve.
const TSX = pathToFileURL(join(ROOT, "node_modules", "tsx", "dist", "loader.mjs")).href;
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Ctrl-C on a real `medalist run`: the CLI runs from source in its own process and gets SIGINT
// while the third of three runs is still going.
describe("Ctrl-C during medalist run", () => {
  const ws = mkdtempSync(join(tmpdir(), "medalist-sigint-"));
  afterAll(() => rmSync(ws, { recursive: true, force: true }));

  it("writes the report and viewer of what finished and counts the cancelled run apart", async () => {
    mkdirSync(join(ws, "agent"));
    // Seeds 0 and 1: the sample submission. Seed 2: works until it is stopped.
    writeFileSync(
      join(ws, "agent", "agent.mjs"),
      [
        'import { copyFileSync, mkdirSync } from "node:fs";',
        "const { DATA_DIR, SUBMISSION_DIR, SEED } = process.env;",
        'if (SEED === "2") setInterval(() => {}, 1000);',
        "else {",
        "  mkdirSync(SUBMISSION_DIR, { recursive: true });",
        "  copyFileSync(`${DATA_DIR}/sample_submission.csv`, `${SUBMISSION_DIR}/submission.csv`);",
        "}",
      ].join("\n"),
    );
    writeFileSync(
      join(ws, "medalist.yml"),
      [
        "name: interrupted",
        "competitions: { include: [toy-species] }",
        "seeds: 3",
        "executor: local",
        "agent: { command: node agent.mjs, cwd: agent }",
        "limits: { time: 300s }",
        "dataDir: data",
      ].join("\n"),
    );
    const child = spawn(
      process.execPath,
      ["--import", TSX, join(ROOT, "src/cli.ts"), "run", "--config", "medalist.yml"],
      {
        cwd: ws,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    child.stdout.resume();
    const exited = new Promise<number | null>((r) => child.on("close", (code) => r(code)));
    try {
      // Runs go one at a time (concurrency 1): when seed 2 starts, seeds 0 and 1 have finished.
      const slow = () => err.includes("toy-species.s2: started");
      for (let i = 0; i < 900 && child.exitCode === null && !slow(); i++) await wait(200);
      expect(slow(), err).toBe(true);
      await wait(1000);
      child.kill("SIGINT");
      const code = await Promise.race([exited, wait(90_000).then(() => "still running")]);
      expect(code, err).toBe(130);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
    expect(err).toContain("[head] 2 finished, 1 cancelled, 0 reused");
    expect(err).not.toMatch(/\bexecuted\b/);
    // Results go to .medalist/<the suite's name>/ by default.
    const out = join(ws, ".medalist", "interrupted");
    const report = readFileSync(join(out, "report.md"), "utf8");
    expect(report).toMatch(/Cancelled/);
    expect(report).toContain("1 head run cancelled before the end");
    expect(existsSync(join(out, "viewer", "index.html"))).toBe(true);
    const head = JSON.parse(readFileSync(join(out, "head", "results.json"), "utf8"));
    expect(head.runs.map((r: { outcome: string }) => r.outcome)).toEqual([
      "completed",
      "completed",
      "infra_error",
    ]);
    expect(head.runs[2].details).toMatchObject({ notRun: "true", cancelled: "started" });
    expect(err).toContain(`report:  ${join(out, "report.md")} (the runs that finished)`);
  }, 240_000);
});
