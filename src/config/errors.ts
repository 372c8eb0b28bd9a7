import type { z } from "zod";

function pathOf(path: PropertyKey[]): string {
  if (path.length === 0) return "(top level)";
  return path
    .map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join("");
}

/** One readable message per issue: "<where>: <path>: <what was expected>". */
export function formatZodError(error: z.ZodError, where: string): string {
  const lines = error.issues.map((issue) => {
    let msg = issue.message;
    if (issue.code === "unrecognized_keys")
      msg = `unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
    const path = issue.code === "unrecognized_keys" ? pathOf(issue.path) : pathOf(issue.path);
    return `${path}: ${msg}`;
  });
  return lines.length === 1
    ? `${where}: ${lines[0]}`
    : `${where}: ${lines.length} problems\n  ${lines.join("\n  ")}`;
}
