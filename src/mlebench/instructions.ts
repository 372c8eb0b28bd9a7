import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { UserError } from "../errors.js";
import { CONTAINER_PATHS } from "../execute/contract.js";
import type { ContractPaths } from "../execute/types.js";
import type { RunSpec } from "../execute/types.js";

/** The upstream texts Medalist can give the agent instead of its own. */
export type UpstreamInstructions = "mlebench" | "mlebench-obfuscated";

/** The upstream commit that last changed both files; the texts are fetched from it, never copied here. */
export const MLEBENCH_INSTRUCTIONS_COMMIT = "a0e3b23ac1cdab36de3ee903104f119f05880d6b";
export const MLEBENCH_RAW_URL = `https://raw.githubusercontent.com/openai/mle-bench/${MLEBENCH_INSTRUCTIONS_COMMIT}`;

/** Each text's file in an MLE-bench checkout and its SHA-256 at the pinned commit. */
export const INSTRUCTION_PINS: Record<UpstreamInstructions, { file: string; sha256: string }> = {
  mlebench: {
    file: "environment/instructions.txt",
    sha256: "7f6bfde87ed88d53afef1688dd9206753982baf4a4038e87d6069ab57224ec7a",
  },
  "mlebench-obfuscated": {
    file: "environment/instructions_obfuscated.txt",
    sha256: "cbeb320b53cef0fe1040608183cfc9001b0fe0ca593f5e819b25317f4282ffe3",
  },
};

/** Largest text accepted (upstream's are under 3 kB). */
const MAX_BYTES = 64 * 1024;

export interface LoadedInstructions {
  text: string;
  /** Where it came from: a file path or a URL (a cached copy names its cache file). */
  source: string;
  sha256: string;
  /** False for a checkout whose text differs from the pinned upstream one (a fork): used as it is. */
  pinned: boolean;
}

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

/** Reads the text from a checkout of MLE-bench (<dir>/environment/instructions*.txt). */
export function readCheckoutInstructions(
  checkoutDir: string,
  kind: UpstreamInstructions,
): LoadedInstructions {
  const file = join(checkoutDir, INSTRUCTION_PINS[kind].file);
  if (!existsSync(file))
    throw new UserError(
      `instructions: ${file} does not exist; mlebenchDir (or agent.mlebench.agentsDir's parent) must be a checkout of github.com/openai/mle-bench`,
    );
  const body = readFileSync(file);
  if (body.length > MAX_BYTES) throw new UserError(`instructions: ${file} is larger than ${MAX_BYTES} bytes`);
  const hash = sha256(body);
  return {
    text: body.toString("utf8"),
    source: file,
    sha256: hash,
    pinned: hash === INSTRUCTION_PINS[kind].sha256,
  };
}

/** Medalist's cache of verified upstream texts: $XDG_CACHE_HOME or ~/.cache, then medalist/mlebench. */
export function instructionsCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), ".cache"), "medalist", "mlebench");
}

export interface FetchOptions {
  /** Base URL of upstream's files (default: raw.githubusercontent.com at the pinned commit). */
  baseUrl?: string;
  cacheDir?: string;
  /** The pins to verify against (tests serve their own text; default INSTRUCTION_PINS). */
  pins?: Record<UpstreamInstructions, { file: string; sha256: string }>;
}

/** Fetches the pinned text (or reads the verified cached copy); a text with another SHA-256 is refused. */
export async function fetchPinnedInstructions(
  kind: UpstreamInstructions,
  opts: FetchOptions = {},
): Promise<LoadedInstructions> {
  const pin = (opts.pins ?? INSTRUCTION_PINS)[kind];
  const cached = join(opts.cacheDir ?? instructionsCacheDir(), `${pin.sha256}.txt`);
  if (existsSync(cached)) {
    const body = readFileSync(cached);
    if (sha256(body) === pin.sha256)
      return { text: body.toString("utf8"), source: cached, sha256: pin.sha256, pinned: true };
  }
  const url = `${(opts.baseUrl ?? MLEBENCH_RAW_URL).replace(/\/+$/, "")}/${pin.file}`;
  let body: Buffer;
  try {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    body = Buffer.from(await res.arrayBuffer());
  } catch (e) {
    throw new UserError(
      `instructions: could not fetch ${url} (${(e as Error).message}); set mlebenchDir to a checkout of MLE-bench instead`,
      1,
    );
  }
  const got = sha256(body);
  if (got !== pin.sha256)
    throw new UserError(`instructions: ${url} has SHA-256 ${got}, not the pinned ${pin.sha256}; not used`, 1);
  mkdirSync(dirname(cached), { recursive: true });
  writeFileSync(`${cached}.tmp-${process.pid}`, body);
  renameSync(`${cached}.tmp-${process.pid}`, cached);
  return { text: body.toString("utf8"), source: url, sha256: got, pinned: true };
}

/** The MLE-bench checkout named by the config: mlebenchDir, else the folder above agent.mlebench.agentsDir. */
export function mlebenchCheckout(
  config: { mlebenchDir?: string },
  agent: object,
  baseDir: string,
): string | null {
  if (config.mlebenchDir) return resolve(baseDir, config.mlebenchDir);
  const agentsDir = mlebenchAgent(agent)?.agentsDir;
  return typeof agentsDir === "string" ? dirname(resolve(baseDir, agentsDir)) : null;
}

/** The agent's `mlebench` block (an agent packaged for MLE-bench), when it has one. */
function mlebenchAgent(agent: object): Record<string, unknown> | null {
  const block = (agent as { mlebench?: unknown }).mlebench;
  return block && typeof block === "object" ? (block as Record<string, unknown>) : null;
}

/** A run spec that only serves to ask an executor which paths it gives the agent. */
function probeSpec(): RunSpec {
  return {
    runId: "probe.s0",
    suiteId: "probe",
    competitionId: "probe",
    seed: 0,
    publicDir: "/probe/public",
    runDir: "/probe/run",
    timeLimitSecs: 1,
    env: {},
    gpus: [],
  };
}

export interface SuiteInstructionsInput {
  config: { instructions: "medalist" | UpstreamInstructions; mlebenchDir?: string };
  agent: object;
  baseDir: string;
  executor: { name: string; agentPaths?(spec: RunSpec): ContractPaths };
  log?: (line: string) => void;
  fetch?: FetchOptions;
}

/**
 * The upstream text every run of the suite gets, or null for Medalist's own (written per run).
 * Upstream's text names MLE-bench's container paths and its validation server on localhost:5000:
 * refused unless the executor gives exactly those paths and the agent is packaged for MLE-bench
 * (agent.mlebench, whose runs answer localhost:5000/validate).
 */
export async function suiteInstructions(i: SuiteInstructionsInput): Promise<LoadedInstructions | null> {
  const kind = i.config.instructions;
  if (kind === "medalist") return null;
  const paths = i.executor.agentPaths?.(probeSpec()) ?? CONTAINER_PATHS;
  const differ = (Object.keys(CONTAINER_PATHS) as (keyof ContractPaths)[]).filter(
    (k) => paths[k] !== CONTAINER_PATHS[k],
  );
  if (differ.length > 0)
    throw new UserError(
      `instructions: ${kind} names MLE-bench's container paths (/home/data, /home/submission, …), which the ${i.executor.name} executor does not give the agent; use instructions: medalist, or an executor that runs the agent in a container`,
    );
  if (!mlebenchAgent(i.agent))
    throw new UserError(
      `instructions: ${kind} names the validation server at localhost:5000 and /home/validate_submission.sh, which only an agent packaged for MLE-bench (agent.mlebench) is given; use instructions: medalist for this agent`,
    );
  const checkout = mlebenchCheckout(i.config, i.agent, i.baseDir);
  const loaded = checkout
    ? readCheckoutInstructions(checkout, kind)
    : await fetchPinnedInstructions(kind, i.fetch);
  i.log?.(
    `instructions: MLE-bench's ${INSTRUCTION_PINS[kind].file} from ${loaded.source}` +
      (loaded.pinned
        ? " (the pinned upstream text)"
        : ` (SHA-256 ${loaded.sha256}, not upstream's pinned text)`),
  );
  return loaded;
}
