import { z } from "zod";

/** "512m", "8g", "1024k", 1048576 → bytes. */
export function parseBytes(v: string | number): number | null {
  if (typeof v === "number") return v;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$/i.exec(v);
  if (!m) return null;
  const pow = { "": 0, k: 1, m: 2, g: 3, t: 4 }[m[2].toLowerCase() as "" | "k" | "m" | "g" | "t"];
  return Math.round(Number(m[1]) * 1024 ** pow);
}

/** A size in the config: bytes, or "512m", "8g". */
export const bytes = z.union([z.number().int().positive(), z.string()]).transform((v, ctx) => {
  const b = parseBytes(v);
  if (b === null || !(b > 0)) {
    ctx.addIssue({
      code: "custom",
      message: `expected a size like "512m" or "8g", got ${JSON.stringify(v)}`,
    });
    return z.NEVER;
  }
  return b;
});
