// Seals: the runner's proof that it wrote a run record (run.json) or a shard's results.json. A
// record's identity hash is computable by anyone, so a record alone proves nothing: a finished run is
// reused only when its seal, an HMAC-SHA256 under a key that never enters the checkout or the agent's
// sandbox, matches the record and the submission it was graded on (docs/security.md, "Run records").
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  writeSync,
} from "node:fs";
import os from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { UserError } from "../errors.js";
import { openInside, readInside } from "../util/runfiles.js";
import { writeAtomic } from "../util/atomic.js";

/** The seal beside a run's run.json. */
export const RUN_SEAL = "run.seal";
/** The seal beside a shard's results.json (`results.json` → `results.seal`). */
export const RESULTS_SEAL = "results.seal";

/** Largest run.json or results.json a seal is checked over. */
const MAX_RECORD_BYTES = 256 * 1024 ** 2;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

export interface RunKey {
  key: Buffer;
  /** Where it came from, for messages: "MEDALIST_RUN_KEY" or the key file's path. */
  source: string;
}

/**
 * The default key file: in the runner's tool cache (the local sandbox covers its medalist/ folder),
 * else in the home folder (never mounted in a sandbox). Outside any checkout either way.
 */
export function defaultRunKeyFile(env: NodeJS.ProcessEnv = process.env): string {
  const tools = env.RUNNER_TOOL_CACHE;
  if (tools && isAbsolute(tools)) return join(tools, "medalist", "run-key");
  return join(env.HOME || os.homedir(), ".medalist", "run-key");
}

/**
 * This runner's key: the secret in MEDALIST_RUN_KEY (shards on several runners share it), else the
 * file MEDALIST_RUN_KEY_FILE or the default one, created with 32 random bytes (mode 0600) when
 * missing. A key file that others can read, a link or another user's file is refused.
 */
export function loadRunKey(env: NodeJS.ProcessEnv = process.env): RunKey {
  const secret = env.MEDALIST_RUN_KEY;
  if (secret !== undefined && secret !== "") {
    if (secret.length < 32)
      throw new UserError(
        "MEDALIST_RUN_KEY: expected at least 32 characters (e.g. the output of `openssl rand -hex 32`)",
      );
    return { key: Buffer.from(secret, "utf8"), source: "MEDALIST_RUN_KEY" };
  }
  const file = env.MEDALIST_RUN_KEY_FILE || defaultRunKeyFile(env);
  return { key: readOrCreateKey(file), source: file };
}

function readOrCreateKey(file: string): Buffer {
  const st = lstatSync(file, { throwIfNoEntry: false });
  if (!st) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    let fd: number;
    try {
      fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") return readOrCreateKey(file); // made meanwhile
      throw new UserError(`cannot create the run key ${file}: ${(e as Error).message}`);
    }
    try {
      const key = Buffer.from(randomBytes(32).toString("hex"));
      writeSync(fd, key);
      return key;
    } finally {
      closeSync(fd);
    }
  }
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | NOFOLLOW | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    throw new UserError(
      `cannot read the run key ${file}: ${(e as NodeJS.ErrnoException).code === "ELOOP" ? "it is a symbolic link" : (e as Error).message}`,
    );
  }
  try {
    const fst = fstatSync(fd);
    if (!fst.isFile()) throw new UserError(`the run key ${file} is not a regular file`);
    if (typeof process.getuid === "function" && fst.uid !== process.getuid())
      throw new UserError(`the run key ${file} belongs to another user (uid ${fst.uid})`);
    if ((fst.mode & 0o077) !== 0)
      throw new UserError(
        `the run key ${file} can be read by other users (mode ${(fst.mode & 0o777).toString(8)}): run chmod 600 on it`,
      );
    if (fst.size < 32 || fst.size > 4096)
      throw new UserError(`the run key ${file} holds ${fst.size} bytes: expected 32 to 4096`);
    const buf = Buffer.alloc(fst.size);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest("hex");

/** SHA-256 of a run's submission, read without following links; "none" when there is no regular file. */
function submissionDigest(runDir: string): string {
  const opened = openInside(runDir, "submission/submission.csv", Number.MAX_SAFE_INTEGER);
  if (!opened.ok) return "none";
  try {
    const hash = createHash("sha256");
    const buf = Buffer.allocUnsafe(1024 * 1024);
    for (let pos = 0; ;) {
      const n = readSync(opened.fd, buf, 0, buf.length, pos);
      if (n === 0) break;
      hash.update(buf.subarray(0, n));
      pos += n;
    }
    return hash.digest("hex");
  } finally {
    closeSync(opened.fd);
  }
}

const mac = (key: Buffer, lines: string[]) =>
  createHmac("sha256", key).update(lines.join("\n")).digest("hex");

function runMac(key: Buffer, runDir: string, runId: string, record: Buffer): string {
  return mac(key, ["medalist-run-seal-v1", runId, sha256(record), submissionDigest(runDir)]);
}

function resultsMac(key: Buffer, record: Buffer, context: string): string {
  return mac(key, ["medalist-results-seal-v1", context, sha256(record)]);
}

const sealText = (hmac: string) => JSON.stringify({ version: 1, hmac }) + "\n";

/** The run.json (or results.json) bytes and the hmac its seal claims; a problem otherwise. */
function readSealed(dir: string, record: string, seal: string): { record: Buffer; hmac: string } | string {
  const r = readInside(dir, record, MAX_RECORD_BYTES);
  if (!r.ok) return r.missing ? `no ${record}` : `${record} unreadable (${r.problem})`;
  const s = readInside(dir, seal, 4096);
  if (!s.ok) return s.missing ? `no seal (${seal})` : `its seal is unreadable (${s.problem})`;
  try {
    const parsed = JSON.parse(s.data.toString("utf8")) as { version?: unknown; hmac?: unknown };
    if (parsed.version === 1 && typeof parsed.hmac === "string" && /^[0-9a-f]{64}$/.test(parsed.hmac))
      return { record: r.data, hmac: parsed.hmac };
  } catch {
    // fall through
  }
  return "its seal is not a Medalist seal";
}

const same = (a: string, b: string) => timingSafeEqual(Buffer.from(a, "hex"), Buffer.from(b, "hex"));

/** Seals a run's run.json as written (and its submission); call right after saveRun. */
export function sealRun(runDir: string, runId: string, key: Buffer): void {
  const r = readInside(runDir, "run.json", MAX_RECORD_BYTES);
  if (!r.ok) throw new Error(`cannot seal ${join(runDir, "run.json")}: ${r.problem}`);
  writeAtomic(join(runDir, RUN_SEAL), sealText(runMac(key, runDir, runId, r.data)));
}

/** null when the run's record carries this key's seal for `runId`; else why not, in a few words. */
export function runSealProblem(runDir: string, runId: string, key: Buffer): string | null {
  const got = readSealed(runDir, "run.json", RUN_SEAL);
  if (typeof got === "string") return got;
  return same(got.hmac, runMac(key, runDir, runId, got.record))
    ? null
    : "its seal does not match (another key, or the record or submission changed)";
}

/** Seals a results.json (a shard's) for `context` (the workflow run it belongs to). */
export function sealResults(resultsFile: string, key: Buffer, context: string): void {
  const dir = dirname(resultsFile);
  const r = readInside(dir, "results.json", MAX_RECORD_BYTES);
  if (!r.ok) throw new Error(`cannot seal ${resultsFile}: ${r.problem}`);
  writeAtomic(join(dir, RESULTS_SEAL), sealText(resultsMac(key, r.data, context)));
}

/** null when dir/results.json carries this key's seal for `context`; else why not. */
export function resultsSealProblem(dir: string, key: Buffer, context: string): string | null {
  const got = readSealed(dir, "results.json", RESULTS_SEAL);
  if (typeof got === "string") return got;
  return same(got.hmac, resultsMac(key, got.record, context))
    ? null
    : "its seal does not match (another key or workflow run, or the results changed)";
}
