// The registry (execute/backends.ts): names, config blocks and the JSON schema come from the
// registered backends, and no backend folder does an attempt's work itself: that is
// execute/attempt.ts's (run folder, run.log and masking, quota, timers, sanitizing, wording). What
// each backend does with a hostile agent is test/execute/conformance.test.ts's.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { jsonSchemas } from "../../src/cli/commands/schema.js";
import { ConfigSchema } from "../../src/config/schema.js";
import { executorConfigs } from "../../src/config/executors.js";
import {
  identityFactsOf,
  registerBackend,
  registeredBackends,
  unsandboxedBy,
} from "../../src/execute/backends.js";
import { localBackend } from "../../src/execute/local/index.js";

const root = join(import.meta.dirname, "..", "..");
const BACKENDS = registeredBackends();
const EXECUTOR_NAMES = BACKENDS.map((b) => b.name);

/** What only the attempt wrapper may do; a backend folder using these bypasses it. */
const WRAPPER_ONLY = [
  /\bnew RunLog\(/,
  /\bwatchQuota\(/,
  /\bfinalQuotaCheck\(/,
  /\bsanitizeRun\(/,
  /\bmaskRunFolder\(/,
  /\bnew Masker\(/,
  /\bcreateWriteStream\([^)]*logFile/,
];

function sources(dir: string): { file: string; text: string }[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => ({ file: f, text: readFileSync(join(dir, f), "utf8") }));
}

describe("the executor registry (execute/backends.ts)", () => {
  it("names each executor once, each with its own folder", () => {
    expect(new Set(EXECUTOR_NAMES).size).toBe(BACKENDS.length);
    for (const b of BACKENDS) expect(existsSync(join(root, "src", "execute", b.name)), b.name).toBe(true);
  });

  it("refuses a second backend of the same name", () => {
    expect(() => registerBackend(localBackend)).toThrow('the executor "local" is registered twice');
  });

  it.each(BACKENDS.map((b) => [b.name, b] as const))("%s's config block and checks answer", (_name, b) => {
    if (b.configSchema) {
      // Its block's default parses, and its checks and identity facts answer for it.
      const block = b.configSchema.parse(b.configDefault);
      const view = { agent: { command: "true", image: "x" }, block } as never;
      expect(Array.isArray(b.check(view))).toBe(true);
      expect(typeof b.identityFacts(view)).toBe("object");
    } else expect(b.configDefault).toBeNull();
  });

  it.each(BACKENDS.map((b) => [b.name] as const))(
    "%s's folder leaves every attempt duty to runAttempt",
    (name) => {
      const files = sources(join(root, "src", "execute", name));
      for (const { file, text } of files)
        for (const re of WRAPPER_ONLY) expect(re.test(text), `${name}/${file} uses ${re.source}`).toBe(false);
      // Its executor's attempts go through the wrapper with its driver.
      expect(
        files.some(({ text }) => /runAttempt\(/.test(text) || /driver: \(\) =>/.test(text)),
        name,
      ).toBe(true);
    },
  );

  it("derives the config's executor names, blocks and JSON schema from the list", () => {
    // Each registered backend's part of the config is registered with config/executors.ts.
    expect(executorConfigs().map((p) => p.name)).toEqual(EXECUTOR_NAMES);
    const shape = (ConfigSchema as unknown as { in: { shape: Record<string, z.ZodType> } }).in;
    const executor = shape.shape.executor as unknown as { unwrap(): { options: string[] } };
    expect(executor.unwrap().options).toEqual(EXECUTOR_NAMES);
    const schema = jsonSchemas()["medalist.schema.json"] as { properties: Record<string, unknown> };
    for (const b of BACKENDS) if (b.configSchema) expect(schema.properties[b.name], b.name).toBeDefined();
    expect(JSON.stringify(schema.properties.executor)).toContain(JSON.stringify(EXECUTOR_NAMES).slice(1, -1));
  });

  it("checks only the chosen executor's needs, with the path of the missing field", () => {
    const base = { competitions: { split: "toy" }, agent: { image: "x" } };
    const r = ConfigSchema.safeParse({ ...base, executor: "local" });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]).toMatchObject({ path: ["agent", "command"] });
    expect(ConfigSchema.safeParse({ ...base, executor: "docker" }).success).toBe(true);
  });

  it("puts each executor's identity facts into run identities (docker: its network)", () => {
    const config = ConfigSchema.parse({
      competitions: { split: "toy" },
      agent: { image: "x" },
      executor: "docker",
      docker: { network: "none" },
    });
    expect(identityFactsOf("docker", config)).toEqual({ network: "none" });
    const set = { ...config, docker: { ...config.docker, entrypoint: "none", runtime: "runsc" } };
    expect(identityFactsOf("docker", set)).toEqual({ network: "none", entrypoint: "none", runtime: "runsc" });
    expect(identityFactsOf("local", config)).toEqual({});
  });

  it("says which configs run a pull request's agent unsandboxed (the action refuses them on a PR)", () => {
    const config = (over: object) =>
      ConfigSchema.parse({ competitions: { split: "toy" }, agent: { command: "x", image: "x" }, ...over });
    expect(unsandboxedBy("local", config({ executor: "local" }))).toBe("executor: local");
    expect(unsandboxedBy("docker", config({ executor: "docker" }))).toBeNull();
    expect(
      unsandboxedBy("slurm", config({ executor: "slurm", slurm: { mode: "command", sharedDir: "/tmp" } })),
    ).toBe("slurm mode: command");
    expect(
      unsandboxedBy("slurm", config({ executor: "slurm", slurm: { mode: "docker", sharedDir: "/tmp" } })),
    ).toBeNull();
  });
});
