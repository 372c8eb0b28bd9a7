import { readdirSync, readFileSync, existsSync, statSync } from "node:fs";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { CompetitionSchema, type Competition } from "./schema.js";
import { formatZodError } from "../config/errors.js";
import { UserError } from "../errors.js";

export interface RegistryEntry {
  competition: Competition;
  /** Folder holding competition.json (and grader.json, leaderboard.csv when present). */
  dir: string;
}

export type Registry = Map<string, RegistryEntry>;

/** The bundled competitions/ folder: beside dist/ when bundled, at the repo root from src/. */
export function defaultRegistryDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const up of ["..", "../..", "../../.."]) {
    const dir = resolve(here, up, "competitions");
    if (existsSync(dir)) return dir;
  }
  throw new UserError("cannot find the bundled competitions/ folder");
}

/** Bounds on a registry: it is trusted, but validated. */
const MAX_COMPETITIONS = 10_000;
const MAX_ENTRY_BYTES = 1024 ** 2;

/** Reads every competitions/<id>/competition.json, validating each. */
export function loadRegistry(dir: string = defaultRegistryDir()): Registry {
  const registry: Registry = new Map();
  if (!existsSync(dir)) throw new UserError(`competitions folder not found: ${dir}`);
  for (const name of readdirSync(dir).sort()) {
    const file = join(dir, name, "competition.json");
    if (!existsSync(file)) continue;
    if (registry.size >= MAX_COMPETITIONS)
      throw new UserError(`${dir}: more than ${MAX_COMPETITIONS} competitions`);
    if (statSync(file).size > MAX_ENTRY_BYTES)
      throw new UserError(`${file}: larger than ${MAX_ENTRY_BYTES} bytes`);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, "utf8"));
    } catch (e) {
      throw new UserError(`${file}: not valid JSON (${(e as Error).message})`);
    }
    const parsed = CompetitionSchema.safeParse(raw);
    if (!parsed.success) throw new UserError(formatZodError(parsed.error, file));
    if (parsed.data.id !== name)
      throw new UserError(`${file}: id "${parsed.data.id}" does not match its folder "${name}"`);
    registry.set(name, { competition: parsed.data, dir: join(dir, name) });
  }
  return registry;
}

/** Competitions of a split. "lite" is "low"; "all" is every competition unless some declare "all". */
export function splitMembers(registry: Registry, split: string): string[] {
  const aliases: Record<string, string> = { lite: "low" };
  const name = aliases[split] ?? split;
  const declared = name === "all" && [...registry.values()].some((e) => e.competition.splits.includes("all"));
  const ids = [...registry.values()]
    .filter((e) => (name === "all" && !declared) || e.competition.splits.includes(name))
    .map((e) => e.competition.id);
  return ids;
}

export function knownSplits(registry: Registry): string[] {
  const s = new Set<string>(["all"]);
  for (const e of registry.values()) for (const x of e.competition.splits) s.add(x);
  if (s.has("low")) s.add("lite");
  return [...s].sort();
}

export interface Selection {
  split?: string;
  include?: string[];
  exclude?: string[];
  /** Leave out flagged members of the split (explicitly included ids are kept). */
  excludeFlagged?: boolean;
}

/** The closest known id, for "did you mean" hints. */
function closest(name: string, candidates: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const cl = c.toLowerCase();
    const score = cl.startsWith(lower) || lower.startsWith(cl) ? 0 : editDistance(lower, cl);
    if (score < bestScore) [best, bestScore] = [c, score];
  }
  return best !== undefined && bestScore <= Math.max(1, Math.floor(name.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/** "unknown competition "x" in WHERE (did you mean "y"?); run `medalist competitions` …", one sentence. */
export function unknownCompetition(registry: Registry, id: string, what: string): UserError {
  const hint = closest(id, registry.keys());
  return new UserError(
    `unknown competition "${id}" in ${what}${hint ? ` (did you mean "${hint}"?)` : ""}; ` +
      "run `medalist competitions` to list them",
  );
}

function checkIds(registry: Registry, ids: string[], what: string): void {
  for (const id of ids) if (!registry.has(id)) throw unknownCompetition(registry, id, what);
}

/**
 * The competitions a suite runs, in registry order then include order:
 * members of the split, plus `include`, minus `exclude`, minus flagged split members when
 * `excludeFlagged`. Unknown splits or ids are user errors.
 */
export function selectCompetitions(registry: Registry, sel: Selection): string[] {
  const include = sel.include ?? [];
  const exclude = sel.exclude ?? [];
  checkIds(registry, include, "competitions.include");
  checkIds(registry, exclude, "competitions.exclude");
  let members: string[] = [];
  if (sel.split !== undefined) {
    const splits = knownSplits(registry);
    if (!splits.includes(sel.split)) {
      const hint = closest(sel.split, splits);
      throw new UserError(
        `unknown split "${sel.split}"${hint ? ` (did you mean "${hint}"?)` : ""}; known splits: ${splits.join(", ")}`,
      );
    }
    members = splitMembers(registry, sel.split);
    if (sel.excludeFlagged)
      members = members.filter((id) => registry.get(id)!.competition.flags.length === 0);
  }
  const out = [...new Set([...members, ...include])].filter((id) => !exclude.includes(id));
  if (out.length === 0) {
    throw new UserError(
      `no competitions selected (split ${sel.split ?? "none"}, ${include.length} included, ` +
        `${exclude.length} excluded${sel.excludeFlagged ? ", flagged ones left out" : ""})`,
    );
  }
  return out;
}
