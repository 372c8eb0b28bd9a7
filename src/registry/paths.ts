import { z } from "zod";

/** Why a registry path would leave its folder, or null when it stays inside. */
export function pathProblem(p: string): string | null {
  if (p.length === 0) return "is empty";
  if (p.length > 1024) return "is longer than 1024 characters";
  if (p.includes("\0")) return "contains a NUL byte";
  if (p.startsWith("/") || p.startsWith("\\") || /^[A-Za-z]:/.test(p)) return "is absolute";
  if (p.split(/[\\/]+/).some((s) => s === "..")) return 'climbs out of its folder with ".."';
  return null;
}

/**
 * A path under <id>/prepared/public that stays inside <id>/prepared: upstream keeps a few sample
 * submissions in private/ ("../private/sample_submission.csv").
 */
export const preparedPath = z.string().superRefine((p, ctx) => {
  const rest = p.startsWith("../private/") ? p.slice("../private/".length) : p;
  const why = pathProblem(rest);
  if (why) ctx.addIssue({ code: "custom", message: `the path ${JSON.stringify(p.slice(0, 80))} ${why}` });
});

/** A path that stays inside its folder: relative, no "..", no NUL, bounded length. */
export const insidePath = z.string().superRefine((p, ctx) => {
  const why = pathProblem(p);
  if (why) ctx.addIssue({ code: "custom", message: `the path ${JSON.stringify(p.slice(0, 80))} ${why}` });
});
