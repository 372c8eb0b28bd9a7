import { readFileSync, statSync } from "node:fs";
import { dirname, resolve, extname } from "node:path";
import { parse as parseYaml, type YAMLParseError } from "yaml";
import { configSchema, type Config } from "./schema.js";
import { formatZodError } from "./errors.js";
import { UserError } from "../errors.js";

export interface LoadedConfig {
  config: Config;
  /** Folder of the config file: relative paths in it resolve against this. */
  baseDir: string;
  path: string;
}

/** Where a YAML or JSON syntax error is, 1-based, when the parser says. */
function errorLine(e: unknown, text: string): number | undefined {
  const pos = (e as YAMLParseError).linePos?.[0];
  if (pos) return pos.line;
  const m = /at position (\d+)/.exec((e as Error).message);
  return m ? text.slice(0, Number(m[1])).split("\n").length : undefined;
}

/** A syntax error in one sentence: the line, what is wrong, and the offending text. */
function syntaxError(e: unknown, text: string, path: string): UserError {
  const first = (e as Error).message.split("\n")[0];
  const raw = first.replace(/ at line \d+, column \d+:?$/, "").replace(/:$/, "");
  const what = raw.charAt(0).toLowerCase() + raw.slice(1);
  const line = errorLine(e, text);
  const col = (e as YAMLParseError).linePos?.[0]?.col;
  const source = line !== undefined ? text.split("\n")[line - 1]?.trimEnd() : undefined;
  const at = line === undefined ? "" : `line ${line}${col !== undefined ? `, column ${col}` : ""}: `;
  const shown = source
    ? `: ${JSON.stringify(source.length > 80 ? `${source.slice(0, 77)}...` : source)}`
    : "";
  return new UserError(`${path}: cannot parse, ${at}${what}${shown}`);
}

/** Parses YAML or JSON text (JSON is YAML, but JSON files get JSON's error messages). */
export function parseConfigText(text: string, path: string): unknown {
  try {
    return extname(path).toLowerCase() === ".json" ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw syntaxError(e, text, path);
  }
}

/** Validates raw config data; a bad field is reported with its path. */
export function validateConfig(raw: unknown, where: string): Config {
  if (raw === null || raw === undefined) throw new UserError(`${where}: the file is empty`);
  const schema = configSchema();
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new UserError(formatZodError(parsed.error, where, { schema, input: raw }));
  return parsed.data;
}

/** Largest config file read (a YAML file this big is a mistake or an attack: parsing it takes minutes). */
export const MAX_CONFIG_BYTES = 1024 ** 2;

export function loadConfig(path: string): LoadedConfig {
  const abs = resolve(path);
  let text: string;
  try {
    const size = statSync(abs).size;
    if (size > MAX_CONFIG_BYTES)
      throw new UserError(`${path}: the config file is ${size} bytes, larger than ${MAX_CONFIG_BYTES} bytes`);
    text = readFileSync(abs, "utf8");
  } catch (e) {
    if (e instanceof UserError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(
      code === "ENOENT" ? `config file not found: ${path}` : `cannot read ${path}: ${(e as Error).message}`,
    );
  }
  return { config: validateConfig(parseConfigText(text, abs), path), baseDir: dirname(abs), path: abs };
}
