// An MLE-bench agent folder (upstream's agents/<id>/config.yaml) read as upstream's registry reads
// it: the entry named by the agent's id, in whichever config.yaml under the agents folder holds it.
// Pure: parsing and checking text; the file system is in agent-folder.ts.
import { posix } from "node:path";
import { parseDocument } from "yaml";
import { z } from "zod";
import { runnerSecretProblem } from "../config/parts.js";
import { pythonFloatRepr } from "../grade/pystr.js";
import { UserError } from "../errors.js";

/** Upstream's build arguments (agents/.shared_env): where the agent's folders are in its container. */
export const MLEBENCH_BUILD_ARGS = {
  SUBMISSION_DIR: "/home/submission",
  LOGS_DIR: "/home/logs",
  CODE_DIR: "/home/code",
  AGENT_DIR: "/home/agent",
} as const;

/** What upstream's agents/run.py runs: `bash $AGENT_DIR/start.sh` whatever `start` names. */
export const MLEBENCH_START = `${MLEBENCH_BUILD_ARGS.AGENT_DIR}/start.sh`;

const KNOWN_KEYS = ["start", "dockerfile", "kwargs_type", "kwargs", "env_vars", "privileged"];

/** A YAML scalar as PyYAML gives it (integers as bigint, so 1 and 1.0 stay apart as in Python). */
const scalar = z.union([z.string(), z.bigint(), z.number(), z.boolean(), z.null()], {
  error: "expected a single value (text, number or boolean), not a list or mapping",
});

const EntrySchema = z.strictObject({
  start: z.string().min(1),
  dockerfile: z.string().min(1),
  kwargs_type: z.enum(["argparse", "omegaconf"]).nullable().optional(),
  kwargs: z.record(z.string().min(1), scalar).nullable().optional(),
  env_vars: z
    .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected an environment variable name"), scalar)
    .nullable()
    .optional(),
  privileged: z.boolean().optional(),
});

/** One MLE-bench agent, resolved: what Medalist builds and runs. Paths are relative to the agents folder. */
export interface MlebenchAgent {
  id: string;
  /** The config.yaml that holds the entry (relative to the agents folder, "/" separators). */
  configFile: string;
  /** The build context: the folder of the Dockerfile, as upstream's `docker build agents/<name>/`. */
  context: string;
  /** The Dockerfile's name inside the context. */
  dockerfile: string;
  /** The start script upstream checks exists (it runs MLEBENCH_START). */
  start: string;
  /** The container's command: bash start.sh and the kwargs as upstream passes them. */
  command: string[];
  /** The entry's plain env_vars, as text. */
  env: Record<string, string>;
  /** env_vars given as `${{ secrets.NAME }}`: variable → runner variable (always the same name). */
  secrets: string[];
}

/** Python's str() of a YAML scalar: what upstream puts on the command line and in the environment. */
export function pythonStr(v: z.output<typeof scalar>): string {
  if (v === null) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return pythonFloatRepr(v);
  return v;
}

/** `${{ secrets.NAME }}` → NAME (upstream's pattern), or null for any other value. */
export function secretRef(v: unknown): string | null {
  if (typeof v !== "string") return null;
  const m = /^\$\{\{\s*secrets\.(\w+)\s*\}\}$/.exec(v.trim());
  return m ? m[1] : null;
}

/**
 * Parses one config.yaml as PyYAML's safe_load does (YAML 1.1: anchors, `<<` merge keys, yes/no
 * booleans, integers kept apart from floats). A syntax error is a UserError naming the file.
 */
export function parseAgentsYaml(text: string, where: string): unknown {
  const doc = parseDocument(text, { version: "1.1", merge: true, intAsBigInt: true, uniqueKeys: false });
  if (doc.errors.length > 0)
    throw new UserError(`${where}: cannot parse: ${doc.errors[0].message.split("\n")[0]}`);
  return doc.toJS({ maxAliasCount: 1000 });
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === "object" && !Array.isArray(v);

/** Whether a parsed config.yaml has an entry for `id`. */
export function hasEntry(doc: unknown, id: string): boolean {
  return isObject(doc) && Object.prototype.hasOwnProperty.call(doc, id);
}

/** A path from the config (relative to the agents folder), normalised; a UserError when it leaves the folder. */
function inside(rel: string, field: string): string {
  const p = posix.normalize(rel.replace(/\\/g, "/"));
  if (posix.isAbsolute(p) || p === ".." || p.startsWith("../"))
    throw new UserError(
      `${field}: ${rel} is outside the agents folder; name a file inside it (e.g. <agent>/start.sh)`,
    );
  return p;
}

/**
 * The agent `id` from a parsed config.yaml (`configFile`, relative to the agents folder), checked:
 * each bad field with its path, `privileged` refused, kwargs and env_vars as upstream passes them.
 */
export function mlebenchAgentFrom(doc: unknown, id: string, configFile: string): MlebenchAgent {
  const where = `${configFile}: ${id}`;
  const raw = isObject(doc) ? doc[id] : undefined;
  if (!isObject(raw)) throw new UserError(`${where}: expected a mapping with start and dockerfile`);
  const unknown = Object.keys(raw).filter((k) => !KNOWN_KEYS.includes(k));
  if (unknown.length > 0)
    throw new UserError(
      `${where}: unknown field(s) ${unknown.map((k) => `"${k}"`).join(", ")}; an MLE-bench agent entry has ${KNOWN_KEYS.join(", ")}`,
    );
  if (raw.privileged === true)
    throw new UserError(
      `${where}.privileged: Medalist never runs privileged containers (root in a privileged container is root on the runner); ` +
        "remove privileged from the entry, and for containers inside the agent use docker.runtime: sysbox-runc",
    );
  const parsed = EntrySchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${[where, ...i.path.map(String)].join(".")}: ${i.message}`);
    throw new UserError(lines.join("; "));
  }
  const e = parsed.data;
  const kwargs = e.kwargs ?? {};
  if (Object.keys(kwargs).length > 0 && !e.kwargs_type)
    throw new UserError(
      `${where}.kwargs_type: kwargs need kwargs_type (argparse or omegaconf), as upstream asserts`,
    );
  const args: string[] = [];
  for (const [k, v] of Object.entries(kwargs)) {
    if (secretRef(v) !== null)
      throw new UserError(
        `${where}.kwargs.${k}: a secret on the command line is visible to every process on the runner; pass it in env_vars instead`,
      );
    if (e.kwargs_type === "argparse") args.push(`--${k}`, pythonStr(v));
    else args.push(`${k}=${pythonStr(v)}`);
  }
  const env: Record<string, string> = {};
  const secrets: string[] = [];
  for (const [k, v] of Object.entries(e.env_vars ?? {})) {
    const name = secretRef(v);
    if (name === null) {
      env[k] = pythonStr(v);
      continue;
    }
    const problem = runnerSecretProblem(name);
    if (problem) throw new UserError(`${where}.env_vars.${k}: ${problem}`);
    if (name !== k)
      throw new UserError(
        `${where}.env_vars.${k}: Medalist passes a secret under its own name; write ${name}: \${{ secrets.${name} }} (or store the secret as ${k})`,
      );
    secrets.push(name);
  }
  const dockerfile = inside(e.dockerfile, `${where}.dockerfile`);
  const start = inside(e.start, `${where}.start`);
  return {
    id,
    configFile,
    context: posix.dirname(dockerfile),
    dockerfile: posix.basename(dockerfile),
    start,
    command: ["bash", MLEBENCH_START, ...args],
    env,
    secrets,
  };
}
