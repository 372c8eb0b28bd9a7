import { spawn } from "node:child_process";

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs Slurm's client commands (sbatch, sacct, squeue, scancel). Tests swap in a fake. */
export interface CommandRunner {
  run(command: string, args: string[], opts?: { env?: Record<string, string> }): Promise<CommandResult>;
}

/** Output kept from one command: sacct of a large suite stays far below this. */
const MAX_OUTPUT = 16 * 1024 * 1024;

/** Spawns the command directly (no shell), with a time limit so a hung controller cannot hang the suite. */
export function spawnRunner(timeoutMs = 60_000): CommandRunner {
  return {
    run(command, args, opts = {}) {
      return new Promise((resolve) => {
        const child = spawn(command, args, {
          env: opts.env ?? process.env,
          stdio: ["ignore", "pipe", "pipe"],
          timeout: timeoutMs,
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (b: Buffer) => {
          if (stdout.length < MAX_OUTPUT) stdout += b.toString("utf8");
        });
        child.stderr.on("data", (b: Buffer) => {
          if (stderr.length < MAX_OUTPUT) stderr += b.toString("utf8");
        });
        child.on("error", (e) => resolve({ code: null, stdout, stderr: stderr + e.message }));
        child.on("close", (code, signal) =>
          resolve({ code, stdout, stderr: signal ? `${stderr}killed by ${signal}` : stderr }),
        );
      });
    },
  };
}
