import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkoutBase } from "../../src/action/base-ref.js";

describe("checkoutBase (baseline: run)", () => {
  const repo = mkdtempSync(join(tmpdir(), "medalist-git-"));
  afterAll(() => rmSync(repo, { recursive: true, force: true }));
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
      cwd: repo,
      encoding: "utf8",
    }).trim();

  it("checks the base commit out beside the workspace and maps the config folder", async () => {
    git("init", "-q");
    mkdirSync(join(repo, "ci"));
    writeFileSync(join(repo, "ci", "agent.txt"), "base scaffold\n");
    git("add", ".");
    git("commit", "-q", "-m", "base");
    const baseSha = git("rev-parse", "HEAD");
    writeFileSync(join(repo, "ci", "agent.txt"), "head scaffold\n");
    git("commit", "-q", "-am", "head");

    const lines: string[] = [];
    const base = await checkoutBase(baseSha, join(repo, "ci"), (l) => lines.push(l));
    expect(readFileSync(join(base.baseDir, "agent.txt"), "utf8")).toBe("base scaffold\n");
    expect(readFileSync(join(repo, "ci", "agent.txt"), "utf8")).toBe("head scaffold\n");
    expect(lines.join("\n")).toMatch(new RegExp(`base commit ${baseSha.slice(0, 7)} checked out`));
    base.dispose();
    expect(existsSync(base.baseDir)).toBe(false);
  });

  it("says what is wrong when the base commit cannot be had", async () => {
    await expect(checkoutBase("f".repeat(40), repo, () => {})).rejects.toThrow(
      /could not fetch the base commit/,
    );
  });
});
