// `medalist check` for the local executor: the agent's command as the sandbox will show it, and
// whether bubblewrap starts on this machine.
import type { LocalConfig } from "../../config/blocks/local.js";
import { UserError } from "../../errors.js";
import { agentCwd } from "../../util/contained.js";
import type { CheckContext, CheckLine } from "../backend.js";
import { bwrapProblem } from "./sandbox.js";
import { hiddenCommandPath } from "./visible.js";

const describe = (c: string | string[]) => (Array.isArray(c) ? c.join(" ") : c);

/** `medalist check`'s agent line: the command and its folder; a UserError for a file the sandbox hides. */
export function localAgentCheck({ agent, block, baseDir }: CheckContext<LocalConfig | undefined>): string {
  if (agent.command === undefined) throw new UserError("agent.command: the local executor needs a command");
  const cwd = agentCwd(agent.cwd, baseDir);
  // A file the command names that the sandbox will not show (where bubblewrap is what runs it).
  const mode = block?.sandbox ?? "auto";
  const hidden = mode !== "none" && bwrapProblem() === null ? hiddenCommandPath(agent.command, cwd) : null;
  if (hidden) throw new UserError(hidden);
  return `command ${describe(agent.command)} in ${cwd}`;
}

/** `medalist check`'s local lines: the executor, and whether its sandbox starts here. */
export async function localMachineCheck({ block }: { block: LocalConfig | undefined }): Promise<CheckLine[]> {
  return [
    { what: "executor", ok: true, text: "local: the agent runs as a process on this machine" },
    sandboxLine(block),
  ];
}

/** Whether bubblewrap can start, as the local executor's sandbox setting needs. */
function sandboxLine(local: LocalConfig | undefined): CheckLine {
  const mode = local?.sandbox ?? "auto";
  if (mode === "none")
    return {
      what: "sandbox",
      ok: true,
      text: "none (local.sandbox: none): the agent runs as this machine's user",
    };
  const problem = bwrapProblem();
  if (problem === null)
    return { what: "sandbox", ok: true, text: "bubblewrap starts a sandbox on this machine" };
  return {
    what: "sandbox",
    ok: false,
    text:
      mode === "bwrap"
        ? `local.sandbox is bwrap and bubblewrap cannot start here (${problem}): install bubblewrap and allow user namespaces`
        : `bubblewrap cannot start here (${problem}), so the agent would run unsandboxed: install bubblewrap, or set local.sandbox: none to accept that`,
  };
}
