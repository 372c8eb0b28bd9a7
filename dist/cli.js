#!/usr/bin/env node
import { createRequire as __medalistRequire } from 'node:module'; const require = __medalistRequire(import.meta.url);

// src/version.ts
var VERSION = true ? "0.1.0" : "0.0.0-dev";

// src/errors.ts
var UserError = class extends Error {
  constructor(message, exitCode = 2) {
    super(message);
    this.exitCode = exitCode;
    this.name = "UserError";
  }
  exitCode;
};

// src/cli/commands/index.ts
var commands = [];

// src/cli/main.ts
function overview(all) {
  const width = Math.max(...all.map((c) => c.name.length), 8);
  return [
    `medalist ${VERSION} \u2014 regression-test ML-engineering agents, graded as MLE-bench does`,
    "",
    "Usage: medalist <command> [options]",
    "",
    "Commands:",
    ...all.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Run `medalist <command> --help` for a command's options."
  ].join("\n");
}
async function main(argv, all = commands) {
  const [name, ...rest] = argv;
  if (name === void 0 || name === "--help" || name === "-h" || name === "help") {
    console.log(overview(all));
    return name === void 0 ? 2 : 0;
  }
  if (name === "--version" || name === "-v") {
    console.log(VERSION);
    return 0;
  }
  const cmd = all.find((c) => c.name === name);
  if (!cmd) {
    console.error(`medalist: unknown command "${name}". Commands: ${all.map((c) => c.name).join(", ")}`);
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
    const err = e;
    console.error(`medalist ${name}: unexpected error: ${err?.message ?? String(e)}`);
    if (process.env.MEDALIST_DEBUG) console.error(err?.stack);
    return 1;
  }
}

// src/cli.ts
process.exitCode = await main(process.argv.slice(2));
