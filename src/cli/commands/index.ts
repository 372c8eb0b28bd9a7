import type { Command } from "../command.js";

/** Every CLI command; each lives in its own file in this folder. */
export const commands: Command[] = [];
