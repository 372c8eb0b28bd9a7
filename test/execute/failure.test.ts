import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { causeLine, describeFailure, stderrLines } from "../../src/execute/failure.js";
import { readTail } from "../../src/execute/run-log.js";

const failed = (exitCode: number | null, extra = {}) => ({
  outcome: "failed" as const,
  exitCode,
  durationMs: 1,
  ...extra,
});

describe("failure causes", () => {
  it("a command typo: the shell's line and exit 127", () => {
    const f = describeFailure(failed(127), "/bin/sh: 1: pythn3: not found\n");
    expect(f).toEqual({
      cause: "/bin/sh: 1: pythn3: not found (exit 127)",
      exitCode: 127,
      signal: null,
      stderrTail: ["/bin/sh: 1: pythn3: not found"],
    });
  });

  it("reads Docker's tagged log: stderr lines only, not stdout or Medalist's notes", () => {
    const log = [
      "2026-01-01T00:00:00.000Z medalist attempt 1: container x",
      "2026-01-01T00:00:01.000Z stdout loading data",
      "2026-01-01T00:00:02.000Z stderr Traceback (most recent call last):",
      '2026-01-01T00:00:02.000Z stderr   File "agent.py", line 3, in <module>',
      "2026-01-01T00:00:02.000Z stderr ValueError: could not convert string to float: 'x'",
      "2026-01-01T00:00:03.000Z medalist exited with code 1 after 3.0s",
    ].join("\n");
    expect(stderrLines(log)).toHaveLength(3);
    expect(describeFailure(failed(1), log)?.cause).toBe(
      "ValueError: could not convert string to float: 'x' (exit 1)",
    );
  });

  it("skips stack frames and runtime banners to the error line", () => {
    const node = [
      "file:///a.mjs:3",
      "throw new Error('boom')",
      "^",
      "",
      "Error: boom",
      "    at x (a.mjs:3:7)",
      "",
      "Node.js v20.19.0",
    ];
    expect(causeLine(node)).toBe("Error: boom");
  });

  it("a signal, a timeout, out of memory and infrastructure each say so", () => {
    expect(describeFailure(failed(null, { signal: "SIGKILL" }), "")?.cause).toBe(
      "the agent was killed by SIGKILL",
    );
    expect(
      describeFailure(
        { outcome: "timed_out", exitCode: 143, durationMs: 1, error: "time limit of 5s reached" },
        "",
      )?.cause,
    ).toBe("time limit of 5s reached");
    expect(
      describeFailure({ outcome: "oom", exitCode: 137, durationMs: 1, error: "out of memory" }, "")?.cause,
    ).toBe("out of memory (exit 137)");
    expect(
      describeFailure({ outcome: "infra_error", exitCode: null, durationMs: 1, error: "daemon gone" }, "")
        ?.cause,
    ).toBe("infrastructure: daemon gone");
    expect(describeFailure({ outcome: "completed", exitCode: 0, durationMs: 1 }, "x")).toBeNull();
  });

  it("a silent exit 127 still names the likely cause; control characters are stripped", () => {
    expect(describeFailure(failed(127), "")?.cause).toBe("command not found (exit 127)");
    expect(describeFailure(failed(3), "")?.cause).toBe(
      "the agent exited with code 3 and wrote nothing to stderr",
    );
    expect(stderrLines("\x1b[31mred\x1b[0m\x07")).toEqual(["red"]);
  });

  it("reads only the tail of a long log", () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-fail-"));
    const file = join(dir, "run.log");
    writeFileSync(file, "x".repeat(100_000) + "\nlast line\n");
    expect(readTail(file, 1000)).toBe("last line\n");
    expect(readTail(join(dir, "missing"))).toBe("");
  });
});
