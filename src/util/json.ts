/**
 * The one JSON writer of every `--json` output. JSON has no NaN or ±Infinity, so a non-finite
 * number is written as `null`, and the object holding it gains a `nonFinite` map saying which
 * number it was, by key: `{"score": null, "nonFinite": {"score": "NaN"}}`. A non-finite number
 * inside an array is named by its path from the nearest enclosing object (`"scores[2]"`,
 * `"grid[0][1]"`); one in an array with no enclosing object, or a bare top-level number, is
 * written as `null` only. Everything else is as JSON.stringify writes it (toJSON honoured).
 */
export type NonFinite = "NaN" | "Infinity" | "-Infinity";

const nameOf = (x: number): NonFinite => (Number.isNaN(x) ? "NaN" : x > 0 ? "Infinity" : "-Infinity");

/** JSON text (2-space indent by default) with non-finite numbers as null plus their names. */
export function toCliJson(value: unknown, indent = 2): string {
  return JSON.stringify(safe(value, null, ""), null, indent);
}

/** The value made JSON-safe; `found` collects non-finite numbers under `path` for the enclosing object. */
function safe(value: unknown, found: Record<string, NonFinite> | null, path: string): unknown {
  if (typeof value === "number") {
    if (Number.isFinite(value)) return value;
    if (found && path) found[path] = nameOf(value);
    return null;
  }
  if (value === null || typeof value !== "object") return value;
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === "function") return safe(withJson.toJSON(), found, path);
  if (Array.isArray(value) || ArrayBuffer.isView(value)) {
    const items = Array.from(value as ArrayLike<unknown>);
    return items.map((v, i) => safe(v, found, path ? `${path}[${i}]` : ""));
  }
  const own: Record<string, NonFinite> = {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined || typeof v === "function") continue;
    out[k] = safe(v, own, k);
  }
  if (Object.keys(own).length) out.nonFinite = own;
  return out;
}
