import { afterEach, describe, expect, it } from "vitest";
import { cancelOnSignals } from "../../src/session/cancel.js";

// The signals are delivered by emitting them on `process`: the test process itself is not signalled.
describe("one cancellation policy for both doors", () => {
  const before = { int: process.listenerCount("SIGINT"), term: process.listenerCount("SIGTERM") };
  afterEach(() => {
    expect(process.listenerCount("SIGINT")).toBe(before.int);
    expect(process.listenerCount("SIGTERM")).toBe(before.term);
  });

  it("the first signal aborts gracefully, the second exits 130 at once", () => {
    const lines: string[] = [];
    const exits: number[] = [];
    const c = cancelOnSignals(
      (l) => lines.push(l),
      (code) => exits.push(code),
    );
    try {
      expect(c.signal.aborted).toBe(false);
      process.emit("SIGTERM", "SIGTERM");
      expect(c.signal.aborted).toBe(true);
      expect(exits).toEqual([]);
      expect(lines[0]).toMatch(/SIGTERM received: stopping runs; finished runs are kept/);
      process.emit("SIGINT", "SIGINT");
      expect(exits).toEqual([130]);
      expect(lines[1]).toMatch(/second SIGINT: killing the runs and exiting now/);
    } finally {
      c.dispose();
    }
  });

  it("removes its listeners when disposed", () => {
    const c = cancelOnSignals(
      () => {},
      () => {},
    );
    expect(process.listenerCount("SIGINT")).toBe(before.int + 1);
    expect(process.listenerCount("SIGTERM")).toBe(before.term + 1);
    c.dispose();
  });
});
