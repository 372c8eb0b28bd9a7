import { VERSION } from "../version.js";
import { UserError, type Command } from "./command.js";
import { commands } from "./commands/index.js";
import { closest } from "../config/errors.js";

function overview(all: Command[]): string {
  const width = Math.max(...all.map((c) => c.name.length), 8);
  return [
    `medalist ${VERSION} — regression-test ML-engineering agents, graded as MLE-bench does`,
    "",
    "Usage: medalist <command> [options]",
    "",
    "Commands:",
    ...all.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Run `medalist <command> --help` for a command's options.",
  ].join("\n");
}

/** CLI entry: returns the exit code, never throws. */
export async function main(argv: string[], all: Command[] = commands): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    console.log(overview(all));
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-v") {
    console.log(VERSION);
    return 0;
  }
  const cmd = all.find((c) => c.name === name);
  if (!cmd) {
    const near = closest(
      name,
      all.map((c) => c.name),
    );
    console.error(
      `medalist: unknown command "${name}"${near ? `; did you mean "${near}"?` : "."} Commands: ${all.map((c) => c.name).join(", ")}`,
    );
    return 2;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    console.log(cmd.usage);
    return 0;
  }
  try {
    return await cmd.run(rest);
  } catch (e) {
    if (e instanceof UserError) {
      console.error(`medalist ${name}: ${e.message}`);
      return e.exitCode;
    }
    const err = e as Error;
    console.error(`medalist ${name}: unexpected error: ${err?.message ?? String(e)}`);
    if (process.env.MEDALIST_DEBUG) console.error(err?.stack);
    return 1;
  }
}
