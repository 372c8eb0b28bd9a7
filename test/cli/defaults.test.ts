import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.js";
import { defaultResultsDir, suiteFolderName } from "../../src/config/results-dir.js";

const ROOT = resolve(import.meta.dirname, "..", "..");

describe("the default results folder", () => {
  it("is .medalist/<the suite's name>, made a safe folder name", () => {
    expect(defaultResultsDir("nightly-lite")).toBe(".medalist/nightly-lite");
    expect(suiteFolderName("My suite: GPU/lite")).toBe("My-suite-GPU-lite");
    expect(suiteFolderName("../../etc")).toBe("etc");
    expect(suiteFolderName("..")).toBe("default");
    expect(suiteFolderName("🙂")).toBe("default");
    expect(suiteFolderName("x".repeat(200))).toHaveLength(80);
    // Never one of the folders Medalist keeps other things in.
    expect(suiteFolderName("data")).toBe("data-suite");
    expect(suiteFolderName("history-cache")).toBe("history-cache-suite");
  });

  describe("two configs in one checkout", () => {
    const ws = mkdtempSync(join(tmpdir(), "medalist-defaults-"));
    const cwd = process.cwd();
    afterAll(() => {
      process.chdir(cwd);
      rmSync(ws, { recursive: true, force: true });
    });
    const config = (name: string, seeds: number) =>
      [
        `name: ${name}`,
        "competitions: { include: [toy-species] }",
        `seeds: ${seeds}`,
        "executor: local",
        `agent: { command: node ${join(ROOT, "examples/agents/strong/agent.mjs")}, cwd: ${join(ROOT, "examples/agents")} }`,
        "dataDir: data",
      ].join("\n");

    it("write to different folders, so neither replaces the other's results", async () => {
      writeFileSync(join(ws, "a.yml"), config("alpha", 1));
      writeFileSync(join(ws, "b.yml"), config("beta", 2));
      vi.spyOn(console, "error").mockImplementation(() => {});
      vi.spyOn(console, "log").mockImplementation(() => {});
      vi.spyOn(process.stdout, "write").mockImplementation(() => true);
      process.chdir(ws);
      try {
        expect(await main(["run", "--config", "a.yml"])).toBe(0);
        expect(await main(["run", "--config", "b.yml"])).toBe(0);
      } finally {
        process.chdir(cwd);
        vi.restoreAllMocks();
      }
      const read = (name: string) =>
        JSON.parse(readFileSync(join(ws, ".medalist", name, "head", "results.json"), "utf8"));
      expect(read("alpha").suite.name).toBe("alpha");
      expect(read("alpha").runs).toHaveLength(1);
      expect(read("beta").suite.name).toBe("beta");
      expect(read("beta").runs).toHaveLength(2);
      for (const name of ["alpha", "beta"]) {
        expect(existsSync(join(ws, ".medalist", name, "report.md"))).toBe(true);
        expect(existsSync(join(ws, ".medalist", name, "viewer", "index.html"))).toBe(true);
      }
      expect(existsSync(join(ws, ".medalist", "out"))).toBe(false);
    });
  });
});
