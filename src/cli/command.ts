import { parseArgs, type ParseArgsConfig } from "node:util";
import { UserError } from "../errors.js";

export { UserError };

export interface Command {
  name: string;
  summary: string;
  /** Full help text shown by `medalist <name> --help`. */
  usage: string;
  run(argv: string[]): Promise<number>;
}

type Options = NonNullable<ParseArgsConfig["options"]>;

/** parseArgs with user-facing errors instead of exceptions with stacks. */
export function parseCommandArgs<O extends Options>(argv: string[], options: O, allowPositionals = false) {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (e) {
    throw new UserError(`${(e as Error).message.replace(/\. To specify a positional.*$/s, "")} (see --help)`);
  }
}

export function requireOption(value: string | undefined, flag: string): string {
  if (value === undefined || value === "") throw new UserError(`missing ${flag} (see --help)`);
  return value;
}

/** A number option; "NaN" is accepted when allowNaN. */
export function numberOption(value: string, flag: string, allowNaN = false): number {
  if (allowNaN && /^nan$/i.test(value.trim())) return NaN;
  const n = Number(value);
  if (value.trim() === "" || Number.isNaN(n))
    throw new UserError(`${flag} expects a number, got ${JSON.stringify(value)}`);
  return n;
}
