import { describe, expect, it } from "vitest";
import { simulatePool } from "../../src/compare/pool.js";

describe("simulatePool", () => {
  const runs = () => [
    { id: "a", d: 4 },
    { id: "b", d: 2 },
    { id: "c", d: 3 },
  ];
  it("refunds the time left of runs in flight at the verdict only when they stop there", () => {
    const stopAtA = (r: { id: string }) => r.id === "a";
    // a 0–4 and b 0–2; c starts when b ends (2–5); the verdict comes when a ends, at 4.
    expect(simulatePool(runs(), 2, (r) => r.d, stopAtA, true)).toEqual({ paid: 8, wall: 4 });
    expect(simulatePool(runs(), 2, (r) => r.d, stopAtA, false)).toEqual({ paid: 9, wall: 5 });
  });
  it("starts nothing after the verdict, and runs what `ended` adds to the queue before it", () => {
    const queue = runs();
    const seen: string[] = [];
    const ended = (r: { id: string }) => {
      seen.push(r.id);
      if (r.id === "b") queue.push({ id: "d", d: 0.5 });
      return r.id === "d";
    };
    // b ends at 2 and adds d; c takes b's slot (2–5); a ends at 4, d runs 4–4.5 and is the verdict,
    // c stops there with 0.5 left.
    expect(simulatePool(queue, 2, (r) => r.d, ended, true)).toEqual({ paid: 9, wall: 4.5 });
    expect(seen).toEqual(["b", "a", "d"]);
  });
});
