import type { Column } from "../tabular/csv.js";

/** Python's repr of a float (what pandas astype(str) prints for a float column). */
export function pythonFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mant, expStr] = x.toExponential().split("e"); // shortest round-trip digits
  const exp = Number(expStr);
  const neg = mant.startsWith("-");
  const digits = mant.replace("-", "").replace(".", "");
  let body: string;
  if (exp >= -4 && exp < 16) {
    if (exp < 0) body = "0." + "0".repeat(-exp - 1) + digits;
    else if (digits.length > exp + 1) body = digits.slice(0, exp + 1) + "." + digits.slice(exp + 1);
    else body = digits + "0".repeat(exp + 1 - digits.length) + ".0";
  } else {
    const m = digits.length > 1 ? digits[0] + "." + digits.slice(1) : digits;
    body = `${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  return neg ? "-" + body : body;
}

/** A cell as pandas `astype(str)` renders it (pandas 2.x: missing → "nan"). */
export function pythonStr(c: Column, i: number): string {
  switch (c.kind) {
    case "text":
      return c.strings![i] ?? "nan";
    case "int":
      return String(c.values![i]);
    case "bool": {
      const v = c.values![i];
      return Number.isNaN(v) ? "nan" : v ? "True" : "False";
    }
    case "float":
      return pythonFloatRepr(c.values![i]);
  }
}
