import { parseArgs, type ParseArgsConfig } from "node:util";
import { UserError } from "../errors.js";
import { closest } from "../config/errors.js";
import { MAX_STAGES } from "../plan/stages.js";
import { stageNumber } from "../session/rules.js";

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
    const err = e as NodeJS.ErrnoException;
    const unknown = /^Unknown option '(--?[^']+)'/.exec(err.message);
    if (err.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && unknown) {
      const near = closest(unknown[1].replace(/^-+/, ""), Object.keys(options));
      throw new UserError(
        `unknown option ${unknown[1]}${near ? `; did you mean --${near}?` : ""} (see --help)`,
      );
    }
    throw new UserError(`${err.message.replace(/\. To specify a positional.*$/s, "")} (see --help)`);
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

/** A stage number of the staged workflow (1..MAX_STAGES), as `flag` gave it. */
export function stageOption(text: string, flag: string): number {
  const n = stageNumber(text);
  if (n === null)
    throw new UserError(
      `${flag} expects a whole number from 1 to ${MAX_STAGES}, got ${JSON.stringify(text)}`,
    );
  return n;
}
