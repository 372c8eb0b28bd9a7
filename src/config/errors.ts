import type { z } from "zod";

function pathOf(path: PropertyKey[]): string {
  if (path.length === 0) return "(top level)";
  return path
    .map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join("");
}

/** What the zod internals below read of a schema. */
interface Def {
  type: string;
  innerType?: Schema;
  in?: Schema;
  shape?: Record<string, Schema>;
  element?: Schema;
  options?: Schema[];
  valueType?: Schema;
  getter?: () => Schema;
}
type Schema = { _zod?: { def: Def } } | undefined;

const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional"]);

/** The object schemas reachable at `path` (a union may give several). */
function objectsAt(schema: Schema, path: PropertyKey[]): Def[] {
  let def = schema?._zod?.def;
  for (let guard = 0; def && guard < 50; guard++) {
    if (WRAPPERS.has(def.type)) def = def.innerType?._zod?.def;
    else if (def.type === "pipe") def = def.in?._zod?.def;
    else if (def.type === "lazy") def = def.getter?.()?._zod?.def;
    else break;
  }
  if (!def) return [];
  if (def.type === "union") return (def.options ?? []).flatMap((o) => objectsAt(o, path));
  if (path.length === 0) return def.type === "object" ? [def] : [];
  const [head, ...rest] = path;
  if (def.type === "object" && typeof head === "string") return objectsAt(def.shape?.[head], rest);
  if (def.type === "array" && typeof head === "number") return objectsAt(def.element, rest);
  if (def.type === "record") return objectsAt(def.valueType, rest);
  return [];
}

/** The fields an object schema at `path` accepts. */
export function knownFields(schema: z.ZodType, path: PropertyKey[]): string[] {
  return [...new Set(objectsAt(schema as Schema, path).flatMap((d) => Object.keys(d.shape ?? {})))];
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}

/** The known name closest to `name` (a typo, a missing plural), or undefined when none is close. */
export function closest(name: string, known: string[]): string | undefined {
  const n = name.toLowerCase();
  let best: { k: string; d: number } | undefined;
  for (const k of known) {
    const d = editDistance(n, k.toLowerCase());
    if (d <= Math.max(1, Math.floor(k.length / 3)) && (!best || d < best.d)) best = { k, d };
  }
  return best?.k;
}

const TYPE_WORDS: Record<string, string> = {
  number: "a number",
  int: "a whole number",
  string: "a string",
  boolean: "true or false",
  object: "a mapping (key: value)",
  array: "a list",
};

/** A YAML/JSON value in words: `the string "three"`, `the number 2`, `a list`, `nothing`. */
function describe(value: unknown): string {
  if (value === undefined || value === null) return "nothing";
  if (typeof value === "string") return `the string ${JSON.stringify(value.slice(0, 40))}`;
  if (typeof value === "number" || typeof value === "boolean") return `${typeof value} ${String(value)}`;
  return Array.isArray(value) ? "a list" : "a mapping";
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let v = input;
  for (const p of path)
    v = v !== null && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[p] : undefined;
  return v;
}

interface Context {
  schema?: z.ZodType;
  input?: unknown;
}

/** One issue as "<path>: <what was expected>". */
function issueLine(issue: z.core.$ZodIssue, ctx: Context): string {
  if (issue.code === "unrecognized_keys") {
    const known = ctx.schema ? knownFields(ctx.schema, issue.path) : [];
    const named = issue.keys.map((k) => {
      const near = closest(
        k,
        known.filter((f) => !issue.keys.includes(f)),
      );
      return near ? `"${k}" (did you mean "${near}"?)` : `"${k}"`;
    });
    const where = issue.path.length ? `${pathOf(issue.path)}: ` : "";
    return `${where}unknown field${named.length > 1 ? "s" : ""} ${named.join(", ")}`;
  }
  const received = /received (\w+)/.exec(issue.message)?.[1];
  const got =
    ctx.input !== undefined
      ? `, got ${describe(valueAt(ctx.input, issue.path))}`
      : received
        ? `, got ${received === "undefined" ? "nothing" : received}`
        : "";
  if (issue.code === "invalid_union") {
    // The one branch whose type the input has (an object for `seeds: { … }`): its own issues, with their paths.
    const typed = issue.errors.filter(
      (branch) => !branch.some((i) => i.path.length === 0 && i.code === "invalid_type"),
    );
    if (typed.length === 1 && typed[0].length > 0)
      return typed[0]
        .map((i) => issueLine({ ...i, path: [...issue.path, ...i.path] } as z.core.$ZodIssue, ctx))
        .join("; ");
    const expected = issue.errors
      .map((branch) => branch.find((i) => i.path.length === 0 && i.code === "invalid_type"))
      .map((i) => (i && "expected" in i ? TYPE_WORDS[String(i.expected)] : undefined));
    if (expected.length > 0 && expected.every((e) => e !== undefined))
      return `${pathOf(issue.path)}: expected ${[...new Set(expected)].join(" or ")}${got}`;
  }
  // A schema's own message (a literal or enum given one) is said as written.
  if (issue.code === "invalid_value" && !/^Invalid (input|option)\b/.test(issue.message))
    return `${pathOf(issue.path)}: ${issue.message}`;
  if (issue.code === "invalid_value" && issue.values.length > 0) {
    // An enum field: the allowed words, and the nearest one to what was written.
    const value = ctx.input !== undefined ? valueAt(ctx.input, issue.path) : undefined;
    const words = issue.values.map((v) => String(v));
    const near = typeof value === "string" ? closest(value, words) : undefined;
    const one = words.length === 1;
    return `${pathOf(issue.path)}: expected ${one ? "" : "one of "}${words.map((w) => JSON.stringify(w)).join(", ")}${got}${near ? ` (did you mean "${near}"?)` : ""}`;
  }
  if (issue.code === "invalid_type") {
    const word = TYPE_WORDS[String(issue.expected)];
    if (word) return `${pathOf(issue.path)}: expected ${word}${got}`;
  }
  return `${pathOf(issue.path)}: ${issue.message}`;
}

/**
 * One readable message per issue: "<where>: <path>: <what was expected>". Given the schema, an
 * unknown field names the closest known one; given the input, a wrong type names what it got.
 */
export function formatZodError(error: z.ZodError, where: string, ctx: Context = {}): string {
  const lines = error.issues.map((issue) => issueLine(issue, ctx));
  return lines.length === 1
    ? `${where}: ${lines[0]}`
    : `${where}: ${lines.length} problems\n  ${lines.join("\n  ")}`;
}
