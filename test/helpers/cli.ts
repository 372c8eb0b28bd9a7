// The CLI run in-process, its output captured: what a user would see on the terminal.
import { vi } from "vitest";
import { main } from "../../src/cli/main.js";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved as printed. */
  all: string;
}

/** Runs `medalist ARGV…` in this process, capturing console.log/error and stdout writes. */
export async function runCli(...argv: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const all: string[] = [];
  const push = (to: string[], s: string) => (to.push(s), all.push(s));
  const log = vi.spyOn(console, "log").mockImplementation((...a) => void push(out, a.join(" ")));
  const error = vi.spyOn(console, "error").mockImplementation((...a) => void push(err, a.join(" ")));
  const write = vi.spyOn(process.stdout, "write").mockImplementation((s) => (push(out, String(s)), true));
  try {
    const code = await main(argv);
    return { code, stdout: out.join("\n"), stderr: err.join("\n"), all: all.join("\n") };
  } finally {
    log.mockRestore();
    error.mockRestore();
    write.mockRestore();
  }
}
