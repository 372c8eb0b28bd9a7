// `medalist check` on this machine for the Slurm executor: does the controller answer, and how the
// agent runs on the node. Nothing is submitted.
import { execFile } from "node:child_process";
import type { SlurmConfig } from "../../config/blocks/slurm.js";
import type { CheckLine } from "../backend.js";

/** Runs `file args`, resolving with its first output line, or rejecting with its first error line. */
function firstLine(file: string, args: string[]): Promise<string> {
  return new Promise((ok, fail) =>
    execFile(file, args, { timeout: 15_000 }, (err, stdout, stderr) => {
      if (err) {
        const said = String(stderr).trim().split("\n")[0];
        fail(
          new Error(
            (err as NodeJS.ErrnoException).code === "ENOENT"
              ? `${file} is not installed (not on PATH)`
              : said || err.message,
          ),
        );
      } else ok(String(stdout).trim().split("\n")[0] ?? "");
    }),
  );
}

/** The executor line (scontrol ping) and the sandbox line (the mode). */
export async function slurmMachineCheck(block: SlurmConfig): Promise<CheckLine[]> {
  const lines: CheckLine[] = [];
  try {
    const said = await firstLine("scontrol", ["ping"]);
    lines.push({ what: "executor", ok: true, text: `slurm: ${said || "the controller answers"}` });
  } catch (e) {
    lines.push({
      what: "executor",
      ok: false,
      text: `slurm: the controller does not answer (scontrol ping: ${(e as Error).message})`,
    });
  }
  lines.push({
    what: "sandbox",
    ok: true,
    text: `slurm.mode ${block.mode} decides how the agent runs on the node (docs/slurm.md)`,
  });
  return lines;
}
