import { describe, expect, it } from "vitest";
import { diffLines, hunks } from "../../src/view/diff.js";

function apply(lines: NonNullable<ReturnType<typeof diffLines>>) {
  return {
    a: lines.filter((l) => l.kind !== "+").map((l) => l.text),
    b: lines.filter((l) => l.kind !== "-").map((l) => l.text),
    edits: lines.filter((l) => l.kind !== " ").length,
  };
}

describe("diffLines", () => {
  it("finds a shortest edit script that rebuilds both sides", () => {
    const a = "a b c a b b a".split(" ");
    const b = "c b a b a c".split(" ");
    const d = diffLines(a, b)!;
    const r = apply(d);
    expect(r.a).toEqual(a);
    expect(r.b).toEqual(b);
    expect(r.edits).toBe(5); // Myers' paper example: D = 5
  });

  it("rebuilds both sides on random inputs", () => {
    const n = Number(process.env.MEDALIST_FUZZ ?? 200);
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < n; i++) {
      const a = Array.from({ length: Math.floor(rnd() * 30) }, () => String(Math.floor(rnd() * 4)));
      const b = Array.from({ length: Math.floor(rnd() * 30) }, () => String(Math.floor(rnd() * 4)));
      const r = apply(diffLines(a, b)!);
      expect(r.a).toEqual(a);
      expect(r.b).toEqual(b);
    }
  });

  it("gives up past the edit budget", () => {
    const a = Array.from({ length: 50 }, (_, i) => `a${i}`);
    const b = Array.from({ length: 50 }, (_, i) => `b${i}`);
    expect(diffLines(a, b, 10)).toBeNull();
  });

  it("groups changes into hunks with context", () => {
    const a = Array.from({ length: 40 }, (_, i) => `l${i}`);
    const b = [...a];
    b[5] = "x";
    b[30] = "y";
    const h = hunks(diffLines(a, b)!);
    expect(h).toHaveLength(2);
    expect(h[0].aStart).toBe(3);
    expect(h[0].lines.map((l) => l.kind).join("")).toBe("   -+   ");
  });
});
