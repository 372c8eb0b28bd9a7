import { createHash } from "node:crypto";

/**
 * A run's identity: a fingerprint of everything that can change its outcome. A finished run is
 * reused only when its identity matches; each part is hashed on its own so that a re-run can say
 * what changed.
 */
export const IDENTITY_PARTS = ["agent", "command", "env", "limits", "data", "grader"] as const;
export type IdentityPart = (typeof IDENTITY_PARTS)[number];

export interface RunIdentity {
  /** Hash over all parts. */
  hash: string;
  parts: Record<IdentityPart, string>;
}

/** What the identity is computed from. Values are hashed; nothing here is stored in clear. */
export interface IdentityFacts {
  /** The agent's code: "image <digest>" (Docker) or "files <content hash>" (local). */
  agent: string;
  /** The command run (string or argv), or null for the image's own command. */
  command: string | string[] | null;
  /** Plain variables given to the agent (values are hashed). */
  env: Record<string, string>;
  /** Names of the secrets given to the agent; their values are never part of the identity. */
  secrets: string[];
  /** Resource and time limits, executor and network: whatever bounds the run. */
  limits: unknown;
  /** The competition's prepared-data fingerprint (see dataFingerprint). */
  data: string;
  /** Grader version and any external grader command. */
  grader: unknown;
}

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

/** JSON with object keys sorted, so equal values hash equally. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v ?? null);
}

const short = (v: unknown) => sha(canonical(v)).slice(0, 16);

export function runIdentity(f: IdentityFacts): RunIdentity {
  const env = Object.fromEntries(Object.entries(f.env).map(([k, v]) => [k, sha(v)]));
  const parts: Record<IdentityPart, string> = {
    agent: short(f.agent),
    command: short(f.command),
    env: short({ env, secrets: [...new Set(f.secrets)].sort() }),
    limits: short(f.limits),
    data: short(f.data),
    grader: short(f.grader),
  };
  return { hash: short({ v: 1, parts }), parts };
}

/** The parts that differ. */
export function changedParts(before: RunIdentity, now: RunIdentity): IdentityPart[] {
  return IDENTITY_PARTS.filter((p) => before.parts[p] !== now.parts[p]);
}

const PART_TEXT: Record<IdentityPart, string> = {
  agent: "the agent's code",
  command: "the command",
  env: "the environment",
  limits: "the limits",
  data: "the competition's data",
  grader: "the grader",
};

/** Why an earlier run's identity does not match: "the agent's code and the environment changed". */
export function describeChange(before: RunIdentity | null | undefined, now: RunIdentity): string {
  if (!before) return "the earlier run recorded no identity";
  const parts = changedParts(before, now);
  if (parts.length === 0) return "nothing changed";
  const names = parts.map((p) => PART_TEXT[p]);
  const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : names[0];
  return `${list} changed`;
}

/**
 * The prepared data's fingerprint from its manifest's file list (path, size, MD5): re-preparing
 * the same data gives the same fingerprint; other data gives another.
 */
export function dataFingerprint(files: Record<string, { size: number; md5: string }>): string {
  const list = Object.keys(files)
    .sort()
    .map((p) => [p, files[p].size, files[p].md5]);
  return short(list);
}
