// A backend registered after Medalist's modules loaded (as a separate package would) is accepted:
// the config schema is built on first use from the registry and rebuilt when it grows.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsonSchemas } from "../../src/cli/commands/schema.js";
import { validateConfig } from "../../src/config/load.js";
import { configSchema } from "../../src/config/schema.js";
import { checkSuite, checkText } from "../../src/session/check.js";

const base = { competitions: { split: "toy" }, agent: { command: "echo hi" } };

describe("an executor registered late", () => {
  it("is refused before it registers, and accepted with its own block after its one line", async () => {
    // The schema is built (and cached) before the backend registers.
    const before = configSchema();
    expect(() => validateConfig({ ...base, executor: "sh" }, "medalist.yml")).toThrow(
      'medalist.yml: executor: expected one of "local", "docker", "slurm", got the string "sh"',
    );

    await import("../execute/fixtures/sh-backend.js"); // registerBackend(shBackend()), its one line

    expect(configSchema()).not.toBe(before);
    const config = validateConfig({ ...base, executor: "sh", sh: { shell: "bash" } }, "medalist.yml");
    expect(config.executor).toBe("sh");
    expect((config as Record<string, unknown>).sh).toEqual({ shell: "bash" });
    // Its block is defaulted like a built-in one's.
    expect((validateConfig({ ...base, executor: "sh" }, "m") as Record<string, unknown>).sh).toEqual({
      shell: "sh",
    });
    // A bad field in its block is reported with its path.
    expect(() => validateConfig({ ...base, executor: "sh", sh: { shell: 1 } }, "medalist.yml")).toThrow(
      "medalist.yml: sh.shell: expected a string, got number 1",
    );
    expect(() => validateConfig({ ...base, executor: "sh", sh: { shel: "bash" } }, "medalist.yml")).toThrow(
      /^medalist\.yml: sh: unknown field "shel"/,
    );
    // Its checks run when it is chosen.
    expect(() => validateConfig({ ...base, agent: { image: "x" }, executor: "sh" }, "m")).toThrow(
      "m: agent.command: sh needs a command",
    );
    // An unknown executor is still refused, naming the registered ones.
    expect(() => validateConfig({ ...base, executor: "podman" }, "medalist.yml")).toThrow(
      'medalist.yml: executor: expected one of "local", "docker", "slurm", "sh", got the string "podman"',
    );
    // The JSON schema follows: its name and its block.
    const schema = jsonSchemas()["medalist.schema.json"] as { properties: Record<string, unknown> };
    expect(JSON.stringify(schema.properties.executor)).toContain('"sh"');
    expect(schema.properties.sh).toBeDefined();
    // Built once per registry: the same schema while nothing registers.
    expect(configSchema()).toBe(configSchema());
  });

  it("gets medalist check's lines without a branch of its own: no machine check is said as such", async () => {
    await import("../execute/fixtures/sh-backend.js");
    const dir = mkdtempSync(join(tmpdir(), "medalist-late-"));
    const config = validateConfig(
      { ...base, competitions: { include: ["toy-churn"] }, executor: "sh", dataDir: join(dir, "data") },
      "medalist.yml",
    );
    const lines = await checkSuite(
      { config, baseDir: dir, path: join(dir, "medalist.yml") },
      { machine: true },
    );
    expect(lines.map(checkText)).toContain(
      "✓ executor: sh: not checked on this machine (the executor has no check of its own)",
    );
    expect(lines.map((l) => l.what)).toEqual(["config", "agent", "data", "executor"]);
  });
});
