// The registry (execute/backends.ts): names, config blocks and the JSON schema come from the
// registered backends, and no backend folder does an attempt's work itself: that is
// execute/attempt.ts's (run folder, run.log and masking, quota, timers, sanitizing, wording). What
// each backend does with a hostile agent is test/execute/conformance.test.ts's.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { jsonSchemas } from "../../src/cli/commands/schema.js";
import { configSchema } from "../../src/config/schema.js";
import { LOCAL_CONFIG } from "../../src/config/blocks/local.js";
import { executorConfigs, registerExecutorConfig } from "../../src/config/executors.js";
import {
  identityFactsOf,
  registerBackend,
  registeredBackends,
  unsandboxedBy,
} from "../../src/execute/backends.js";
import { localBackend } from "../../src/execute/local/index.js";
import { moduleGraph, type ModuleInfo } from "../../scripts/code-graph.js";

const root = join(import.meta.dirname, "..", "..");
const BACKENDS = registeredBackends();
const EXECUTOR_NAMES = BACKENDS.map((b) => b.name);

/** What only the attempt wrapper may do, by module: a backend folder importing these bypasses it. */
const WRAPPER_ONLY: Record<string, string[]> = {
  "src/execute/run-log.ts": ["RunLog"],
  "src/execute/quota.ts": ["watchQuota", "finalQuotaCheck"],
  "src/util/runfiles.ts": ["sanitizeRun"],
  "src/execute/mask-folder.ts": ["maskRunFolder"],
  "src/execute/mask.ts": ["Masker"],
};

const graph = moduleGraph(root, ["src"]);

/** The backend folder (execute/<name>/) a module lies in, or null. */
function backendFolder(path: string, names: string[]): string | null {
  const m = /^src\/execute\/([^/]+)\//.exec(path);
  return m && names.includes(m[1]) ? m[1] : null;
}

/**
 * Imports of a backend folder's modules from outside that folder, but for execute/backends.ts
 * registering its index.ts: what is backend-specific stays in its folder.
 */
function backendLeaks(g: Map<string, ModuleInfo>, names: string[]): string[] {
  const out: string[] = [];
  for (const m of [...g.values()].sort((a, b) => a.path.localeCompare(b.path)))
    for (const to of [...m.allImports].sort()) {
      const b = backendFolder(to, names);
      if (b === null || backendFolder(m.path, names) === b) continue;
      if (m.path === "src/execute/backends.ts" && to === `src/execute/${b}/index.ts`) continue;
      out.push(`${m.path} → ${to}`);
    }
  return out;
}

/** Attempt duties a backend folder imports (it would bypass the wrapper): "module imports name from module". */
function wrapperBypasses(g: Map<string, ModuleInfo>, name: string): string[] {
  const out: string[] = [];
  for (const m of g.values())
    if (backendFolder(m.path, [name]) !== null)
      for (const [from, names] of Object.entries(WRAPPER_ONLY))
        for (const n of [...names, "*"])
          if (m.importedNames.get(from)?.has(n)) out.push(`${m.path} imports ${n} from ${from}`);
  return out;
}

describe("the executor registry (execute/backends.ts)", () => {
  it("names each executor once, each with its own folder", () => {
    expect(new Set(EXECUTOR_NAMES).size).toBe(BACKENDS.length);
    for (const b of BACKENDS) expect(existsSync(join(root, "src", "execute", b.name)), b.name).toBe(true);
  });

  it("refuses a second backend of the same name", () => {
    expect(() => registerBackend(localBackend)).toThrow('the executor "local" is registered twice');
  });

  it("registers each backend's part of the config once: the same part again is a no-op, another is refused", () => {
    const before = executorConfigs();
    registerExecutorConfig(LOCAL_CONFIG);
    expect(executorConfigs()).toEqual(before);
    expect(() => registerExecutorConfig({ ...LOCAL_CONFIG, check: () => [] })).toThrow(
      'the executor "local" is registered twice',
    );
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
      const folder = [...graph.values()].filter((m) => backendFolder(m.path, [name]) !== null);
      expect(folder.length, name).toBeGreaterThan(0);
      expect(wrapperBypasses(graph, name)).toEqual([]);
      // Its attempts go through the wrapper: it gives runAttempt an AttemptDriver.
      expect(
        folder.some((m) => m.importedNames.get("src/execute/attempt.ts")?.has("AttemptDriver")),
        name,
      ).toBe(true);
    },
  );

  it("keeps what is backend-specific in its folder: only execute/backends.ts imports a backend, by its index.ts", () => {
    const names = BACKENDS.map((b) => b.name);
    // None: the doors' checks, the action's runtime gate and the MLE-bench environment image ask
    // the backend (Backend.agentCheck, machineCheck, weakSandbox, imageEngine).
    expect(backendLeaks(graph, names)).toEqual([]);
  });

  it("finds an import of a backend's insides from outside its folder", () => {
    const names = BACKENDS.map((b) => b.name);
    const withLeak = new Map(graph);
    const image = graph.get("src/execute/container/image.ts")!;
    withLeak.set(image.path, {
      ...image,
      allImports: new Set([...image.allImports, "src/execute/docker/client.ts"]),
    });
    expect(backendLeaks(withLeak, names)).toContain(
      "src/execute/container/image.ts → src/execute/docker/client.ts",
    );
    // A module of the backend's own folder importing it is not a leak.
    const setup = graph.get("src/execute/docker/setup.ts")!;
    const inside = new Map(graph);
    inside.set(setup.path, {
      ...setup,
      allImports: new Set([...setup.allImports, "src/execute/docker/runtime.ts"]),
    });
    expect(backendLeaks(inside, names)).toEqual([]);
  });

  it("finds a backend folder that imports an attempt duty", () => {
    const ex = graph.get("src/execute/local/executor.ts")!;
    const importedNames = new Map(ex.importedNames);
    importedNames.set("src/execute/quota.ts", new Set(["watchQuota"]));
    const withBypass = new Map(graph);
    withBypass.set(ex.path, { ...ex, importedNames });
    expect(wrapperBypasses(withBypass, "local")).toEqual([
      "src/execute/local/executor.ts imports watchQuota from src/execute/quota.ts",
    ]);
    expect(wrapperBypasses(withBypass, "docker")).toEqual([]);
  });

  it("derives the config's executor names, blocks and JSON schema from the list", () => {
    // Each registered backend's part of the config is registered with config/executors.ts.
    expect(executorConfigs().map((p) => p.name)).toEqual(EXECUTOR_NAMES);
    const shape = (configSchema() as unknown as { in: { shape: Record<string, z.ZodType> } }).in;
    const executor = shape.shape.executor as unknown as { unwrap(): { options: string[] } };
    expect(executor.unwrap().options).toEqual(EXECUTOR_NAMES);
    const schema = jsonSchemas()["medalist.schema.json"] as { properties: Record<string, unknown> };
    for (const b of BACKENDS) if (b.configSchema) expect(schema.properties[b.name], b.name).toBeDefined();
    expect(JSON.stringify(schema.properties.executor)).toContain(JSON.stringify(EXECUTOR_NAMES).slice(1, -1));
  });

  it("checks only the chosen executor's needs, with the path of the missing field", () => {
    const base = { competitions: { split: "toy" }, agent: { image: "x" } };
    const r = configSchema().safeParse({ ...base, executor: "local" });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]).toMatchObject({ path: ["agent", "command"] });
    expect(configSchema().safeParse({ ...base, executor: "docker" }).success).toBe(true);
  });

  it("puts each executor's identity facts into run identities (docker: its network)", () => {
    const config = configSchema().parse({
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
      configSchema().parse({ competitions: { split: "toy" }, agent: { command: "x", image: "x" }, ...over });
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
