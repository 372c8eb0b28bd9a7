import { describe, expect, it } from "vitest";
import { heartbeatLine, lastLineOf, statusLine } from "../../src/suite/heartbeat.js";

const n = { done: 3, total: 10 };
const t0 = Date.parse("2026-01-01T00:00:00Z");

describe("heartbeat", () => {
  it("shows elapsed / limit and the agent's last line", () => {
    const r = { runId: "toy-churn.s0", startedAt: t0, limitSecs: 3600, lastLine: "epoch 3 loss 0.2" };
    expect(heartbeatLine("head", n, r, t0 + 125_000)).toBe(
      "[head] 3/10 toy-churn.s0: 2:05 / 1:00:00 · epoch 3 loss 0.2",
    );
    expect(heartbeatLine("head", n, { ...r, lastLine: null }, t0)).toBe(
      "[head] 3/10 toy-churn.s0: 0:00 / 1:00:00 · no output yet",
    );
  });

  it("fits the terminal status in one line", () => {
    const runs = [1, 2, 3].map((i) => ({
      runId: `c${i}.s0`,
      startedAt: t0,
      limitSecs: 60,
      lastLine: "x".repeat(80),
    }));
    const line = statusLine("head", n, runs, t0 + 5000, 60);
    expect(line).toHaveLength(60);
    expect(line.startsWith("[head] 3/10 done · c1.s0 0:05/1:00 xxx")).toBe(true);
    expect(line.endsWith("…")).toBe(true);
  });

  it("takes the last non-empty line without run.log's stamp, ANSI codes or control characters", () => {
    const tail =
      "2026-01-01T00:00:00.000Z stdout first\n2026-01-01T00:00:01.000Z stderr \x1b[31mred\x1b[0m\x07 alert\n\n";
    expect(lastLineOf(tail)).toBe("red  alert");
    expect(lastLineOf("progress 10%\rprogress 50%\r")).toBe("progress 50%");
    expect(lastLineOf("")).toBeNull();
    expect(lastLineOf("y".repeat(300), 20)).toHaveLength(20);
  });
});
