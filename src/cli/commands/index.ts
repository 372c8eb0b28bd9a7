import type { Command } from "../command.js";
import { competitionsCommand } from "./competitions.js";

/** Every CLI command; each lives in its own file in this folder. */
export const commands: Command[] = [competitionsCommand];
