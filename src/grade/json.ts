/** JSON like Python's json.dumps: NaN and ±Infinity written as bare literals. */
export function pythonJson(value: unknown, indent = 2): string {
  const tag = "\u0000num:";
  const text = JSON.stringify(
    value,
    (_k, v: unknown) => {
      if (typeof v === "number" && !Number.isFinite(v))
        return tag + (Number.isNaN(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity");
      return v;
    },
    indent,
  );
  return text.replace(/"\\u0000num:([^"]+)"/g, "$1");
}
