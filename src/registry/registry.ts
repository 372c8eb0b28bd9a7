import { readdirSync, readFileSync, existsSync } from "node:fs";
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

/** Reads every competitions/<id>/competition.json, validating each. */
export function loadRegistry(dir: string = defaultRegistryDir()): Registry {
  const registry: Registry = new Map();
  if (!existsSync(dir)) throw new UserError(`competitions folder not found: ${dir}`);
  for (const name of readdirSync(dir).sort()) {
    const file = join(dir, name, "competition.json");
    if (!existsSync(file)) continue;
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, "utf8"));
    } catch (e) {
      throw new UserError(`${file}: not valid JSON (${(e as Error).message})`);
    }
    const parsed = CompetitionSchema.safeParse(raw);
    if (!parsed.success) throw new UserError(formatZodError(parsed.error, file));
    if (parsed.data.id !== name) throw new UserError(`${file}: id "${parsed.data.id}" does not match its folder "${name}"`);
    registry.set(name, { competition: parsed.data, dir: join(dir, name) });
  }
  return registry;
}

/** Competitions of a split (a split named "all" is every competition). */
export function splitMembers(registry: Registry, split: string): string[] {
  const aliases: Record<string, string> = { lite: "low" };
  const name = aliases[split] ?? split;
  const ids = [...registry.values()]
    .filter((e) => name === "all" || e.competition.splits.includes(name))
    .map((e) => e.competition.id);
  return ids;
}

export function knownSplits(registry: Registry): string[] {
  const s = new Set<string>(["all"]);
  for (const e of registry.values()) for (const x of e.competition.splits) s.add(x);
  if (s.has("low")) s.add("lite");
  return [...s].sort();
}
